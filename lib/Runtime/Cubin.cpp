//===- Cubin.cpp - Host-side sanity checks of the device image ------------===//
//
// Catches a wrong "cubin" or "kernel" field at load time, without a GPU: the
// image must be an ELF cubin, a fatbin or PTX, and an ELF cubin's symbol table
// (or a PTX's .entry list) must define the kernel.
//
//===----------------------------------------------------------------------===//
#include "fa/Runtime/Bundle.h"

#include <cstring>

namespace fa::runtime {

namespace {

template <typename T>
bool readAt(const std::string &image, uint64_t offset, T &out) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    return false;
  std::memcpy(&out, image.data() + offset, sizeof(T));
  return true;
}

Status badImage(const std::string &path, const std::string &what) {
  return Status::error(ErrorCode::InvalidBundle,
                       "cubin '" + path + "': " + what);
}

/// Function symbol names of an ELF64 little-endian image; false if the
/// structure is inconsistent.
bool elfFunctions(const std::string &image, std::vector<std::string> &out) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  if (!readAt(image, 0x28, shoff) || !readAt(image, 0x3A, shentsize) ||
      !readAt(image, 0x3C, shnum) || shentsize < 64)
    return false;
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t sh = shoff + uint64_t(i) * shentsize;
    uint32_t type, link;
    uint64_t offset, size, entsize;
    if (!readAt(image, sh + 0x04, type) || !readAt(image, sh + 0x18, offset) ||
        !readAt(image, sh + 0x20, size) || !readAt(image, sh + 0x28, link) ||
        !readAt(image, sh + 0x38, entsize))
      return false;
    if (type != 2 /*SHT_SYMTAB*/)
      continue;
    if (entsize < 24 || link >= shnum)
      return false;
    uint64_t strsh = shoff + uint64_t(link) * shentsize;
    uint64_t stroff, strsize;
    if (!readAt(image, strsh + 0x18, stroff) ||
        !readAt(image, strsh + 0x20, strsize) || stroff > image.size() ||
        image.size() - stroff < strsize)
      return false;
    for (uint64_t s = 0; s + entsize <= size; s += entsize) {
      uint32_t name;
      uint8_t info;
      if (!readAt(image, offset + s, name) ||
          !readAt(image, offset + s + 4, info))
        return false;
      if ((info & 0xF) != 2 /*STT_FUNC*/ || name >= strsize)
        continue;
      const char *str = image.data() + stroff + name;
      out.emplace_back(str, strnlen(str, strsize - name));
    }
  }
  return true;
}

std::string listNames(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 8; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > 8)
    out += ", ...";
  return out.empty() ? "none" : out;
}

} // namespace

Status checkCubinImage(const std::string &image, const std::string &kernel,
                       const std::string &path) {
  if (image.empty())
    return badImage(path, "the file is empty");
  if (image.size() >= 16 && image.compare(0, 4, "\x7f" "ELF") == 0) {
    if (image[4] != 2 || image[5] != 1)
      return badImage(path, "not a 64-bit little-endian ELF file");
    std::vector<std::string> functions;
    if (!elfFunctions(image, functions))
      return badImage(path, "corrupt ELF section or symbol table");
    for (const auto &f : functions)
      if (f == kernel)
        return Status::success();
    return badImage(path, "defines no kernel named \"" + kernel +
                              "\" (its functions: " + listNames(functions) +
                              ")");
  }
  uint32_t magic = 0;
  if (readAt(image, 0, magic) && magic == 0xBA55ED50u)
    return Status::success(); // fatbin: the driver picks and checks the image
  if (image.find(".version") != std::string::npos &&
      image.find(".target") != std::string::npos) {
    // PTX: entries are declared as ".entry <name>(" or ".entry <name> (".
    std::vector<std::string> entries;
    for (size_t pos = image.find(".entry"); pos != std::string::npos;
         pos = image.find(".entry", pos + 6)) {
      size_t b = image.find_first_not_of(" \t", pos + 6);
      size_t e = image.find_first_of(" \t\r\n(", b);
      if (b != std::string::npos && e != std::string::npos)
        entries.push_back(image.substr(b, e - b));
    }
    for (const auto &name : entries)
      if (name == kernel)
        return Status::success();
    return badImage(path, "PTX defines no entry named \"" + kernel +
                              "\" (its entries: " + listNames(entries) + ")");
  }
  return badImage(path, "neither an ELF cubin, a fatbin nor PTX text");
}

} // namespace fa::runtime

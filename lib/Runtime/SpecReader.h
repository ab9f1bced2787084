//===- SpecReader.h - Field readers of the JSON spec parsers ----*- C++ -*-===//
//
// Private to lib/Runtime: the object reader and the field parsers that the
// kernel bundle (BundleSpec.cpp) and kernel sequence (Sequence.cpp)
// readers share, so both name fields and word errors the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_LIB_SPECREADER_H
#define FA_RUNTIME_LIB_SPECREADER_H

#include "Json.h"
#include "fa/Runtime/BundleSpec.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace fa::runtime::detail {

/// The values of the bundle and sequence schemas these checks use (ranges,
/// enums, the keys an entry may have), generated from the schemas
/// (python/fa_mlir/contract.py, SCHEMA_VALUES).
namespace schema {
#include "fa/Runtime/SchemaValues.inc"
} // namespace schema

using json::Value;

/// The position of `name` in `names`, or -1.
inline int indexOf(const std::vector<std::string> &names,
                   const std::string &name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

/// "a, b, c".
inline std::string joinList(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

inline Status invalid(const std::string &field, const std::string &what) {
  return Status::error(ErrorCode::InvalidBundle, field + ": " + what);
}

inline Status wrongType(const std::string &field, const char *expected,
                 const Value &got) {
  return invalid(field, std::string("expected ") + expected + ", got " +
                            json::kindName(got));
}

/// Reads the fields of one JSON object, tracking its path for messages.
class ObjectReader {
public:
  ObjectReader(const Value &object, std::string path)
      : object_(object), path_(std::move(path)) {}

  std::string field(const std::string &key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  const Value *get(const std::string &key) const { return json::find(object_, key); }

  Status require(const std::string &key, const Value *&out) const {
    out = json::find(object_, key);
    if (!out)
      return missing(key);
    return Status::success();
  }

  Status string(const std::string &key, std::string &out,
                bool required = true) const {
    const Value *v = json::find(object_, key);
    if (!v) {
      return required ? missing(key) : Status::success();
    }
    if (!v->is_string())
      return wrongType(field(key), "a string", *v);
    if (v->get_ref<const std::string &>().empty())
      return invalid(field(key), "must not be empty");
    out = v->get_ref<const std::string &>();
    return Status::success();
  }

  Status integer(const std::string &key, int64_t &out, int64_t min,
                 int64_t max, bool required = true) const {
    const Value *v = json::find(object_, key);
    if (!v) {
      return required ? missing(key) : Status::success();
    }
    if (!json::isInt64(*v))
      return wrongType(field(key), "an integer", *v);
    if (json::asInt64(*v) < min || json::asInt64(*v) > max)
      return invalid(field(key), "value " + std::to_string(json::asInt64(*v)) +
                                     " is out of range [" +
                                     std::to_string(min) + ", " +
                                     std::to_string(max) + "]");
    out = json::asInt64(*v);
    return Status::success();
  }

  Status boolean(const std::string &key, bool &out) const {
    const Value *v = json::find(object_, key);
    if (!v)
      return Status::success();
    if (!v->is_boolean())
      return wrongType(field(key), "a boolean", *v);
    out = v->get<bool>();
    return Status::success();
  }

  /// A string field that must be one of `names` (a schema's enum): its
  /// position there into `index` (left as it is when absent and not
  /// required).
  Status choice(const std::string &key, const std::vector<std::string> &names,
                const char *what, int &index, bool required = true) const {
    if (!required && !get(key))
      return Status::success();
    std::string name;
    FA_RETURN_IF_ERROR(string(key, name, required));
    index = indexOf(names, name);
    if (index < 0)
      return invalid(field(key), std::string("unknown ") + what + " \"" + name +
                                     "\" (known: " + joinList(names) + ")");
    return Status::success();
  }

  /// Rejects keys outside `allowed` (used where a typo would silently
  /// change the launch ABI).
  Status onlyKeys(const std::vector<std::string> &allowed) const {
    for (const auto &m : object_.items())
      if (std::find(allowed.begin(), allowed.end(), m.key()) == allowed.end()) {
        std::string list;
        for (const auto &a : allowed)
          list += (list.empty() ? "" : ", ") + a;
        return invalid(field(m.key()), "unknown field (allowed here: " +
                                           list + ")");
      }
    return Status::success();
  }

private:
  Status missing(const std::string &key) const {
    return invalid(path_.empty() ? std::string("bundle") : path_,
                   "missing field \"" + key + "\"");
  }

  const Value &object_;
  std::string path_;
};

inline Status parseDTypeField(const ObjectReader &r, const std::string &key,
                       DType &out, bool required) {
  std::string name;
  FA_RETURN_IF_ERROR(r.string(key, name, required));
  if (name.empty())
    return Status::success();
  std::optional<DType> d = parseDType(name);
  if (!d)
    return invalid(r.field(key), "unknown dtype \"" + name + "\" (known: " +
                                     dtypeNameList() + ")");
  out = *d;
  return Status::success();
}

/// "format" (must be `format`), "version" and "chip" of a document; `what`
/// ("bundle", "sequence") words the version error.
Status parseHeader(const ObjectReader &r, const std::string &format,
                   const char *what, BundleSpec &spec);
/// The "config" object: types, defaults, the launch-relevant fields.
Status parseConfig(const Value &v, BundleSpec &spec);
bool isIdentifier(const std::string &s);
/// A "scratch"-like array at `field` into spec.scratch. With `inits`, each
/// entry may (must) also carry "init" ("zero" or "none"), one per entry.
Status parseScratchList(const Value &v, const std::string &field,
                        BundleSpec &spec, std::vector<bool> *zeroInit);

} // namespace fa::runtime::detail

#endif // FA_RUNTIME_LIB_SPECREADER_H

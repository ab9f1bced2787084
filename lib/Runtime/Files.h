//===- Files.h - Bounded file reading for bundle loaders --------*- C++ -*-===//
//
// Private to lib/Runtime: what Bundle::load and Sequence::load share.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_LIB_FILES_H
#define FA_RUNTIME_LIB_FILES_H

#include "fa/Runtime/Status.h"

#include <cstdint>
#include <string>

namespace fa::runtime::detail {

/// Reads a whole regular file of at most `limit` bytes. Anything else (a
/// device such as /dev/zero, a FIFO, a directory, a huge file) is an Io error
/// rather than a read that never ends or exhausts memory.
Status readFile(const std::string &path, uint64_t limit, std::string &out);

/// The folder part of `path` ("" for a bare name, "/" for a root entry).
std::string dirName(const std::string &path);

} // namespace fa::runtime::detail

#endif // FA_RUNTIME_LIB_FILES_H

//===- Json.h - Bounded JSON parsing for bundles ----------------*- C++ -*-===//
//
// Bundle JSON is read with nlohmann/json (ordered, so re-serialized config
// text keeps the writer's key order). On top of the library's strict RFC 8259
// parser this adds what bundles need from untrusted input: a nesting limit,
// rejection of duplicate keys and non-finite numbers, and errors as Status.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_JSON_H
#define FA_RUNTIME_JSON_H

#include "fa/Runtime/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace fa::runtime::json {

using Value = nlohmann::ordered_json;

/// Deepest nesting of arrays and objects accepted (a bundle needs 4).
constexpr int kMaxDepth = 64;

/// "null", "boolean", "number", "string", "array" or "object".
const char *kindName(const Value &value);
/// Member `key` of an object; null when absent or when `object` is not one.
const Value *find(const Value &object, const std::string &key);
/// A number written without fraction or exponent that fits in int64.
bool isInt64(const Value &value);
int64_t asInt64(const Value &value);

/// Parses `text`; errors have code Parse. The library's syntax errors say
/// "parse error at line L, column C: ..."; ours name the rule broken.
Expected<Value> parse(const std::string &text);

} // namespace fa::runtime::json

#endif // FA_RUNTIME_JSON_H

//===- Json.h - Minimal JSON reader/writer for bundles ----------*- C++ -*-===//
//
// Just enough JSON for bundle metadata: strict RFC 8259 input (no comments, no
// trailing commas), duplicate keys rejected, object key order kept so that
// re-serialized config text reads like the original.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_JSON_H
#define FA_RUNTIME_JSON_H

#include "fa/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fa::runtime::json {

enum class Kind { Null, Bool, Number, String, Array, Object };

const char *kindName(Kind kind);

class Value {
public:
  Value() = default;
  static Value null() { return Value(); }
  static Value boolean(bool b);
  static Value number(double d);
  static Value integer(int64_t i);
  static Value string(std::string s);
  static Value array(std::vector<Value> items);
  static Value object(std::vector<std::pair<std::string, Value>> members);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  /// A number written without fraction or exponent that fits in int64.
  bool isInteger() const { return kind_ == Kind::Number && isInteger_; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return bool_; }
  double asDouble() const { return number_; }
  int64_t asInt() const { return integer_; }
  const std::string &asString() const { return string_; }
  const std::vector<Value> &items() const { return items_; }
  const std::vector<std::pair<std::string, Value>> &members() const {
    return members_;
  }
  /// Member lookup; null when absent (or when this is not an object).
  const Value *find(const std::string &key) const;

  /// Compact serialization (no whitespace), keys in original order.
  std::string dump() const;

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool isInteger_ = false;
  double number_ = 0;
  int64_t integer_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

/// Parses `text`; errors (code Parse) say "line L, column C: ...".
Expected<Value> parse(const std::string &text);

} // namespace fa::runtime::json

#endif // FA_RUNTIME_JSON_H

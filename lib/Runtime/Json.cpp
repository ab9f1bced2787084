//===- Json.cpp - Bounded JSON parsing for bundles ------------------------===//
#include "Json.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>

namespace fa::runtime::json {

const char *kindName(const Value &value) {
  if (value.is_null())
    return "null";
  if (value.is_boolean())
    return "boolean";
  if (value.is_number())
    return "number";
  if (value.is_string())
    return "string";
  if (value.is_array())
    return "array";
  return "object";
}

const Value *find(const Value &object, const std::string &key) {
  if (!object.is_object())
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool isInt64(const Value &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>() <=
           static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return value.is_number_integer();
}

int64_t asInt64(const Value &value) {
  return value.is_number_unsigned()
             ? static_cast<int64_t>(value.get<uint64_t>())
             : value.get<int64_t>();
}

namespace {

/// A rule of ours broken while the library parses; thrown from the parser
/// callback (the only way to stop the library early) and caught in parse().
struct Rejected {
  std::string message;
};

/// The parser callback: tracks depth and each open object's keys.
class Guard {
public:
  bool operator()(int depth, Value::parse_event_t event,
                  Value &parsed) {
    using Event = Value::parse_event_t;
    switch (event) {
    case Event::object_start:
    case Event::array_start:
      if (depth >= kMaxDepth)
        throw Rejected{"nesting deeper than " + std::to_string(kMaxDepth) +
                       " levels"};
      if (event == Event::object_start)
        keys_.emplace_back();
      break;
    case Event::object_end: keys_.pop_back(); break;
    case Event::key:
      if (!keys_.back().insert(parsed.get<std::string>()).second)
        throw Rejected{"duplicate key \"" + parsed.get<std::string>() + "\""};
      break;
    case Event::value:
      if (parsed.is_number_float() && !std::isfinite(parsed.get<double>()))
        throw Rejected{"number out of range"};
      break;
    default: break;
    }
    return true;
  }

private:
  std::vector<std::set<std::string>> keys_;
};

/// The library's message without its "[json.exception.parse_error.N] "
/// prefix.
std::string withoutPrefix(const char *what) {
  std::string text(what);
  size_t close = text.find("] ");
  return close == std::string::npos ? text : text.substr(close + 2);
}

} // namespace

Expected<Value> parse(const std::string &text) {
  try {
    Guard guard;
    return Value::parse(text, std::ref(guard), /*allow_exceptions=*/true,
                        /*ignore_comments=*/false);
  } catch (const Rejected &r) {
    return Status::error(ErrorCode::Parse, r.message);
  } catch (const nlohmann::json::exception &e) {
    return Status::error(ErrorCode::Parse, withoutPrefix(e.what()));
  }
}

} // namespace fa::runtime::json

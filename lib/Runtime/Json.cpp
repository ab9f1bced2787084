//===- Json.cpp - Minimal JSON reader/writer ------------------------------===//
#include "fa/Runtime/Json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace fa::runtime::json {

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Bool: return "boolean";
  case Kind::Number: return "number";
  case Kind::String: return "string";
  case Kind::Array: return "array";
  case Kind::Object: return "object";
  }
  return "?";
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
Value Value::number(double d) {
  Value v;
  v.kind_ = Kind::Number;
  v.number_ = d;
  return v;
}
Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Number;
  v.isInteger_ = true;
  v.integer_ = i;
  v.number_ = static_cast<double>(i);
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}
Value Value::array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::Array;
  v.items_ = std::move(items);
  return v;
}
Value Value::object(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind_ = Kind::Object;
  v.members_ = std::move(members);
  return v;
}

const Value *Value::find(const std::string &key) const {
  for (const auto &m : members_)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

static void dumpString(const std::string &s, std::string &out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

static void dumpValue(const Value &v, std::string &out) {
  switch (v.kind()) {
  case Kind::Null: out += "null"; return;
  case Kind::Bool: out += v.asBool() ? "true" : "false"; return;
  case Kind::Number: {
    if (v.isInteger()) {
      out += std::to_string(v.asInt());
      return;
    }
    // Shortest text that reads back to the same double; locale-independent.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v.asDouble());
    std::string s(buf, res.ptr);
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0"; // keep it a float when read back
    out += s;
    return;
  }
  case Kind::String: dumpString(v.asString(), out); return;
  case Kind::Array: {
    out += '[';
    bool first = true;
    for (const Value &item : v.items()) {
      if (!first)
        out += ',';
      first = false;
      dumpValue(item, out);
    }
    out += ']';
    return;
  }
  case Kind::Object: {
    out += '{';
    bool first = true;
    for (const auto &m : v.members()) {
      if (!first)
        out += ',';
      first = false;
      dumpString(m.first, out);
      out += ':';
      dumpValue(m.second, out);
    }
    out += '}';
    return;
  }
  }
}

std::string Value::dump() const {
  std::string out;
  dumpValue(*this, out);
  return out;
}

namespace {

/// Recursive-descent parser; positions are tracked for error messages.
class Parser {
public:
  explicit Parser(const std::string &text) : text_(text) {}

  Expected<Value> parseDocument() {
    skipSpace();
    Value v;
    FA_RETURN_IF_ERROR(parseValue(v, 0));
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected text after the JSON value");
    return v;
  }

private:
  static constexpr int kMaxDepth = 256; // bounds recursion on hostile input

  Status fail(const std::string &what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return Status::error(ErrorCode::Parse, "line " + std::to_string(line) +
                                               ", column " +
                                               std::to_string(col) + ": " +
                                               what);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipSpace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        ++pos_;
      else
        break;
    }
  }

  Status expectWord(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0)
      return fail(std::string("invalid literal (expected '") + word + "')");
    pos_ += n;
    return Status::success();
  }

  Status parseValue(Value &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than 256 levels");
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    char c = peek();
    switch (c) {
    case '{': return parseObject(out, depth);
    case '[': return parseArray(out, depth);
    case '"': {
      std::string s;
      FA_RETURN_IF_ERROR(parseString(s));
      out = Value::string(std::move(s));
      return Status::success();
    }
    case 't':
      FA_RETURN_IF_ERROR(expectWord("true"));
      out = Value::boolean(true);
      return Status::success();
    case 'f':
      FA_RETURN_IF_ERROR(expectWord("false"));
      out = Value::boolean(false);
      return Status::success();
    case 'n':
      FA_RETURN_IF_ERROR(expectWord("null"));
      out = Value::null();
      return Status::success();
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      if (c == '/')
        return fail("comments are not allowed in JSON");
      return fail(std::string("unexpected character '") + c + "'");
    }
  }

  Status parseObject(Value &out, int depth) {
    ++pos_; // '{'
    std::vector<std::pair<std::string, Value>> members;
    std::set<std::string> seen;
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      out = Value::object(std::move(members));
      return Status::success();
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail(peek() == '}' ? "trailing comma in object"
                                  : "expected a string key in object");
      size_t keyPos = pos_;
      std::string key;
      FA_RETURN_IF_ERROR(parseString(key));
      if (!seen.insert(key).second) {
        pos_ = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (peek() != ':')
        return fail("expected ':' after object key");
      ++pos_;
      skipSpace();
      Value v;
      FA_RETURN_IF_ERROR(parseValue(v, depth + 1));
      members.emplace_back(std::move(key), std::move(v));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        out = Value::object(std::move(members));
        return Status::success();
      }
      return fail(atEnd() ? "unexpected end of input in object"
                          : "expected ',' or '}' in object");
    }
  }

  Status parseArray(Value &out, int depth) {
    ++pos_; // '['
    std::vector<Value> items;
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      out = Value::array(std::move(items));
      return Status::success();
    }
    while (true) {
      skipSpace();
      if (peek() == ']')
        return fail("trailing comma in array");
      Value v;
      FA_RETURN_IF_ERROR(parseValue(v, depth + 1));
      items.push_back(std::move(v));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        out = Value::array(std::move(items));
        return Status::success();
      }
      return fail(atEnd() ? "unexpected end of input in array"
                          : "expected ',' or ']' in array");
    }
  }

  static void appendUtf8(uint32_t cp, std::string &out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  Status parseHex4(uint32_t &cp) {
    if (pos_ + 4 > text_.size())
      return fail("truncated \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9')
        cp |= c - '0';
      else if (c >= 'a' && c <= 'f')
        cp |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        cp |= c - 'A' + 10;
      else
        return fail("invalid hex digit in \\u escape");
    }
    return Status::success();
  }

  Status parseString(std::string &out) {
    ++pos_; // opening quote
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return Status::success();
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return fail("control character in string (escape it)");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd())
        return fail("unterminated escape in string");
      char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = 0;
        FA_RETURN_IF_ERROR(parseHex4(cp));
        if (cp >= 0xD800 && cp <= 0xDBFF) { // surrogate pair
          if (text_.compare(pos_, 2, "\\u") != 0)
            return fail("unpaired surrogate in \\u escape");
          pos_ += 2;
          uint32_t lo = 0;
          FA_RETURN_IF_ERROR(parseHex4(lo));
          if (lo < 0xDC00 || lo > 0xDFFF)
            return fail("invalid low surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail("unpaired surrogate in \\u escape");
        }
        appendUtf8(cp, out);
        break;
      }
      default:
        --pos_;
        return fail(std::string("invalid escape '\\") + e + "' in string");
      }
    }
  }

  Status parseNumber(Value &out) {
    size_t start = pos_;
    bool isInt = true;
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
      if (peek() >= '0' && peek() <= '9')
        return fail("leading zeros are not allowed in numbers");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    } else {
      return fail("invalid number");
    }
    if (peek() == '.') {
      isInt = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected digits after '.' in number");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      isInt = false;
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected digits in number exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    std::string lexeme = text_.substr(start, pos_ - start);
    if (isInt) {
      errno = 0;
      char *end = nullptr;
      long long i = std::strtoll(lexeme.c_str(), &end, 10);
      if (errno != ERANGE) {
        out = Value::integer(i);
        return Status::success();
      }
      // Too large for int64: keep it as a double.
    }
    // from_chars, unlike strtod, ignores the C locale's decimal point.
    double d = 0;
    auto res = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), d);
    if (res.ec == std::errc::result_out_of_range) {
      pos_ = start;
      return fail("number out of range");
    }
    out = Value::number(d);
    return Status::success();
  }

  const std::string &text_;
  size_t pos_ = 0;
};

} // namespace

Expected<Value> parse(const std::string &text) {
  return Parser(text).parseDocument();
}

} // namespace fa::runtime::json

//===- JsonTest.cpp - JSON reader/writer ----------------------------------===//
#include "Check.h"

#include "fa/Runtime/Json.h"

using namespace fa::runtime;

TEST(json_values) {
  Expected<json::Value> v = json::parse(
      R"( {"a": 1, "b": -2.5e1, "c": [true, false, null], "d": "x\"\\\n\u00e9\ud83d\ude00", "e": {}} )");
  CHECK_OK(v);
  if (!v.ok())
    return;
  CHECK(v->isObject());
  CHECK(v->find("a")->isInteger());
  CHECK_EQ(v->find("a")->asInt(), 1);
  CHECK(!v->find("b")->isInteger());
  CHECK_EQ(v->find("b")->asDouble(), -25.0);
  CHECK_EQ(v->find("c")->items().size(), size_t(3));
  CHECK(v->find("c")->items()[2].isNull());
  CHECK_EQ(v->find("d")->asString(), std::string("x\"\\\n\xc3\xa9\xf0\x9f\x98\x80"));
  CHECK(v->find("missing") == nullptr);
  // Compact dump keeps key order and number kinds.
  CHECK_EQ(json::parse(R"({"z": 1, "a": [1.5, 2, 0.08838834764831845]})")->dump(),
           std::string(R"({"z":1,"a":[1.5,2,0.08838834764831845]})"));
  CHECK_EQ(json::parse("3.0")->dump(), std::string("3.0"));
  CHECK_EQ(json::parse("\"\\u0001\"")->dump(), std::string("\"\\u0001\""));
  // Integers beyond int64 stay numbers (as doubles).
  Expected<json::Value> big = json::parse("123456789012345678901234");
  CHECK_OK(big);
  CHECK(big->isNumber() && !big->isInteger());
}

TEST(json_errors) {
  struct Case {
    const char *text;
    const char *message;
  };
  const Case cases[] = {
      {"", "line 1, column 1: unexpected end of input"},
      {"{", "expected a string key"},
      {"{\"a\" 1}", "expected ':'"},
      {"{\"a\": 1,}", "trailing comma in object"},
      {"[1, 2,]", "trailing comma in array"},
      {"[1 2]", "expected ',' or ']'"},
      {"{\"a\": 1 \"b\": 2}", "expected ',' or '}'"},
      {"{\"a\": 1, \"a\": 2}", "duplicate key \"a\""},
      {"\"abc", "unterminated string"},
      {"\"a\tb\"", "control character"},
      {"\"\\q\"", "invalid escape"},
      {"\"\\u12G4\"", "invalid hex digit"},
      {"\"\\ud800\"", "unpaired surrogate"},
      {"01", "leading zeros"},
      {"1.", "expected digits after '.'"},
      {"1e", "expected digits in number exponent"},
      {"-", "invalid number"},
      {"1e999", "number out of range"},
      {"tru", "invalid literal"},
      {"nul", "invalid literal"},
      {"{} x", "unexpected text after the JSON value"},
      {"// c\n{}", "comments are not allowed"},
      {"@", "unexpected character '@'"},
      {"{\n  \"a\": ?}", "line 2, column 8"},
  };
  for (const Case &c : cases)
    CHECK_ERROR(json::parse(c.text), ErrorCode::Parse, c.message);
  std::string deep(300, '[');
  CHECK_ERROR(json::parse(deep), ErrorCode::Parse, "nesting deeper");
}

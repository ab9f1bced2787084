//===- JsonTest.cpp - Bounded JSON parsing (nlohmann/json underneath) -----===//
#include "Matchers.h"

#include "Json.h"

using namespace fa::runtime;

TEST(Json, Values) {
  Expected<json::Value> v = json::parse(
      R"( {"a": 1, "b": -2.5e1, "c": [true, false, null], "d": "x\"\\\n\u00e9\ud83d\ude00", "e": {}} )");
  ASSERT_OK(v);
  EXPECT_TRUE(v->is_object());
  EXPECT_TRUE(json::isInt64(*json::find(*v, "a")));
  EXPECT_EQ(json::asInt64(*json::find(*v, "a")), 1);
  EXPECT_FALSE(json::isInt64(*json::find(*v, "b")));
  EXPECT_EQ(json::find(*v, "b")->get<double>(), -25.0);
  EXPECT_EQ(json::find(*v, "c")->size(), size_t(3));
  EXPECT_EQ(json::find(*v, "d")->get<std::string>(),
            std::string("x\"\\\n\xc3\xa9\xf0\x9f\x98\x80"));
  EXPECT_TRUE(json::find(*v, "missing") == nullptr);
  EXPECT_TRUE(json::find(json::Value::array(), "a") == nullptr);
  EXPECT_STREQ(json::kindName(*json::find(*v, "e")), "object");
  // Compact dump keeps key order and number kinds.
  EXPECT_EQ(json::parse(R"({"z": 1, "a": [1.5, 2, 0.08838834764831845]})")->dump(),
            std::string(R"({"z":1,"a":[1.5,2,0.08838834764831845]})"));
}

TEST(Json, IntegersOutsideInt64AreNotIntegers) {
  EXPECT_TRUE(json::isInt64(*json::parse("9223372036854775807")));
  EXPECT_EQ(json::asInt64(*json::parse("-9223372036854775808")), INT64_MIN);
  EXPECT_FALSE(json::isInt64(*json::parse("9223372036854775808")));
  EXPECT_FALSE(json::isInt64(*json::parse("123456789012345678901234")));
  EXPECT_FALSE(json::isInt64(*json::parse("3.0")));
}

TEST(Json, StrictSyntaxWithPosition) {
  const ErrorCode parse = ErrorCode::Parse;
  EXPECT_ERROR(json::parse(""), parse, "line 1, column 1");
  EXPECT_ERROR(json::parse("{\"a\": 1,}"), parse, "syntax error");
  EXPECT_ERROR(json::parse("[1, 2,]"), parse, "syntax error");
  EXPECT_ERROR(json::parse("{\n  \"a\": ?}"), parse, "line 2, column 8");
  EXPECT_ERROR(json::parse("// c\n{}"), parse, "syntax error");
  EXPECT_ERROR(json::parse("{} x"), parse, "syntax error");
  EXPECT_ERROR(json::parse("\"\\ud800\""), parse, "surrogate");
  EXPECT_ERROR(json::parse("\"\xff\""), parse, "UTF-8");
  EXPECT_ERROR(json::parse("01"), parse, "syntax error");
}

TEST(Json, DuplicateKeysAreRejected) {
  EXPECT_ERROR(json::parse("{\"a\": 1, \"a\": 2}"), ErrorCode::Parse,
               "duplicate key \"a\"");
  EXPECT_ERROR(json::parse("[{\"b\": {\"a\": 1}, \"c\": {\"a\": 2, \"a\": 3}}]"),
               ErrorCode::Parse, "duplicate key \"a\"");
  // The same key in sibling objects is fine.
  EXPECT_OK(json::parse("[{\"a\": 1}, {\"a\": 2}]"));
}

TEST(Json, NonFiniteNumbersAreRejected) {
  EXPECT_ERROR(json::parse("1e999"), ErrorCode::Parse, "number overflow");
  EXPECT_ERROR(json::parse("[-1e400]"), ErrorCode::Parse, "number overflow");
}

TEST(Json, NestingIsBounded) {
  std::string ok(json::kMaxDepth, '[');
  ok += std::string(json::kMaxDepth, ']');
  EXPECT_OK(json::parse(ok));
  for (size_t depth : {size_t(json::kMaxDepth + 1), size_t(100000)}) {
    std::string deep(depth, '[');
    EXPECT_ERROR(json::parse(deep + std::string(depth, ']')), ErrorCode::Parse,
                 "nesting deeper than 64 levels");
    std::string objects;
    for (size_t i = 0; i < depth; ++i)
      objects += "{\"a\":";
    EXPECT_ERROR(json::parse(objects), ErrorCode::Parse, "nesting deeper");
  }
}

//===- JsonTest.cpp - the runtime's JSON reader ---------------------------===//

#include "Json.h"

#include <gtest/gtest.h>

#include <string>

using namespace inferrt::json;

namespace {

TEST(RuntimeJson, ReadsTheEnginesShapes) {
  Value v;
  ASSERT_TRUE(parse(R"( {"arena": {"bytes": 18446744073709551615}, "dims": [1, -3, 0],
                         "name": "a\"b\u00e9\ud83d\ude00", "f": 2.5e1, "ok": true, "no": null} )",
                    v));
  ASSERT_TRUE(v.isObject());
  const Value *bytes = v.find("arena")->find("bytes");
  ASSERT_TRUE(bytes && bytes->isUnsigned);
  EXPECT_EQ(bytes->unsignedInteger, UINT64_MAX);
  EXPECT_FALSE(bytes->isInteger); // Does not fit an int64.
  const Value &dims = *v.find("dims");
  ASSERT_EQ(dims.items.size(), 3u);
  EXPECT_EQ(dims.items[1].integer, -3);
  EXPECT_FALSE(dims.items[1].isUnsigned);
  EXPECT_EQ(v.find("name")->text, "a\"b\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_FALSE(v.find("f")->isInteger);
  EXPECT_DOUBLE_EQ(v.find("f")->number, 25.0);
  EXPECT_TRUE(v.find("ok")->boolean);
  EXPECT_EQ(v.find("no")->kind, Value::Kind::Null);
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(RuntimeJson, RefusesMalformedText) {
  for (const char *text : {"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e",
                           "\"unterminated", "\"\\x\"", "\"\\ud800\"", "tru", "[1] 2",
                           "\"tab\tinside\""}) {
    Value v;
    EXPECT_FALSE(parse(text, v)) << text;
  }
}

TEST(RuntimeJson, CapsNesting) {
  Value v;
  std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_TRUE(parse(ok, v));
  // A hostile engine's deeply nested plan is refused, not a stack overflow.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(parse(deep, v));
}

} // namespace

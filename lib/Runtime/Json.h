//===- Json.h - the runtime's small JSON reader ------------*- C++ -*-===//
//
// The engine's metadata and plan are JSON. The runtime reads them with this
// reader instead of nlohmann::json because nlohmann's destructor allocates
// (it flattens nested values onto a heap stack) and so cannot run safely
// once an allocation has failed: a failed load then ended in
// std::terminate. Destroying a Value here allocates nothing; nesting is
// capped (kMaxDepth), which bounds the recursion of both parsing and
// destruction.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_JSON_H
#define INFERRT_LIB_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inferrt::json {

/// Deeper nesting is malformed for the runtime (the engine's JSON is 4 deep).
constexpr int kMaxDepth = 32;

struct Member;

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  /// Numbers: an integer literal (no fraction or exponent) that fits an
  /// int64 sets `isInteger`; a non-negative one that fits a uint64 sets
  /// `isUnsigned`.
  bool isInteger = false, isUnsigned = false;
  int64_t integer = 0;
  uint64_t unsignedInteger = 0;
  double number = 0;
  std::string text;            // Kind::String
  std::vector<Value> items;    // Kind::Array
  std::vector<Member> members; // Kind::Object, in document order

  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }
  /// The member named `key` of an object (the first one), or null.
  const Value *find(std::string_view key) const;
};

struct Member {
  std::string key;
  Value value;
};

/// Parses one JSON value, surrounded by whitespace only, into `out`.
/// Returns false for malformed text (or nesting deeper than kMaxDepth).
/// Throws std::bad_alloc when memory runs out.
bool parse(std::string_view text, Value &out);

} // namespace inferrt::json

#endif // INFERRT_LIB_RUNTIME_JSON_H

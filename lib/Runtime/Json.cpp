//===- Json.cpp - the runtime's small JSON reader --------------------------===//

#include "Json.h"

#include <cstdlib>

using namespace inferrt::json;

const Value *Value::find(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const Member &m : members)
    if (m.key == key)
      return &m.value;
  return nullptr;
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : s(text) {}

  bool document(Value &out) {
    if (!value(out, 0))
      return false;
    skipSpace();
    return pos == s.size();
  }

private:
  std::string_view s;
  size_t pos = 0;

  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }

  bool literal(std::string_view word) {
    if (s.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  bool value(Value &out, int depth) {
    if (depth > kMaxDepth)
      return false;
    skipSpace();
    if (pos >= s.size())
      return false;
    switch (s[pos]) {
    case '{':
      return object(out, depth);
    case '[':
      return array(out, depth);
    case '"':
      out.kind = Value::Kind::String;
      return string(out.text);
    case 't':
      out.kind = Value::Kind::Bool;
      out.boolean = true;
      return literal("true");
    case 'f':
      out.kind = Value::Kind::Bool;
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return number(out);
    }
  }

  /// The elements of an object or array up to `close`, separated by
  /// commas, each read by `element` (at pos, past leading whitespace).
  template <typename Element>
  bool sequence(char close, Element element) {
    ++pos; // The opening bracket.
    skipSpace();
    if (pos < s.size() && s[pos] == close) {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (!element())
        return false;
      skipSpace();
      if (pos >= s.size())
        return false;
      char c = s[pos++];
      if (c == close)
        return true;
      if (c != ',')
        return false;
    }
  }

  bool object(Value &out, int depth) {
    out.kind = Value::Kind::Object;
    return sequence('}', [&] {
      Member member;
      if (pos >= s.size() || s[pos] != '"' || !string(member.key))
        return false;
      skipSpace();
      if (pos >= s.size() || s[pos++] != ':')
        return false;
      if (!value(member.value, depth + 1))
        return false;
      out.members.push_back(std::move(member));
      return true;
    });
  }

  bool array(Value &out, int depth) {
    out.kind = Value::Kind::Array;
    return sequence(']', [&] {
      out.items.emplace_back();
      return value(out.items.back(), depth + 1);
    });
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
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

  bool hex4(uint32_t &out) {
    if (pos + 4 > s.size())
      return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s[pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= c - '0';
      else if (c >= 'a' && c <= 'f')
        out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        out |= c - 'A' + 10;
      else
        return false;
    }
    return true;
  }

  bool string(std::string &out) {
    ++pos; // '"'
    while (pos < s.size()) {
      char c = s[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size())
        return false;
      switch (s[pos++]) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) { // A surrogate pair.
          uint32_t low;
          if (!literal("\\u") || !hex4(low) || low < 0xDC00 || low >= 0xE000)
            return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return false;
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return false;
      }
    }
    return false; // Unterminated.
  }

  bool number(Value &out) {
    size_t start = pos;
    bool negative = pos < s.size() && s[pos] == '-';
    if (negative)
      ++pos;
    size_t digits = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    if (pos == digits || (s[digits] == '0' && pos - digits > 1))
      return false; // No digits, or a leading zero.
    size_t intEnd = pos;
    bool integral = true;
    if (pos < s.size() && s[pos] == '.') {
      integral = false;
      size_t frac = ++pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
        ++pos;
      if (pos == frac)
        return false;
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        ++pos;
      size_t exp = pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
        ++pos;
      if (pos == exp)
        return false;
    }
    out.kind = Value::Kind::Number;
    std::string literalText(s.substr(start, pos - start));
    out.number = std::strtod(literalText.c_str(), nullptr);
    if (!integral)
      return true;
    uint64_t magnitude = 0;
    for (size_t i = digits; i < intEnd; ++i) {
      uint64_t digit = s[i] - '0';
      if (magnitude > (UINT64_MAX - digit) / 10)
        return true; // Too large for an integer: a plain number.
      magnitude = magnitude * 10 + digit;
    }
    if (!negative) {
      out.isUnsigned = true;
      out.unsignedInteger = magnitude;
      if (magnitude <= static_cast<uint64_t>(INT64_MAX)) {
        out.isInteger = true;
        out.integer = static_cast<int64_t>(magnitude);
      }
    } else if (magnitude <= static_cast<uint64_t>(INT64_MAX) + 1) {
      out.isInteger = true;
      out.integer = magnitude == static_cast<uint64_t>(INT64_MAX) + 1
                        ? INT64_MIN
                        : -static_cast<int64_t>(magnitude);
    }
    return true;
  }
};

} // namespace

bool inferrt::json::parse(std::string_view text, Value &out) {
  out = Value();
  return Parser(text).document(out);
}

#pragma once

// UTF-8 helpers shared by the regex engine, string formats and CEL's string functions.
// Invalid bytes decode as U+FFFD of width 1, as Go does, so no input is ever rejected
// or read out of bounds.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace kueuepp::kube::schema::utf8 {

/// The first code point of `s` and its width in bytes ({U+FFFD, 1} for an invalid
/// sequence, {0, 0} for an empty string).
inline std::pair<char32_t, std::size_t> decode(std::string_view s) {
  if (s.empty()) return {0, 0};
  auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = b(0);
  if (c < 0x80) return {c, 1};
  std::size_t n = 0;
  char32_t r = 0;
  char32_t min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, r = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, r = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, r = c & 0x07, min = 0x10000;
  } else {
    return {0xFFFD, 1};
  }
  if (s.size() < n) return {0xFFFD, 1};
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return {0xFFFD, 1};
    r = (r << 6) | (b(i) & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return {0xFFFD, 1};
  return {r, n};
}

/// Number of code points (what CEL's size() and OpenAPI's maxLength count).
inline std::size_t count(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    i += decode(s.substr(i)).second;
    ++n;
  }
  return n;
}

/// Appends the UTF-8 encoding of `r` (U+FFFD for surrogates and values beyond U+10FFFF).
inline void append(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = 0xFFFD;
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

/// Byte offset of code point index `cp` in `s` (s.size() when cp == count(s)); npos
/// when out of range.
inline std::size_t offset_of(std::string_view s, std::size_t cp) {
  std::size_t i = 0;
  for (std::size_t k = 0; k < cp; ++k) {
    if (i >= s.size()) return std::string_view::npos;
    i += decode(s.substr(i)).second;
  }
  return i;
}

}  // namespace kueuepp::kube::schema::utf8

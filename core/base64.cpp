#include "core/base64.hpp"

#include <cstdint>

namespace kueuepp::core {

namespace {

constexpr char kStd[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view data, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    std::uint32_t n = (static_cast<std::uint8_t>(data[i]) << 16) |
                      (static_cast<std::uint8_t>(data[i + 1]) << 8) | static_cast<std::uint8_t>(data[i + 2]);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(alphabet[(n >> 6) & 63]);
    out.push_back(alphabet[n & 63]);
  }
  std::size_t rest = data.size() - i;
  if (rest > 0) {
    std::uint32_t n = static_cast<std::uint8_t>(data[i]) << 16;
    if (rest == 2) n |= static_cast<std::uint8_t>(data[i + 1]) << 8;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(n >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

/// How a decoder reads its text.
struct Dialect {
  bool standard;  ///< '+' and '/' are 62 and 63
  bool url;       ///< '-' and '_' are 62 and 63
  enum class Padding : std::uint8_t {
    None,     ///< '=' is a bad byte
    Strict,   ///< in the last two places of the text, ending a quantum of four
    Anywhere  ///< may end the text (whitespace aside), any number of them
  } padding;
  bool skip_whitespace;
};

constexpr Dialect kStdPadded{true, false, Dialect::Padding::Strict, false};
constexpr Dialect kRawUrl{false, true, Dialect::Padding::None, false};
constexpr Dialect kLenient{true, true, Dialect::Padding::Anywhere, true};

int sextet(char c, const Dialect& d) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (d.standard && c == '+') return 62;
  if (d.standard && c == '/') return 63;
  if (d.url && c == '-') return 62;
  if (d.url && c == '_') return 63;
  return -1;
}

/// Decodes `text` into `out` (only checks it when `out` is null): the offset of the first
/// offending byte, or nullopt when it decodes.
std::optional<std::size_t> decode(std::string_view text, const Dialect& d, std::string* out) {
  if (out != nullptr) out->reserve(text.size() * 3 / 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  std::size_t sextets = 0;
  std::size_t padding = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (d.skip_whitespace && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) continue;
    if (c == '=' && d.padding != Dialect::Padding::None) {
      if (d.padding == Dialect::Padding::Strict && (i + 2 < text.size() || i % 4 < 2)) return i;
      ++padding;
      continue;
    }
    const int v = sextet(c, d);
    if (v < 0 || padding > 0) return i;
    ++sextets;
    if (out != nullptr) {
      buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out->push_back(static_cast<char>((buffer >> bits) & 0xFF));
      }
    }
  }
  if (d.padding == Dialect::Padding::Strict) {
    if (text.size() % 4 != 0) return text.size() - text.size() % 4;
  } else if (sextets % 4 == 1) {
    return text.size() - 1;  // a lone sextet cannot hold a byte
  }
  return std::nullopt;
}

std::optional<std::string> decoded(std::string_view text, const Dialect& d, std::size_t* bad_at) {
  std::string out;
  if (auto bad = decode(text, d, &out)) {
    if (bad_at != nullptr) *bad_at = *bad;
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::string base64_encode(std::string_view data) { return encode(data, kStd, true); }
std::string base64url_encode(std::string_view data) { return encode(data, kUrl, false); }

std::optional<std::string> base64_decode(std::string_view text, std::size_t* bad_at) {
  return decoded(text, kStdPadded, bad_at);
}

std::optional<std::size_t> base64_error_at(std::string_view text) { return decode(text, kStdPadded, nullptr); }

std::size_t base64_decoded_size(std::string_view valid_text) {
  std::size_t padding = 0;
  while (padding < valid_text.size() && valid_text[valid_text.size() - 1 - padding] == '=') ++padding;
  return valid_text.size() / 4 * 3 - padding;
}

std::optional<std::string> base64url_decode(std::string_view text, std::size_t* bad_at) {
  return decoded(text, kRawUrl, bad_at);
}

std::optional<std::string> base64_decode_lenient(std::string_view text) { return decoded(text, kLenient, nullptr); }

}  // namespace kueuepp::core

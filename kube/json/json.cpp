#include "kube/json/json.hpp"
#include "kube/json/dump_member.hpp"

#include <boost/json/detail/format.hpp>
#include <boost/json/detail/sse2.hpp>
#include <boost/json/parser.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kueuepp::json {

namespace {

/// Whether the text has a number with an exponent (a digit, then 'e' or 'E'): the only
/// way to write a number whose double is not finite.
bool has_exponent(std::string_view text) {
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == 'e' || c == 'E') && text[i - 1] >= '0' && text[i - 1] <= '9') return true;
  }
  return false;
}

/// Whether any number in `v` is a double that is not finite (Boost.JSON 1.81 reads
/// 1e400 as infinity and 0e400 as NaN, which no JSON can write back).
bool has_non_finite(const value& v) {
  switch (v.kind()) {
    case boost::json::kind::double_: return !std::isfinite(v.get_double());
    case boost::json::kind::array:
      return std::any_of(v.get_array().begin(), v.get_array().end(), [](const value& e) { return has_non_finite(e); });
    case boost::json::kind::object:
      return std::any_of(v.get_object().begin(), v.get_object().end(),
                         [](const auto& kv) { return has_non_finite(kv.value()); });
    default: return false;
  }
}

}  // namespace

Expected<value> parse(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options opts;
  opts.max_depth = 256;
  value v = boost::json::parse(text, ec, {}, opts);
  if (ec) {
    return fail("invalid JSON: " + ec.message());
  }
  // Like Go's encoding/json, a number a float64 cannot hold is an error, not a value.
  if (has_exponent(text) && has_non_finite(v)) return fail("invalid JSON: a number is out of range");
  return v;
}

namespace {

/// What a string byte is written as: 0 itself, else the letter after its backslash
/// ('u': \u00xx).
constexpr auto kEscape = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = 'u';
  t[static_cast<unsigned char>('\b')] = 'b';
  t[static_cast<unsigned char>('\t')] = 't';
  t[static_cast<unsigned char>('\n')] = 'n';
  t[static_cast<unsigned char>('\f')] = 'f';
  t[static_cast<unsigned char>('\r')] = 'r';
  t[static_cast<unsigned char>('"')] = '"';
  t[static_cast<unsigned char>('\\')] = '\\';
  return t;
}();

/// How many bytes `s[0..n)` take escaped (without the quotes).
std::size_t escaped_size(const char* s, std::size_t n) {
  std::size_t size = n;
  for (std::size_t i = 0; i < n; ++i) {
    const char e = kEscape[static_cast<unsigned char>(s[i])];
    size += e == 0 ? 0 : (e == 'u' ? 5 : 1);
  }
  return size;
}

/// Writes `s[0..n)` escaped at `p` (escaped_size bytes, no quotes); returns the end.
char* write_escaped(char* p, const char* s, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < n; ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    const char e = kEscape[ch];
    if (e == 0) {
      *p++ = static_cast<char>(ch);
    } else if (e != 'u') {
      *p++ = '\\';
      *p++ = e;
    } else {
      std::memcpy(p, "\\u00", 4);
      p[4] = kHex[ch >> 4];
      p[5] = kHex[ch & 15];
      p += 6;
    }
  }
  return p;
}

// Compact serialization, byte for byte what boost::json::serialize writes (strings:
// `"` and `\\` escaped, control characters as \b \t \n \f \r or \u00xx with
// lowercase hex, everything else, invalid UTF-8 included, as is; numbers through
// Boost.JSON's own formatters), without its resumable state machine: a plain recursive
// walk into one reused buffer: a sixth fewer instructions on the objects the API server
// stores, whose many short strings leave little to gain. Depth is bounded by what made
// the value (the parser allows 256 levels).
class Writer {
 public:
  Writer() : buf_(scratch()) {}

  std::string finish() const { return std::string(buf_.data(), len_); }
  std::size_t size() const { return len_; }

  /// An object member by member, the value of `inner` in the object at member `outer`
  /// written as `text` when given, its place noted in `at`.
  void write_noting(const object& o, std::string_view outer, std::string_view inner,
                    std::optional<std::string_view> text, TextSpan& at) {
    write_members(o, [&](const boost::json::key_value_pair& kv) {
      if (kv.key() != outer || !kv.value().is_object()) return write(kv.value());
      write_members(kv.value().get_object(), [&](const boost::json::key_value_pair& in) {
        if (in.key() != inner) return write(in.value());
        at.begin = len_;
        if (text) {
          append(text->data(), text->size());
        } else {
          write(in.value());
        }
        at.end = len_;
      });
    });
  }

  void write(const value& v) {
    switch (v.kind()) {
      case boost::json::kind::null: return append("null", 4);
      case boost::json::kind::bool_: return v.get_bool() ? append("true", 4) : append("false", 5);
      case boost::json::kind::int64: {
        char* p = room(boost::json::detail::max_number_chars);
        len_ += boost::json::detail::format_int64(p, v.get_int64());
        return;
      }
      case boost::json::kind::uint64: {
        char* p = room(boost::json::detail::max_number_chars);
        len_ += boost::json::detail::format_uint64(p, v.get_uint64());
        return;
      }
      case boost::json::kind::double_: {
        char* p = room(boost::json::detail::max_number_chars);
        len_ += boost::json::detail::format_double(p, v.get_double());
        return;
      }
      case boost::json::kind::string: {
        const string& s = v.get_string();
        return write_string(s.data(), s.size());
      }
      case boost::json::kind::array: return write(v.get_array());
      case boost::json::kind::object: return write(v.get_object());
    }
  }

  void write(const object& o) {
    write_members(o, [this](const boost::json::key_value_pair& kv) { write(kv.value()); });
  }

  /// `{"key":<value>,...}` with each value written by `write_value(member)`.
  template <class WriteValue>
  void write_members(const object& o, WriteValue&& write_value) {
    put('{');
    bool first = true;
    for (const auto& kv : o) {
      if (!first) put(',');
      first = false;
      write_string(kv.key().data(), kv.key().size());
      put(':');
      write_value(kv);
    }
    put('}');
  }

  void write(const array& a) {
    put('[');
    bool first = true;
    for (const auto& e : a) {
      if (!first) put(',');
      first = false;
      write(e);
    }
    put(']');
  }

 private:
  // 0: copied as is; 'u': \u00xx; else the character after the backslash.

  // One buffer per thread, grown as needed and never zero-filled again: dump copies out
  // of it once. (dump never runs inside another dump.)
  static std::string& scratch() {
    thread_local std::string buf(4096, '\0');
    return buf;
  }

  char* room(std::size_t n) {
    if (len_ + n > buf_.size()) [[unlikely]] grow(n);
    return buf_.data() + len_;
  }
  [[gnu::noinline]] void grow(std::size_t n) { buf_.resize(std::max(buf_.size() * 2, len_ + n)); }
  void put(char c) {
    *room(1) = c;
    ++len_;
  }
  void append(const char* s, std::size_t n) {
    std::memcpy(room(n), s, n);
    len_ += n;
  }

  // Inlined where called (the callers are few and hot); the escaping path is not.
  [[gnu::always_inline]] void write_string(const char* s, std::size_t n) {
    if (write_plain_string(s, n)) return;
    write_string_escaping(s, n);
  }

  // Most strings the server writes (keys, names, quantities) are short and need no
  // escape. They are copied first and checked where they landed, a whole 16-byte block
  // at a time: the buffer keeps kSlack bytes beyond what is written, always initialized
  // (it is grown by resize), so a block may run past the string's end there, where it
  // could not past the end of the source. False (nothing written) when the string needs
  // escapes or is too long for one block.
  static constexpr std::size_t kSlack = 16;
  [[gnu::always_inline]] bool write_plain_string(const char* s, std::size_t n) {
#if defined(__SSE2__)
    if (n > kSlack) return false;
    char* p = room(n + 2 + kSlack);
    copy_short(p + 1, s, n);
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
    // Bytes below 0x20 (unsigned): min(byte, 0x1f) == byte.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(block, _mm_set1_epi8(0x1f)), block);
    const __m128i quote = _mm_cmpeq_epi8(block, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'));
    const auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))));
    if ((hits & ((1u << n) - 1u)) != 0) return false;
    p[0] = '"';
    p[n + 1] = '"';
    len_ += n + 2;
    return true;
#else
    (void)s;
    (void)n;
    return false;
#endif
  }

  // memcpy of at most 16 bytes without a call: two overlapping loads of the largest
  // power of two that fits.
  static void copy_short(char* to, const char* from, std::size_t n) {
    auto copy = [&](auto word) {
      constexpr std::size_t w = sizeof(word);
      std::memcpy(&word, from, w);
      std::memcpy(to, &word, w);
      std::memcpy(&word, from + n - w, w);
      std::memcpy(to + n - w, &word, w);
    };
    if (n >= 8) return copy(std::uint64_t{});
    if (n >= 4) return copy(std::uint32_t{});
    if (n >= 2) return copy(std::uint16_t{});
    if (n == 1) *to = *from;
  }

  [[gnu::noinline]] void write_string_escaping(const char* s, std::size_t n) {
    // Whole 16-byte blocks with SSE2 (Boost.JSON's own scan), the rest byte by byte.
    std::size_t plain = boost::json::detail::count_unescaped(s, n);
    while (plain < n && kEscape[static_cast<unsigned char>(s[plain])] == 0) ++plain;
    if (plain == n) {
      char* p = room(n + 2);
      p[0] = '"';
      std::memcpy(p + 1, s, n);
      p[n + 1] = '"';
      len_ += n + 2;
      return;
    }
    std::size_t extra = 0;
    for (std::size_t i = plain; i < n; ++i) {
      const char e = kEscape[static_cast<unsigned char>(s[i])];
      extra += e == 0 ? 0 : (e == 'u' ? 5 : 1);
    }
    char* p = room(n + extra + 2);
    *p++ = '"';
    std::memcpy(p, s, plain);
    p += plain;
    for (std::size_t i = plain; i < n; ++i) {
      const auto ch = static_cast<unsigned char>(s[i]);
      const char e = kEscape[ch];
      if (e == 0) {
        *p++ = static_cast<char>(ch);
      } else if (e != 'u') {
        *p++ = '\\';
        *p++ = e;
      } else {
        static constexpr char hex[] = "0123456789abcdef";
        std::memcpy(p, "\\u00", 4);
        p[4] = hex[ch >> 4];
        p[5] = hex[ch & 15];
        p += 6;
      }
    }
    *p++ = '"';
    len_ += n + extra + 2;
  }

  std::string& buf_;
  std::size_t len_ = 0;
};

}  // namespace

void append_quoted(std::string& out, std::string_view text) {
  const std::size_t at = out.size();
  const std::size_t size = escaped_size(text.data(), text.size());
  out.resize(at + size + 2);
  char* p = out.data() + at;
  *p++ = '"';
  p = write_escaped(p, text.data(), text.size());
  *p = '"';
}

std::string dump(const value& v) {
  Writer w;
  w.write(v);
  return w.finish();
}
std::string dump(const object& o) {
  Writer w;
  w.write(o);
  return w.finish();
}
std::string dump(const array& a) {
  Writer w;
  w.write(a);
  return w.finish();
}

std::string dump_noting_member(const object& root, std::string_view outer, std::string_view inner,
                               std::optional<std::string_view> text, TextSpan* at) {
  Writer w;
  TextSpan found;
  w.write_noting(root, outer, inner, text, found);
  if (at != nullptr) *at = found;
  return w.finish();
}

bool equal(const object& a, const object& b) {
  if (a.size() != b.size()) return false;
  auto at = b.begin();
  for (const auto& member : a) {
    const value* other = nullptr;
    if (at->key() == member.key()) {
      other = &at->value();
    } else {
      auto it = b.find(member.key());
      if (it == b.end()) return false;
      other = &it->value();
    }
    ++at;
    if (!equal(member.value(), *other)) return false;
  }
  return true;
}

bool equal(const array& a, const array& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!equal(a[i], b[i])) return false;
  }
  return true;
}

bool equal(const value& a, const value& b) {
  switch (a.kind()) {
    case boost::json::kind::object: return b.is_object() && equal(a.get_object(), b.get_object());
    case boost::json::kind::array: return b.is_array() && equal(a.get_array(), b.get_array());
    case boost::json::kind::string: {
      // Most leaves of a stored object are strings: compared here rather than through
      // Boost.JSON's out-of-line operator== (which compares the bytes the same way).
      if (!b.is_string()) return false;
      const string& x = a.get_string();
      const string& y = b.get_string();
      return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size()) == 0;
    }
    default: return a == b;  // numbers across int64/uint64, bool, null: Boost.JSON's rules
  }
}

const value* find(const object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->value();
}

value* find(object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->value();
}

std::string_view get_string(const object& o, std::string_view key, std::string_view fallback) {
  const value* f = find(o, key);
  if (f == nullptr || !f->is_string()) return fallback;
  const string& s = f->get_string();
  return {s.data(), s.size()};
}

const value* find(const value& v, std::string_view key) {
  const object* o = v.if_object();
  if (o == nullptr) return nullptr;
  auto it = o->find(key);
  return it == o->end() ? nullptr : &it->value();
}

value* find(value& v, std::string_view key) {
  object* o = v.if_object();
  if (o == nullptr) return nullptr;
  auto it = o->find(key);
  return it == o->end() ? nullptr : &it->value();
}

const value* find_path(const value& v, std::initializer_list<std::string_view> keys) {
  const value* cur = &v;
  for (std::string_view k : keys) {
    cur = find(*cur, k);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string_view get_string(const value& v, std::string_view key, std::string_view fallback) {
  const value* f = find(v, key);
  if (f == nullptr || !f->is_string()) return fallback;
  const string& s = f->get_string();
  return {s.data(), s.size()};
}

}  // namespace kueuepp::json

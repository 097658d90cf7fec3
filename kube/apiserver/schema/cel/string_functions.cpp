// String functions: the CEL standard ones (contains, startsWith, endsWith, matches) and
// Kubernetes' strings library (lowerAscii, upperAscii, trim, split, replace, indexOf,
// lastIndexOf, substring, charAt, join). Indices count code points, as in cel-go.

#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"
#include "kube/apiserver/schema/regex.hpp"
#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

bool all_strings(std::span<const Value> args) {
  for (const Value& v : args) {
    if (!v.is(Kind::String)) return false;
  }
  return true;
}

Value index_error(std::int64_t i) { return Value::error("index out of range: " + std::to_string(i)); }

// Go's unicode.IsSpace, which strings.TrimSpace uses.
bool is_space(char32_t r) {
  switch (r) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

Value trim(std::string_view s) {
  std::size_t begin = 0;
  while (begin < s.size()) {
    auto [r, w] = utf8::decode(s.substr(begin));
    if (!is_space(r)) break;
    begin += w;
  }
  std::size_t end = begin;
  for (std::size_t i = begin; i < s.size();) {
    auto [r, w] = utf8::decode(s.substr(i));
    i += w;
    if (!is_space(r)) end = i;
  }
  return Value::string(std::string(s.substr(begin, end - begin)));
}

Value ascii_case(std::string_view s, bool upper) {
  std::string out(s);
  for (char& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return Value::string(std::move(out));
}

// Go's strings.SplitN: n < 0 all pieces, n == 0 none, an empty separator splits runes.
Value split(std::string_view s, std::string_view sep, std::int64_t n) {
  std::vector<Value> parts;
  if (n == 0) return Value::list({});
  if (sep.empty()) {
    for (std::size_t i = 0; i < s.size();) {
      std::size_t w = utf8::decode(s.substr(i)).second;
      if (n > 0 && static_cast<std::int64_t>(parts.size()) == n - 1) {
        parts.push_back(Value::string(std::string(s.substr(i))));
        return Value::list(std::move(parts));
      }
      parts.push_back(Value::string(std::string(s.substr(i, w))));
      i += w;
    }
    return Value::list(std::move(parts));
  }
  std::size_t start = 0;
  while (n < 0 || static_cast<std::int64_t>(parts.size()) < n - 1) {
    std::size_t at = s.find(sep, start);
    if (at == std::string_view::npos) break;
    parts.push_back(Value::string(std::string(s.substr(start, at - start))));
    start = at + sep.size();
  }
  parts.push_back(Value::string(std::string(s.substr(start))));
  return Value::list(std::move(parts));
}

// Go's strings.Replace: n < 0 replaces all; an empty `from` inserts between runes.
Value replace(std::string_view s, std::string_view from, std::string_view to, std::int64_t n) {
  std::string out;
  std::int64_t done = 0;
  if (from.empty()) {
    std::size_t i = 0;
    while (n < 0 || done < n) {
      out += to;
      ++done;
      if (i >= s.size()) break;
      std::size_t w = utf8::decode(s.substr(i)).second;
      out += s.substr(i, w);
      i += w;
    }
    out += s.substr(std::min(i, s.size()));
    return Value::string(std::move(out));
  }
  std::size_t start = 0;
  while (n < 0 || done < n) {
    std::size_t at = s.find(from, start);
    if (at == std::string_view::npos) break;
    out += s.substr(start, at - start);
    out += to;
    start = at + from.size();
    ++done;
  }
  out += s.substr(start);
  return Value::string(std::move(out));
}

// Code point index of `sub` in `s` at or after code point `offset`; -1 if absent.
Value index_of(std::string_view s, std::string_view sub, std::int64_t offset, bool last) {
  std::int64_t len = static_cast<std::int64_t>(utf8::count(s));
  if (offset < 0 || offset > len) return index_error(offset);
  std::size_t byte_offset = utf8::offset_of(s, static_cast<std::size_t>(offset));
  std::size_t at;
  if (last) {
    // lastIndexOf(sub, offset): the last occurrence starting at or before `offset`.
    at = s.substr(0, std::min(s.size(), byte_offset + sub.size())).rfind(sub);
  } else {
    at = s.find(sub, byte_offset);
  }
  if (at == std::string_view::npos) return Value::integer(-1);
  return Value::integer(static_cast<std::int64_t>(utf8::count(s.substr(0, at))));
}

Value substring(std::string_view s, std::int64_t start, std::int64_t end) {
  std::int64_t len = static_cast<std::int64_t>(utf8::count(s));
  if (start < 0 || start > len) return index_error(start);
  if (end < 0 || end > len) return index_error(end);
  if (start > end) {
    return Value::error("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(end));
  }
  std::size_t b = utf8::offset_of(s, static_cast<std::size_t>(start));
  std::size_t e = utf8::offset_of(s, static_cast<std::size_t>(end));
  return Value::string(std::string(s.substr(b, e - b)));
}

Value join(const Value& list, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Value e = list.element(i);
    if (!e.is(Kind::String)) return no_such_overload();
    if (i > 0) out += sep;
    out += e.text();
  }
  return Value::string(std::move(out));
}

}  // namespace

Value regex_matches(const Value& text, const Value& pattern) {
  if (!text.is(Kind::String) || !pattern.is(Kind::String)) return no_such_overload();
  auto re = Regex::compile(pattern.text(), /*build_dfa=*/false);
  if (!re) return Value::error(re.error().message);
  return Value::boolean(re->search(text.text()));
}

Value call_string_function(Builtin fn, std::span<const Value> args) {
  if (fn == Builtin::Join) {
    if (!args[0].is(Kind::List) || (args.size() == 2 && !args[1].is(Kind::String))) return no_such_overload();
    return join(args[0], args.size() == 2 ? args[1].text() : std::string_view{});
  }
  auto ints_from = [&](std::size_t first) {
    for (std::size_t i = first; i < args.size(); ++i) {
      if (!args[i].is(Kind::Int)) return false;
    }
    return true;
  };
  switch (fn) {
    case Builtin::Matches:
      return regex_matches(args[0], args[1]);
    case Builtin::Contains:
    case Builtin::StartsWith:
    case Builtin::EndsWith: {
      if (!all_strings(args)) return no_such_overload();
      std::string_view s = args[0].text(), x = args[1].text();
      if (fn == Builtin::Contains) return Value::boolean(s.find(x) != std::string_view::npos);
      if (fn == Builtin::StartsWith) return Value::boolean(s.substr(0, x.size()) == x);
      return Value::boolean(s.size() >= x.size() && s.substr(s.size() - x.size()) == x);
    }
    case Builtin::LowerAscii:
    case Builtin::UpperAscii:
      if (!all_strings(args)) return no_such_overload();
      return ascii_case(args[0].text(), fn == Builtin::UpperAscii);
    case Builtin::Trim:
      if (!all_strings(args)) return no_such_overload();
      return trim(args[0].text());
    case Builtin::Split:
      if (!all_strings(args.first(2)) || !ints_from(2)) return no_such_overload();
      return split(args[0].text(), args[1].text(), args.size() == 3 ? args[2].as_int() : -1);
    case Builtin::Replace:
      if (!all_strings(args.first(3)) || !ints_from(3)) return no_such_overload();
      return replace(args[0].text(), args[1].text(), args[2].text(), args.size() == 4 ? args[3].as_int() : -1);
    case Builtin::IndexOf:
    case Builtin::LastIndexOf: {
      if (!all_strings(args.first(2)) || !ints_from(2)) return no_such_overload();
      bool last = fn == Builtin::LastIndexOf;
      std::int64_t len = static_cast<std::int64_t>(utf8::count(args[0].text()));
      std::int64_t offset = args.size() == 3 ? args[2].as_int() : (last ? len : 0);
      return index_of(args[0].text(), args[1].text(), offset, last);
    }
    case Builtin::Substring:
      if (!args[0].is(Kind::String) || !ints_from(1)) return no_such_overload();
      return substring(args[0].text(), args[1].as_int(),
                       args.size() == 3 ? args[2].as_int()
                                        : static_cast<std::int64_t>(utf8::count(args[0].text())));
    case Builtin::CharAt: {
      if (!args[0].is(Kind::String) || !ints_from(1)) return no_such_overload();
      std::int64_t i = args[1].as_int();
      std::int64_t len = static_cast<std::int64_t>(utf8::count(args[0].text()));
      if (i < 0 || i > len) return index_error(i);
      if (i == len) return Value::borrowed_string("");
      return substring(args[0].text(), i, i + 1);
    }
    default:
      return no_such_overload();
  }
}

}  // namespace kueuepp::kube::schema::cel

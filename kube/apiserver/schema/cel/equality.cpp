#include "kube/apiserver/schema/cel/equality.hpp"

#include <cmath>

#include "kube/apiserver/schema/cel/errors.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

// Nesting bound for structural equality: JSON documents are at most a few hundred levels
// deep; anything deeper is treated as unequal rather than risking the stack.
constexpr int kMaxDepth = 512;

bool is_number(const Value& v) { return v.is(Kind::Int) || v.is(Kind::Uint) || v.is(Kind::Double); }

// -1/0/1, or 2 when unordered (NaN).
int numeric_compare(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.is(Kind::Int) && b.is(Kind::Int)) return cmp(a.as_int(), b.as_int());
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) return cmp(a.as_uint(), b.as_uint());
  if (a.is(Kind::Int) && b.is(Kind::Uint)) {
    return a.as_int() < 0 ? -1 : cmp(static_cast<std::uint64_t>(a.as_int()), b.as_uint());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Int)) {
    return b.as_int() < 0 ? 1 : cmp(a.as_uint(), static_cast<std::uint64_t>(b.as_int()));
  }
  auto as_double = [](const Value& v) {
    if (v.is(Kind::Int)) return static_cast<double>(v.as_int());
    if (v.is(Kind::Uint)) return static_cast<double>(v.as_uint());
    return v.as_double();
  };
  double x = as_double(a), y = as_double(b);
  if (std::isnan(x) || std::isnan(y)) return 2;
  return cmp(x, y);
}

bool eq(const Value& a, const Value& b, int depth);

bool contains(const Value& list, const Value& x, int depth) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (eq(list.element(i), x, depth)) return true;
  }
  return false;
}

// Whether two elements of a list-type=map have the same key fields (absent == absent).
bool same_keys(const Value& x, const Value& y, std::span<const std::string> keys, int depth) {
  if (!x.is(Kind::Map) || !y.is(Kind::Map)) return false;
  for (const std::string& k : keys) {
    Value kx, ky;
    bool hx = x.select(k, k, kx);
    bool hy = y.select(k, k, ky);
    if (hx != hy || (hx && !eq(kx, ky, depth))) return false;
  }
  return true;
}

bool list_eq(const Value& a, const Value& b, int depth) {
  if (a.size() != b.size()) return false;
  const Value& typed = a.list_type() != Shape::ListType::Atomic ? a : b;
  switch (typed.list_type()) {
    case Shape::ListType::Set:
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!contains(b, a.element(i), depth)) return false;
      }
      return true;
    case Shape::ListType::Map: {
      auto keys = typed.list_map_keys();
      for (std::size_t i = 0; i < a.size(); ++i) {
        Value x = a.element(i);
        bool matched = false;
        for (std::size_t j = 0; j < b.size() && !matched; ++j) {
          Value y = b.element(j);
          if (same_keys(x, y, keys, depth)) {
            if (!eq(x, y, depth)) return false;
            matched = true;
          }
        }
        if (!matched) return false;
      }
      return true;
    }
    case Shape::ListType::Atomic:
      break;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!eq(a.element(i), b.element(i), depth)) return false;
  }
  return true;
}

bool map_eq(const Value& a, const Value& b, int depth) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    Value other;
    if (!b.find(a.key_at(i), other) || !eq(a.value_at(i), other, depth)) return false;
  }
  return true;
}

bool eq(const Value& a, const Value& b, int depth) {
  if (depth > kMaxDepth) return false;
  if (is_number(a) && is_number(b)) return numeric_compare(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Kind::String:
    case Kind::Bytes:
    case Kind::Type:
      return a.text() == b.text();
    case Kind::List:
      return list_eq(a, b, depth + 1);
    case Kind::Map:
      return map_eq(a, b, depth + 1);
    case Kind::Optional:
      return a.has_value() == b.has_value() && (!a.has_value() || eq(a.optional_value(), b.optional_value(), depth + 1));
    default:
      return false;
  }
}

}  // namespace

Value equals(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  return Value::boolean(eq(a, b, 0));
}

Value compare(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  if (is_number(a) && is_number(b)) return Value::integer(numeric_compare(a, b));
  if (a.kind() != b.kind()) return no_such_overload();
  switch (a.kind()) {
    case Kind::String:
    case Kind::Bytes: {
      int c = a.text().compare(b.text());
      return Value::integer(c < 0 ? -1 : (c > 0 ? 1 : 0));
    }
    case Kind::Bool:
      return Value::integer(a.as_bool() == b.as_bool() ? 0 : (a.as_bool() ? 1 : -1));
    default:
      return no_such_overload();
  }
}

}  // namespace kueuepp::kube::schema::cel

// Arithmetic, comparison, `in` and indexing, with cel-go's overflow and range errors.

#include <cmath>

#include "kube/apiserver/schema/cel/equality.hpp"
#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/interpreter.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

std::string key_text(const Value& k) {
  switch (k.kind()) {
    case Kind::String: return std::string(k.text());
    case Kind::Int: return std::to_string(k.as_int());
    case Kind::Uint: return std::to_string(k.as_uint());
    case Kind::Bool: return k.as_bool() ? "true" : "false";
    default: return std::string(kind_name(k.kind()));
  }
}

Value add(const Value& a, const Value& b, EvalState& state) {
  if (a.kind() != b.kind()) return no_such_overload();
  switch (a.kind()) {
    case Kind::Int: {
      std::int64_t r;
      if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) return integer_overflow();
      return Value::integer(r);
    }
    case Kind::Uint: {
      std::uint64_t r;
      if (__builtin_add_overflow(a.as_uint(), b.as_uint(), &r)) return unsigned_overflow();
      return Value::uinteger(r);
    }
    case Kind::Double:
      return Value::real(a.as_double() + b.as_double());
    case Kind::String:
    case Kind::Bytes: {
      state.cost += (a.text().size() + b.text().size()) / 10;
      std::string s;
      s.reserve(a.text().size() + b.text().size());
      s.append(a.text()).append(b.text());
      return a.is(Kind::String) ? Value::string(std::move(s)) : Value::bytes(std::move(s));
    }
    case Kind::List: {
      state.cost += a.size() + b.size();
      if (state.cost > state.limit) return cost_limit_exceeded();
      std::vector<Value> items;
      items.reserve(a.size() + b.size());
      for (std::size_t i = 0; i < a.size(); ++i) items.push_back(a.element(i));
      for (std::size_t i = 0; i < b.size(); ++i) items.push_back(b.element(i));
      return Value::list(std::move(items));
    }
    default:
      return no_such_overload();
  }
}

Value arithmetic(BinaryOp op, const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return no_such_overload();
  if (a.is(Kind::Int)) {
    std::int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return integer_overflow();
        return Value::integer(r);
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return integer_overflow();
        return Value::integer(r);
      case BinaryOp::Div:
        if (y == 0) return division_by_zero();
        if (x == INT64_MIN && y == -1) return integer_overflow();
        return Value::integer(x / y);
      case BinaryOp::Mod:
        if (y == 0) return modulus_by_zero();
        if (x == INT64_MIN && y == -1) return integer_overflow();
        return Value::integer(x % y);
      default:
        return no_such_overload();
    }
  }
  if (a.is(Kind::Uint)) {
    std::uint64_t x = a.as_uint(), y = b.as_uint(), r = 0;
    switch (op) {
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return unsigned_overflow();
        return Value::uinteger(r);
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return unsigned_overflow();
        return Value::uinteger(r);
      case BinaryOp::Div:
        if (y == 0) return division_by_zero();
        return Value::uinteger(x / y);
      case BinaryOp::Mod:
        if (y == 0) return modulus_by_zero();
        return Value::uinteger(x % y);
      default:
        return no_such_overload();
    }
  }
  if (a.is(Kind::Double)) {
    double x = a.as_double(), y = b.as_double();
    switch (op) {
      case BinaryOp::Sub: return Value::real(x - y);
      case BinaryOp::Mul: return Value::real(x * y);
      case BinaryOp::Div: return Value::real(x / y);
      default: return no_such_overload();
    }
  }
  return no_such_overload();
}

Value relational(BinaryOp op, const Value& a, const Value& b) {
  Value c = compare(a, b);
  if (c.is_error()) return c;
  std::int64_t r = c.as_int();
  if (r == 2) return Value::boolean(false);  // NaN is unordered
  switch (op) {
    case BinaryOp::Lt: return Value::boolean(r < 0);
    case BinaryOp::Le: return Value::boolean(r <= 0);
    case BinaryOp::Gt: return Value::boolean(r > 0);
    default: return Value::boolean(r >= 0);
  }
}

Value membership(const Value& x, const Value& container, EvalState& state) {
  if (container.is(Kind::List)) {
    state.cost += container.size();
    for (std::size_t i = 0; i < container.size(); ++i) {
      Value eq = equals(container.element(i), x);
      if (eq.is(Kind::Bool) && eq.as_bool()) return eq;
    }
    return Value::boolean(false);
  }
  if (container.is(Kind::Map)) {
    Value ignored;
    return Value::boolean(container.find(x, ignored));
  }
  return no_such_overload();
}

}  // namespace

Value apply_binary(BinaryOp op, const Value& a, const Value& b, EvalState& state) {
  switch (op) {
    case BinaryOp::Add:
      return add(a, b, state);
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return arithmetic(op, a, b);
    case BinaryOp::Eq:
    case BinaryOp::Ne: {
      if (a.is(Kind::List) || a.is(Kind::Map)) state.cost += a.size();
      // set and map lists compare element against element: quadratic work.
      if (a.is(Kind::List) && b.is(Kind::List) &&
          (a.list_type() != Shape::ListType::Atomic || b.list_type() != Shape::ListType::Atomic)) {
        state.cost += (a.size() * b.size()) / 64;
        if (state.cost > state.limit) return cost_limit_exceeded();
      }
      Value eq = equals(a, b);
      if (eq.is_error() || op == BinaryOp::Eq) return eq;
      return Value::boolean(!eq.as_bool());
    }
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return relational(op, a, b);
    case BinaryOp::In:
      return membership(a, b, state);
  }
  return no_such_overload();
}

Value index_value(const Value& a, const Value& k) {
  if (a.is(Kind::List)) {
    std::int64_t i = 0;
    if (k.is(Kind::Int)) {
      i = k.as_int();
    } else if (k.is(Kind::Uint)) {
      i = k.as_uint() > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(k.as_uint());
    } else if (k.is(Kind::Double) && std::trunc(k.as_double()) == k.as_double() &&
               std::abs(k.as_double()) < 9.2e18) {
      i = static_cast<std::int64_t>(k.as_double());
    } else {
      return Value::error("unsupported index type '" + std::string(kind_name(k.kind())) + "' in list");
    }
    if (i < 0 || static_cast<std::uint64_t>(i) >= a.size()) return index_out_of_range(i, a.size());
    return a.element(static_cast<std::size_t>(i));
  }
  if (a.is(Kind::Map)) {
    Value out;
    if (a.find(k, out)) return out;
    return no_such_key(key_text(k));
  }
  return no_such_overload();
}

}  // namespace kueuepp::kube::schema::cel

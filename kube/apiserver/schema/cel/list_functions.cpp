// Kubernetes' CEL lists library: isSorted, sum, min, max, indexOf, lastIndexOf.

#include "kube/apiserver/schema/cel/equality.hpp"
#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

Value is_sorted(const Value& list) {
  for (std::size_t i = 1; i < list.size(); ++i) {
    Value c = compare(list.element(i - 1), list.element(i));
    if (c.is_error()) return c;
    if (c.as_int() == 1) return Value::boolean(false);
  }
  return Value::boolean(true);
}

Value sum(const Value& list) {
  if (list.size() == 0) return Value::integer(0);
  Value first = list.element(0);
  if (first.is(Kind::Int)) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      Value e = list.element(i);
      if (!e.is(Kind::Int)) return no_such_overload();
      if (__builtin_add_overflow(total, e.as_int(), &total)) return integer_overflow();
    }
    return Value::integer(total);
  }
  if (first.is(Kind::Uint)) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      Value e = list.element(i);
      if (!e.is(Kind::Uint)) return no_such_overload();
      if (__builtin_add_overflow(total, e.as_uint(), &total)) return unsigned_overflow();
    }
    return Value::uinteger(total);
  }
  if (first.is(Kind::Double)) {
    double total = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      Value e = list.element(i);
      if (!e.is(Kind::Double)) return no_such_overload();
      total += e.as_double();
    }
    return Value::real(total);
  }
  return no_such_overload();
}

Value extreme(const Value& list, bool want_max) {
  if (list.size() == 0) {
    return Value::static_error(want_max ? "max(list) argument must not be empty" : "min(list) argument must not be empty");
  }
  Value best = list.element(0);
  for (std::size_t i = 1; i < list.size(); ++i) {
    Value e = list.element(i);
    Value c = compare(e, best);
    if (c.is_error()) return c;
    if (c.as_int() == (want_max ? 1 : -1)) best = e;
  }
  return best;
}

Value index_in_list(const Value& list, const Value& x, bool last) {
  std::int64_t found = -1;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Value eq = equals(list.element(i), x);
    if (eq.is_error()) return eq;
    if (eq.as_bool()) {
      found = static_cast<std::int64_t>(i);
      if (!last) break;
    }
  }
  return Value::integer(found);
}

}  // namespace

Value call_list_function(Builtin fn, std::span<const Value> args) {
  if (!args[0].is(Kind::List)) return no_such_overload();
  switch (fn) {
    case Builtin::IsSorted:
      return is_sorted(args[0]);
    case Builtin::Sum:
      return sum(args[0]);
    case Builtin::Min:
      return extreme(args[0], false);
    case Builtin::Max:
      return extreme(args[0], true);
    case Builtin::IndexOf:
    case Builtin::LastIndexOf:
      if (args.size() != 2) return no_such_overload();
      return index_in_list(args[0], args[1], fn == Builtin::LastIndexOf);
    default:
      return no_such_overload();
  }
}

}  // namespace kueuepp::kube::schema::cel

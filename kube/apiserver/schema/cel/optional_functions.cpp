// CEL optional values: optional.of/none/ofNonZeroValue and hasValue, value, orValue, or.
// They matter for `optionalOldSelf: true` rules, where oldSelf is an optional.

#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

bool is_zero(const Value& v) {
  switch (v.kind()) {
    case Kind::Null: return true;
    case Kind::Bool: return !v.as_bool();
    case Kind::Int: return v.as_int() == 0;
    case Kind::Uint: return v.as_uint() == 0;
    case Kind::Double: return v.as_double() == 0;
    case Kind::String:
    case Kind::Bytes: return v.text().empty();
    case Kind::List:
    case Kind::Map: return v.size() == 0;
    default: return false;
  }
}

}  // namespace

Value call_optional_function(Builtin fn, std::span<const Value> args) {
  switch (fn) {
    case Builtin::OptionalOf:
      return Value::optional_of(args[0]);
    case Builtin::OptionalNone:
      return Value::optional_none();
    case Builtin::OptionalOfNonZeroValue:
      return is_zero(args[0]) ? Value::optional_none() : Value::optional_of(args[0]);
    default:
      break;
  }
  if (!args[0].is(Kind::Optional)) return no_such_overload();
  const Value& opt = args[0];
  switch (fn) {
    case Builtin::HasValue:
      return Value::boolean(opt.has_value());
    case Builtin::OptionalGet:
      if (!opt.has_value()) return Value::static_error("optional.none() dereference");
      return opt.optional_value();
    case Builtin::OrValue:
      return opt.has_value() ? opt.optional_value() : args[1];
    case Builtin::Or:
      if (!args[1].is(Kind::Optional)) return no_such_overload();
      return opt.has_value() ? opt : args[1];
    default:
      return no_such_overload();
  }
}

}  // namespace kueuepp::kube::schema::cel

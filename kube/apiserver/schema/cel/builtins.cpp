#include "kube/apiserver/schema/cel/builtins.hpp"

#include <array>

#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

struct Signature {
  std::string_view name;
  bool method;
  std::size_t min_arity;
  std::size_t max_arity;
  Builtin fn;
};

constexpr std::array<Signature, 36> kSignatures = {{
    {"size", false, 1, 1, Builtin::Size},
    {"size", true, 0, 0, Builtin::Size},
    {"int", false, 1, 1, Builtin::Int},
    {"uint", false, 1, 1, Builtin::Uint},
    {"double", false, 1, 1, Builtin::Double},
    {"string", false, 1, 1, Builtin::String},
    {"bytes", false, 1, 1, Builtin::Bytes},
    {"bool", false, 1, 1, Builtin::Bool},
    {"type", false, 1, 1, Builtin::Type},
    {"dyn", false, 1, 1, Builtin::Dyn},
    {"matches", false, 2, 2, Builtin::Matches},
    {"matches", true, 1, 1, Builtin::Matches},
    {"contains", true, 1, 1, Builtin::Contains},
    {"startsWith", true, 1, 1, Builtin::StartsWith},
    {"endsWith", true, 1, 1, Builtin::EndsWith},
    {"lowerAscii", true, 0, 0, Builtin::LowerAscii},
    {"upperAscii", true, 0, 0, Builtin::UpperAscii},
    {"trim", true, 0, 0, Builtin::Trim},
    {"split", true, 1, 2, Builtin::Split},
    {"replace", true, 2, 3, Builtin::Replace},
    // On strings and (Kubernetes' lists library) on lists, dispatched on the receiver.
    {"indexOf", true, 1, 2, Builtin::IndexOf},
    {"lastIndexOf", true, 1, 2, Builtin::LastIndexOf},
    {"substring", true, 1, 2, Builtin::Substring},
    {"charAt", true, 1, 1, Builtin::CharAt},
    {"join", true, 0, 1, Builtin::Join},
    {"isSorted", true, 0, 0, Builtin::IsSorted},
    {"sum", true, 0, 0, Builtin::Sum},
    {"min", true, 0, 0, Builtin::Min},
    {"max", true, 0, 0, Builtin::Max},
    {"optional.of", false, 1, 1, Builtin::OptionalOf},
    {"optional.none", false, 0, 0, Builtin::OptionalNone},
    {"optional.ofNonZeroValue", false, 1, 1, Builtin::OptionalOfNonZeroValue},
    {"hasValue", true, 0, 0, Builtin::HasValue},
    {"value", true, 0, 0, Builtin::OptionalGet},
    {"orValue", true, 1, 1, Builtin::OrValue},
    {"or", true, 1, 1, Builtin::Or},
}};

std::uint64_t text_cost(std::span<const Value> args) {
  std::uint64_t bytes = 0;
  for (const Value& v : args) {
    if (v.is(Kind::String) || v.is(Kind::Bytes)) bytes += v.text().size();
  }
  return bytes / 10;
}

}  // namespace

bool resolve_builtin(std::string_view name, bool method, std::size_t arity, Builtin& out) {
  for (const Signature& s : kSignatures) {
    if (s.name == name && s.method == method && arity >= s.min_arity && arity <= s.max_arity) {
      out = s.fn;
      return true;
    }
  }
  return false;
}

std::uint64_t builtin_cost(Builtin fn, std::span<const Value> args) {
  switch (fn) {
    case Builtin::Size:
    case Builtin::Int:
    case Builtin::Uint:
    case Builtin::Double:
    case Builtin::Bool:
    case Builtin::Type:
    case Builtin::Dyn:
    case Builtin::OptionalOf:
    case Builtin::OptionalNone:
    case Builtin::OptionalOfNonZeroValue:
    case Builtin::HasValue:
    case Builtin::OptionalGet:
    case Builtin::OrValue:
    case Builtin::Or:
      return 0;
    case Builtin::IsSorted:
    case Builtin::Sum:
    case Builtin::Min:
    case Builtin::Max:
    case Builtin::Join:
      return args.empty() ? 0 : args[0].size() + text_cost(args);
    case Builtin::IndexOf:
    case Builtin::LastIndexOf:
      if (!args.empty() && args[0].is(Kind::List)) return args[0].size();
      return text_cost(args);
    default:
      return text_cost(args);
  }
}

Value call_builtin(Builtin fn, std::span<const Value> args) {
  switch (fn) {
    case Builtin::Size:
    case Builtin::Int:
    case Builtin::Uint:
    case Builtin::Double:
    case Builtin::String:
    case Builtin::Bytes:
    case Builtin::Bool:
    case Builtin::Type:
    case Builtin::Dyn:
      return call_conversion(fn, args);
    case Builtin::IsSorted:
    case Builtin::Sum:
    case Builtin::Min:
    case Builtin::Max:
      return call_list_function(fn, args);
    case Builtin::IndexOf:
    case Builtin::LastIndexOf:
      if (!args.empty() && args[0].is(Kind::List)) return call_list_function(fn, args);
      return call_string_function(fn, args);
    case Builtin::OptionalOf:
    case Builtin::OptionalNone:
    case Builtin::OptionalOfNonZeroValue:
    case Builtin::HasValue:
    case Builtin::OptionalGet:
    case Builtin::OrValue:
    case Builtin::Or:
      return call_optional_function(fn, args);
    default:
      return call_string_function(fn, args);
  }
}

}  // namespace kueuepp::kube::schema::cel

#pragma once

// The CEL functions this interpreter knows: the standard library subset the Kueue CRDs
// (and typical CRD rules) use, plus Kubernetes' strings and lists extension functions.
// Names resolve at compile time; an unknown name is a compile error, as it is for
// kube-apiserver's type checker.

#include <cstdint>
#include <span>
#include <string_view>

#include "kube/apiserver/schema/cel/value.hpp"

namespace kueuepp::kube::schema::cel {

enum class Builtin : std::uint8_t {
  // conversions and type functions (global)
  Size,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  Bool,
  Type,
  Dyn,
  // strings
  Matches,
  Contains,
  StartsWith,
  EndsWith,
  LowerAscii,
  UpperAscii,
  Trim,
  Split,
  Replace,
  IndexOf,
  LastIndexOf,
  Substring,
  CharAt,
  Join,
  // lists (Kubernetes library)
  IsSorted,
  Sum,
  Min,
  Max,
  // optionals
  OptionalOf,
  OptionalNone,
  OptionalOfNonZeroValue,
  HasValue,
  OptionalGet,  // .value()
  OrValue,
  Or,
};

/// Resolves a call: `method` for receiver style `x.name(...)` (the receiver is not
/// counted in `arity`). False when there is no such function/overload shape.
bool resolve_builtin(std::string_view name, bool method, std::size_t arity, Builtin& out);

/// Extra cost units of a call beyond one per evaluated node (string/list work scales
/// with size), used by the interpreter's cost limit.
std::uint64_t builtin_cost(Builtin fn, std::span<const Value> args);

/// Evaluates a builtin on already-evaluated arguments (receiver first for methods).
/// Arguments are never errors (the interpreter propagates those first).
Value call_builtin(Builtin fn, std::span<const Value> args);

}  // namespace kueuepp::kube::schema::cel

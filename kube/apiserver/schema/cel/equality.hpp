#pragma once

// CEL equality and ordering. Equality is heterogeneous (values of different types are
// simply unequal; int, uint and double compare by numeric value) and, for JSON-backed
// lists, follows x-kubernetes-list-type as kube-apiserver does: `set` lists compare as
// sets, `map` lists by their keys, `atomic` lists element by element.

#include "kube/apiserver/schema/cel/value.hpp"

namespace kueuepp::kube::schema::cel {

/// A Bool, or the first operand's Error.
Value equals(const Value& a, const Value& b);

/// Ordering for < <= > >=: returns an Int -1/0/1, an Int 2 for unordered (NaN), or a
/// `no such overload` Error when the kinds cannot be ordered.
Value compare(const Value& a, const Value& b);

}  // namespace kueuepp::kube::schema::cel

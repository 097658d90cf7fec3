#pragma once

// Tree-walking evaluation of a resolved CEL syntax tree, with CEL's error semantics
// (errors are values; && and || absorb them when the other side decides) and a cost
// counter: every evaluated node, loop iteration and unit of string/list work costs,
// and past the limit evaluation stops with cel-go's "actual cost limit exceeded" error.

#include <cstdint>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "kube/apiserver/schema/cel/ast.hpp"

namespace kueuepp::kube::schema::cel {

/// Results of shared subexpressions (Expr::memo) for one binding of the variables: what
/// one rule computed, the next rule of the same node takes instead of recomputing it,
/// and is charged the same cost for it.
struct Memo {
  struct Entry {
    bool set = false;
    Value value;
    std::uint64_t cost = 0;  ///< what evaluating the subtree cost, its own node included
  };
  explicit Memo(std::size_t slots) : entries(slots) {}
  boost::container::small_vector<Entry, 8> entries;
  std::size_t hits = 0;
};

struct EvalState {
  std::span<const Value> globals;  ///< declared variables (self, oldSelf, ...)
  boost::container::small_vector<Value, 4> locals;  ///< comprehension variables by slot
  std::uint64_t cost = 0;
  std::uint64_t limit = 0;
  bool exceeded = false;
  Memo* memo = nullptr;  ///< null: Expr::memo is ignored
};

Value evaluate(const Expr& e, EvalState& state);

/// The binary operators other than && and || on evaluated, non-error operands.
Value apply_binary(BinaryOp op, const Value& a, const Value& b, EvalState& state);

/// `a[k]` on evaluated, non-error operands.
Value index_value(const Value& a, const Value& k);

}  // namespace kueuepp::kube::schema::cel

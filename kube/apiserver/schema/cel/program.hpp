#pragma once

// A compiled CEL expression: parse once (at schema compile time), evaluate many times.
//
//   auto p = cel::Program::compile("self.minCount <= self.count", {"self", "oldSelf"});
//   auto r = p->evaluate({self, old_self}, cel::kPerCallLimit);
//   if (r.value.is(cel::Kind::Bool) && r.value.as_bool()) ...
//
// Supported: literals (int, uint, double, string and bytes with all escapes, bool, null,
// lists, maps), field selection, indexing, `has()`, the macros all/exists/exists_one/
// map/filter, `in`, `?:`, `&& || !` with CEL's error-absorbing semantics, arithmetic
// with overflow errors, heterogeneous equality and ordering, size(), type conversions,
// type(), string and list functions (see builtins.hpp), optionals.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/schema/cel/ast.hpp"
#include "kube/apiserver/schema/cel/value.hpp"

namespace kueuepp::kube::schema::cel {
struct Memo;
}

namespace kueuepp::kube::schema::cel {

/// kube-apiserver's cost limits: per expression evaluation, and per validated object.
inline constexpr std::uint64_t kPerCallLimit = 1'000'000;
inline constexpr std::uint64_t kRuntimeBudget = 10'000'000;

class Program {
 public:
  /// Compiles `source` for an environment declaring `variables` in this order; an
  /// undeclared identifier, unknown function or bad literal regex is a compile error.
  static Expected<std::shared_ptr<const Program>> compile(std::string_view source,
                                                          std::span<const std::string_view> variables);
  static Expected<std::shared_ptr<const Program>> compile(std::string_view source,
                                                          std::initializer_list<std::string_view> variables) {
    return compile(source, std::span<const std::string_view>(variables.begin(), variables.size()));
  }
  /// With the schema of each variable (null: unknown), which must outlive the program:
  /// field and element accesses on them resolve their schema at compile time.
  static Expected<std::shared_ptr<const Program>> compile(std::string_view source,
                                                          std::span<const std::string_view> variables,
                                                          std::span<const Shape* const> shapes);

  /// Whether the expression refers to the i-th declared variable (e.g. oldSelf).
  bool uses(std::size_t variable) const { return variable < uses_.size() && uses_[variable]; }

  struct Result {
    Value value;
    std::uint64_t cost = 0;
  };
  /// `variables` matches the compile-time declaration order. The result may refer to
  /// the program's literals and to the documents the variables view: use it while both
  /// live. Never throws, never
  /// recurses deeper than the syntax tree (bounded at parse time); stops with the
  /// "operation cancelled: actual cost limit exceeded" error past `cost_limit`.
  Result evaluate(std::span<const Value> variables, std::uint64_t cost_limit = kPerCallLimit) const;
  /// With `memo` (see share_subexpressions): the results of shared subexpressions for
  /// this binding of the variables, read and recorded. Same result and cost as without.
  Result evaluate(std::span<const Value> variables, std::uint64_t cost_limit, Memo* memo) const;
  Result evaluate(std::initializer_list<Value> variables, std::uint64_t cost_limit = kPerCallLimit) const {
    return evaluate(std::span<const Value>(variables.begin(), variables.size()), cost_limit);
  }

  const std::string& source() const { return source_; }

  /// Gives every subexpression that `programs` compute more than once (in different
  /// programs or twice in one) a memo slot, so that evaluations sharing one Memo compute
  /// it once; returns the number of slots. Only subexpressions of programs with the same
  /// `binding` share (programs evaluated with the same variable values, e.g. rules of one
  /// schema node with the same optionalOldSelf), and only those that read no loop
  /// variable bound outside them. Call before the programs are evaluated or shared.
  static std::size_t share_subexpressions(std::span<const std::shared_ptr<const Program>> programs,
                                          std::span<const int> binding);

 private:
  std::string source_;
  ExprPtr root_;
  std::vector<bool> uses_;
};

}  // namespace kueuepp::kube::schema::cel

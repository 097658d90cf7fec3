#pragma once

// The CEL syntax tree after macro expansion and name resolution. Functions are resolved
// to a Builtin at compile time, identifiers to a variable slot, and macros (all, exists,
// exists_one, map, filter, has) get node kinds of their own, so evaluation does no
// string lookups.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kube/apiserver/schema/cel/builtins.hpp"
#include "kube/apiserver/schema/cel/value.hpp"
#include "kube/apiserver/schema/regex.hpp"

namespace kueuepp::kube::schema::cel {

enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, In };

enum class Macro : std::uint8_t { All, Exists, ExistsOne, Map, MapFilter, Filter };

struct Expr {
  enum class Kind : std::uint8_t {
    Literal,        ///< `literal`
    Ident,          ///< variable `slot`
    Select,         ///< args[0].name
    Has,            ///< has(args[0].name)
    OptSelect,      ///< args[0].?name
    Index,          ///< args[0][args[1]]
    OptIndex,       ///< args[0][?args[1]]
    Call,           ///< builtin `fn`; a method's receiver is args[0]
    List,           ///< [args...]
    Map,            ///< {args[0]: args[1], ...}
    Conditional,    ///< args[0] ? args[1] : args[2]
    And,
    Or,
    Not,
    Negate,
    Binary,         ///< args[0] op args[1]
    Comprehension,  ///< args[0].macro(name, args[1] [, args[2]])
  };

  Kind kind = Kind::Literal;
  BinaryOp op = BinaryOp::Add;
  Macro macro = Macro::All;
  Builtin fn = Builtin::Size;
  bool method = false;     ///< Call: receiver style `x.f(...)`
  std::int32_t slot = 0;   ///< Ident: variable slot; Comprehension: the loop variable's slot
  Value literal;
  std::string name;        ///< identifier, field, or loop variable
  std::string unescaped;   ///< Select/Has/OptSelect: the schema property `name` denotes
  std::vector<std::unique_ptr<Expr>> args;
  std::shared_ptr<const Regex> regex;  ///< matches() with a literal pattern, compiled once
  /// Select/Has/OptSelect/Index: the schema the operand is expected to have and the
  /// schema of the selected field or element, resolved at compile time from the
  /// variables' shapes; evaluation uses `child_shape` when the operand's actual shape is
  /// `parent_shape`, sparing a schema lookup per access.
  const Shape* parent_shape = nullptr;
  const Shape* child_shape = nullptr;
  /// Memo slot (Program::share_subexpressions) when other rules of the same schema node
  /// compute this very subtree from the same variables; -1 otherwise. Set once, before
  /// the program is shared.
  mutable std::int32_t memo = -1;
  std::size_t pos = 0;     ///< source offset, for messages
  int depth = 1;           ///< height of this subtree
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace kueuepp::kube::schema::cel

#include "kube/apiserver/schema/cel/program.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "kube/apiserver/schema/cel/interpreter.hpp"
#include "kube/apiserver/schema/cel/lexer.hpp"
#include "kube/apiserver/schema/cel/parser.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

// Type names usable as values (`type(x) == string`).
bool type_identifier(std::string_view name, Value& out) {
  static constexpr std::string_view names[] = {"bool",   "int",  "uint",      "double", "string",
                                               "bytes",  "list", "map",       "null_type", "type"};
  for (auto n : names) {
    if (n == name) {
      out = Value::type(n);
      return true;
    }
  }
  return false;
}

// Binds identifiers: comprehension variables to local slots (their nesting depth),
// declared variables to negative global slots, type names to literals.
//
// With the variables' schemas it also infers the schema of field selections, list
// elements and loop variables (a light form of cel-go's type checking) and records it
// in the nodes (Expr::parent_shape/child_shape).
class Resolver {
 public:
  Resolver(std::string_view source, std::span<const std::string_view> globals, std::span<const Shape* const> shapes)
      : source_(source), globals_(globals), shapes_(shapes), uses_(globals.size(), false) {}

  Status resolve(Expr& e) {
    const Shape* ignored = nullptr;
    return resolve(e, ignored);
  }

  // `shape`: the schema of e's value when statically known, else null.
  Status resolve(Expr& e, const Shape*& shape) {
    shape = nullptr;
    if (e.kind == Expr::Kind::Ident) return identifier(e, shape);
    if (e.kind == Expr::Kind::Comprehension) return comprehension(e);
    std::vector<const Shape*> arg_shapes(e.args.size(), nullptr);
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (Status s = resolve(*e.args[i], arg_shapes[i]); !s) return s;
    }
    const Shape* operand = arg_shapes.empty() ? nullptr : arg_shapes[0];
    switch (e.kind) {
      case Expr::Kind::Select:
      case Expr::Kind::Has:
      case Expr::Kind::OptSelect:
        if (operand != nullptr) {
          e.parent_shape = operand;
          e.child_shape = operand->cel_field(operand->cel_has_properties() ? e.unescaped : e.name);
          if (e.kind == Expr::Kind::Select) shape = e.child_shape;
        }
        break;
      case Expr::Kind::Index:
        if (operand != nullptr && operand->cel_items() != nullptr) {
          e.parent_shape = operand;
          e.child_shape = operand->cel_items();
          shape = e.child_shape;
        }
        break;
      case Expr::Kind::Conditional:
        if (arg_shapes[1] == arg_shapes[2]) shape = arg_shapes[1];
        break;
      default:
        break;
    }
    return {};
  }

  std::vector<bool> uses() const { return uses_; }

 private:
  // Loop variables: a list's elements have its items' schema; map keys are strings.
  Status comprehension(Expr& e) {
    const Shape* range = nullptr;
    if (Status s = resolve(*e.args[0], range); !s) return s;
    const Shape* var = range != nullptr ? range->cel_items() : nullptr;
    if (var != nullptr) {
      e.parent_shape = range;
      e.child_shape = var;
    }
    e.slot = static_cast<std::int32_t>(scope_.size());
    scope_.push_back({e.name, var});
    for (std::size_t i = 1; i < e.args.size(); ++i) {
      if (Status s = resolve(*e.args[i]); !s) {
        scope_.pop_back();
        return s;
      }
    }
    scope_.pop_back();
    return {};
  }

  Status identifier(Expr& e, const Shape*& shape) {
    for (std::size_t i = scope_.size(); i-- > 0;) {
      if (scope_[i].first == e.name) {
        e.slot = static_cast<std::int32_t>(i);
        shape = scope_[i].second;
        return {};
      }
    }
    for (std::size_t i = 0; i < globals_.size(); ++i) {
      if (globals_[i] == e.name) {
        e.slot = -1 - static_cast<std::int32_t>(i);
        uses_[i] = true;
        shape = i < shapes_.size() ? shapes_[i] : nullptr;
        return {};
      }
    }
    Value type;
    if (type_identifier(e.name, type)) {
      e.kind = Expr::Kind::Literal;
      e.literal = type;
      return {};
    }
    return fail("ERROR: " + source_location(source_, e.pos) + ": undeclared reference to '" + e.name +
                "' (in container '')");
  }

  std::string_view source_;
  std::span<const std::string_view> globals_;
  std::span<const Shape* const> shapes_;
  std::vector<std::pair<std::string, const Shape*>> scope_;
  std::vector<bool> uses_;
};

// Canonical text of each subtree, for finding the ones computed more than once.
class SubtreeIndex {
 public:
  // The key of `e` evaluated `depth` loops deep; `min_local` gets the lowest loop
  // variable slot it reads (INT32_MAX: none). Subtrees that read a loop variable bound
  // outside them (a slot below `depth`) are not recorded.
  std::string visit(const Expr& e, std::int32_t depth, const std::string& prefix, std::int32_t& min_local) {
    min_local = INT32_MAX;
    std::string key = "(" + std::to_string(static_cast<int>(e.kind)) + "," + std::to_string(static_cast<int>(e.op)) +
                      "," + std::to_string(static_cast<int>(e.macro)) + "," + std::to_string(static_cast<int>(e.fn)) +
                      "," + (e.method ? "m" : "f") + "," + std::to_string(e.slot) + "," + text(e.name) +
                      text(e.unescaped) + std::to_string(reinterpret_cast<std::uintptr_t>(e.parent_shape)) + "," +
                      std::to_string(reinterpret_cast<std::uintptr_t>(e.child_shape)) + "," + literal(e);
    if (e.kind == Expr::Kind::Ident && e.slot >= 0) min_local = e.slot;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      std::int32_t inner = depth;
      if (e.kind == Expr::Kind::Comprehension && i > 0) inner = e.slot + 1;
      std::int32_t child_min = INT32_MAX;
      key += visit(*e.args[i], inner, prefix, child_min);
      // A loop variable of this comprehension is bound here, not free in it.
      if (!(e.kind == Expr::Kind::Comprehension && child_min == e.slot)) min_local = std::min(min_local, child_min);
    }
    key += ")";
    bool leaf = e.kind == Expr::Kind::Literal || e.kind == Expr::Kind::Ident;
    if (!leaf && min_local >= depth) groups_[prefix + key].push_back(&e);
    return key;
  }

  std::size_t assign() {
    std::size_t slots = 0;
    for (auto& [key, exprs] : groups_) {
      if (exprs.size() < 2) continue;
      for (const Expr* e : exprs) e->memo = static_cast<std::int32_t>(slots);
      ++slots;
    }
    return slots;
  }

 private:
  static std::string text(const std::string& s) { return std::to_string(s.size()) + ":" + s + ","; }

  // Literals compare by kind and value; kinds without a plain value never match.
  static std::string literal(const Expr& e) {
    if (e.kind != Expr::Kind::Literal) return "";
    const Value& v = e.literal;
    std::string k = std::to_string(static_cast<int>(v.kind())) + ":";
    switch (v.kind()) {
      case Kind::Null: return k;
      case Kind::Bool: return k + (v.as_bool() ? "1" : "0");
      case Kind::Int: return k + std::to_string(v.as_int());
      case Kind::Uint: return k + std::to_string(v.as_uint());
      case Kind::Double: {
        std::uint64_t bits = 0;
        double d = v.as_double();
        std::memcpy(&bits, &d, sizeof bits);
        return k + std::to_string(bits);
      }
      case Kind::String:
      case Kind::Bytes:
      case Kind::Type: return k + text(std::string(v.text()));
      default: return k + "#" + std::to_string(reinterpret_cast<std::uintptr_t>(&e));
    }
  }

  std::map<std::string, std::vector<const Expr*>> groups_;
};

}  // namespace

std::size_t Program::share_subexpressions(std::span<const std::shared_ptr<const Program>> programs,
                                          std::span<const int> binding) {
  SubtreeIndex index;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    if (!programs[i]) continue;
    std::int32_t min_local = INT32_MAX;
    std::string prefix = std::to_string(i < binding.size() ? binding[i] : 0) + "|";
    index.visit(*programs[i]->root_, 0, prefix, min_local);
  }
  return index.assign();
}

Expected<std::shared_ptr<const Program>> Program::compile(std::string_view source,
                                                          std::span<const std::string_view> variables) {
  return compile(source, variables, {});
}

Expected<std::shared_ptr<const Program>> Program::compile(std::string_view source,
                                                          std::span<const std::string_view> variables,
                                                          std::span<const Shape* const> shapes) {
  auto tree = parse(source);
  if (!tree) return fail(tree.error().message);
  Resolver resolver(source, variables, shapes);
  if (Status s = resolver.resolve(**tree); !s) return fail(s.error().message);
  auto p = std::make_shared<Program>();
  p->source_ = std::string(source);
  p->root_ = std::move(*tree);
  p->uses_ = resolver.uses();
  return std::shared_ptr<const Program>(std::move(p));
}

Program::Result Program::evaluate(std::span<const Value> variables, std::uint64_t cost_limit) const {
  return evaluate(variables, cost_limit, nullptr);
}

Program::Result Program::evaluate(std::span<const Value> variables, std::uint64_t cost_limit, Memo* memo) const {
  EvalState state;
  state.memo = memo;
  state.globals = variables;
  state.limit = cost_limit;
  // A variable the caller did not bind (fewer values than declarations) reads as an
  // error instead of out of bounds.
  std::vector<Value> padded;
  if (variables.size() < uses_.size()) {
    padded.assign(variables.begin(), variables.end());
    padded.resize(uses_.size(), Value::static_error("no such attribute"));
    state.globals = padded;
  }
  Value v = cel::evaluate(*root_, state);
  return {std::move(v), state.cost};
}

}  // namespace kueuepp::kube::schema::cel

#include "kube/schema/cel/program.hpp"

#include "kube/schema/cel/interpreter.hpp"
#include "kube/schema/cel/lexer.hpp"
#include "kube/schema/cel/parser.hpp"

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

}  // namespace

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
  EvalState state;
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

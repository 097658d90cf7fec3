#include "kube/apiserver/schema/cel/interpreter.hpp"

#include <array>

#include "kube/apiserver/schema/cel/equality.hpp"
#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

Value eval_select(const Expr& e, EvalState& s) {
  Value target = evaluate(*e.args[0], s);
  if (target.is_error()) return target;
  if (!target.is(Kind::Map)) return no_such_overload();
  Value out;
  if (target.select(e.name, e.unescaped, out, e.parent_shape, e.child_shape)) return out;
  return no_such_key(e.name);
}

Value eval_has(const Expr& e, EvalState& s) {
  Value target = evaluate(*e.args[0], s);
  if (target.is_error()) return target;
  if (!target.is(Kind::Map)) return no_such_overload();
  Value ignored;
  return Value::boolean(target.select(e.name, e.unescaped, ignored, e.parent_shape, e.child_shape));
}

// x.?f and x[?k]: an optional of the field or entry, none when absent; an optional
// receiver is unwrapped first.
Value eval_optional_access(const Expr& e, EvalState& s) {
  Value target = evaluate(*e.args[0], s);
  if (target.is_error()) return target;
  if (target.is(Kind::Optional)) {
    if (!target.has_value()) return target;
    target = target.optional_value();
  }
  if (e.kind == Expr::Kind::OptSelect) {
    if (!target.is(Kind::Map)) return no_such_overload();
    Value out;
    return target.select(e.name, e.unescaped, out) ? Value::optional_of(out) : Value::optional_none();
  }
  Value key = evaluate(*e.args[1], s);
  if (key.is_error()) return key;
  Value out = index_value(target, key);
  if (!out.is_error()) return Value::optional_of(out);
  if (target.is(Kind::Map) || target.is(Kind::List)) return Value::optional_none();
  return out;
}

Value eval_index(const Expr& e, EvalState& s) {
  Value target = evaluate(*e.args[0], s);
  if (target.is_error()) return target;
  Value key = evaluate(*e.args[1], s);
  if (key.is_error()) return key;
  if (target.is(Kind::List) && key.is(Kind::Int) && key.as_int() >= 0 &&
      static_cast<std::uint64_t>(key.as_int()) < target.size()) {
    return target.element(static_cast<std::size_t>(key.as_int()), e.parent_shape, e.child_shape);
  }
  return index_value(target, key);
}

// A DFA matches ASCII text in linear time; otherwise matching is O(program x text).
std::uint64_t regex_cost(const Regex& re, std::string_view text) {
  if (re.has_dfa()) return text.size() / 10;
  return (text.size() * re.program_size()) / 16;
}

Value eval_call(const Expr& e, EvalState& s) {
  std::array<Value, 4> args;  // receiver + at most three arguments
  std::size_t n = e.args.size();
  if (n > args.size()) return no_such_overload();
  for (std::size_t i = 0; i < n; ++i) {
    args[i] = evaluate(*e.args[i], s);
    if (args[i].is_error()) return args[i];
  }
  std::span<const Value> view(args.data(), n);
  s.cost += builtin_cost(e.fn, view);
  if (s.cost > s.limit) return cost_limit_exceeded();
  if (e.fn == Builtin::Matches && e.regex) {
    if (!args[0].is(Kind::String)) return no_such_overload();
    s.cost += regex_cost(*e.regex, args[0].text());
    if (s.cost > s.limit) return cost_limit_exceeded();
    return Value::boolean(e.regex->search(args[0].text()));
  }
  if (e.fn == Builtin::Matches) {
    // Compiling the pattern, then matching without a DFA (O(pattern x text)).
    s.cost += args[1].text().size() + (args[0].text().size() * (args[1].text().size() + 1)) / 16;
    if (s.cost > s.limit) return cost_limit_exceeded();
    return regex_matches(args[0], args[1]);
  }
  return call_builtin(e.fn, view);
}

Value eval_list(const Expr& e, EvalState& s) {
  std::vector<Value> items;
  items.reserve(e.args.size());
  for (const auto& a : e.args) {
    Value v = evaluate(*a, s);
    if (v.is_error()) return v;
    items.push_back(std::move(v));
  }
  return Value::list(std::move(items));
}

Value eval_map(const Expr& e, EvalState& s) {
  std::vector<Value> keys, values;
  for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
    Value k = evaluate(*e.args[i], s);
    if (k.is_error()) return k;
    if (!k.is(Kind::String) && !k.is(Kind::Int) && !k.is(Kind::Uint) && !k.is(Kind::Bool)) {
      return Value::error("unsupported key type: " + std::string(kind_name(k.kind())));
    }
    Value v = evaluate(*e.args[i + 1], s);
    if (v.is_error()) return v;
    // The duplicate check is quadratic: charge it so a huge literal hits the limit.
    s.cost += keys.size();
    if (s.cost > s.limit) return cost_limit_exceeded();
    for (const Value& existing : keys) {
      Value eq = equals(existing, k);
      if (eq.is(Kind::Bool) && eq.as_bool()) return Value::static_error("Failed with repeated key");
    }
    keys.push_back(std::move(k));
    values.push_back(std::move(v));
  }
  return Value::map(std::move(keys), std::move(values));
}

Value eval_conditional(const Expr& e, EvalState& s) {
  Value c = evaluate(*e.args[0], s);
  if (c.is_error()) return c;
  if (!c.is(Kind::Bool)) return no_such_overload();
  return evaluate(*e.args[c.as_bool() ? 1 : 2], s);
}

// && and ||: the `decisive` value (false for &&, true for ||) wins over an error on
// either side; otherwise an error (left first) wins; non-bools are overload errors.
Value eval_logical(const Expr& e, EvalState& s) {
  bool decisive = e.kind == Expr::Kind::Or;
  auto normalize = [](Value v) { return v.is(Kind::Bool) || v.is_error() ? v : no_such_overload(); };
  Value left = normalize(evaluate(*e.args[0], s));
  if (left.is(Kind::Bool) && left.as_bool() == decisive) return left;
  if (s.exceeded) return cost_limit_exceeded();
  Value right = normalize(evaluate(*e.args[1], s));
  if (right.is(Kind::Bool) && right.as_bool() == decisive) return right;
  if (left.is_error()) return left;
  return right;
}

Value eval_unary(const Expr& e, EvalState& s) {
  Value v = evaluate(*e.args[0], s);
  if (v.is_error()) return v;
  if (e.kind == Expr::Kind::Not) return v.is(Kind::Bool) ? Value::boolean(!v.as_bool()) : no_such_overload();
  if (v.is(Kind::Int)) return v.as_int() == INT64_MIN ? integer_overflow() : Value::integer(-v.as_int());
  if (v.is(Kind::Double)) return Value::real(-v.as_double());
  return no_such_overload();
}

Value eval_binary(const Expr& e, EvalState& s) {
  Value a = evaluate(*e.args[0], s);
  if (a.is_error()) return a;
  Value b = evaluate(*e.args[1], s);
  if (b.is_error()) return b;
  return apply_binary(e.op, a, b, s);
}

// Runs a macro over a list's elements or a map's keys.
class Loop {
 public:
  Loop(const Expr& e, EvalState& s) : e_(e), s_(s), slot_(static_cast<std::size_t>(e.slot)) {}

  Value run() {
    Value range = evaluate(*e_.args[0], s_);
    if (range.is_error()) return range;
    if (!range.is(Kind::List) && !range.is(Kind::Map)) return no_such_overload();
    if (s_.locals.size() <= slot_) s_.locals.resize(slot_ + 1);
    Value result = iterate(range);
    s_.locals.resize(slot_);
    return result;
  }

 private:
  // Binds the i-th element (list) or key (map) and charges one unit per iteration.
  bool bind(const Value& range, std::size_t i) {
    s_.locals[slot_] = range.is(Kind::List) ? range.element(i, e_.parent_shape, e_.child_shape) : range.key_at(i);
    return ++s_.cost <= s_.limit && !s_.exceeded;
  }

  Value predicate(const Expr& body) {
    Value v = evaluate(body, s_);
    return v.is(Kind::Bool) || v.is_error() ? v : no_such_overload();
  }

  Value iterate(const Value& range) {
    std::size_t n = range.size();
    switch (e_.macro) {
      case Macro::All:
      case Macro::Exists: {
        bool decisive = e_.macro == Macro::Exists;
        Value accu = Value::boolean(!decisive);
        for (std::size_t i = 0; i < n; ++i) {
          if (!bind(range, i)) return cost_limit_exceeded();
          Value p = predicate(*e_.args[1]);
          if (p.is(Kind::Bool) && p.as_bool() == decisive) return p;
          if (p.is_error() && !accu.is_error()) accu = p;
        }
        return accu;
      }
      case Macro::ExistsOne: {
        std::int64_t count = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (!bind(range, i)) return cost_limit_exceeded();
          Value p = predicate(*e_.args[1]);
          if (p.is_error()) return p;
          if (p.as_bool()) ++count;
        }
        return Value::boolean(count == 1);
      }
      case Macro::Map:
      case Macro::MapFilter:
      case Macro::Filter: {
        std::vector<Value> out;
        for (std::size_t i = 0; i < n; ++i) {
          if (!bind(range, i)) return cost_limit_exceeded();
          if (e_.macro != Macro::Map) {
            Value p = predicate(*e_.args[1]);
            if (p.is_error()) return p;
            if (!p.as_bool()) continue;
          }
          if (e_.macro == Macro::Filter) {
            out.push_back(s_.locals[slot_]);
            continue;
          }
          Value v = evaluate(*e_.args.back(), s_);
          if (v.is_error()) return v;
          out.push_back(std::move(v));
        }
        return Value::list(std::move(out));
      }
    }
    return no_such_overload();
  }

  const Expr& e_;
  EvalState& s_;
  std::size_t slot_;
};

Value evaluate_node(const Expr& e, EvalState& s);

}  // namespace

// A shared subtree's result is a function of the variables alone (it reads no loop
// variable bound outside it), and so is the cost of computing it. Taking the recorded
// result is exact when that cost fits under the limit: evaluating again would run the
// same steps and no limit check along the way could fail. Otherwise, or with nothing
// recorded yet, it is evaluated; a result is recorded only when no limit was hit.
Value evaluate(const Expr& e, EvalState& s) {
  if (e.memo < 0 || s.memo == nullptr || s.exceeded) return evaluate_node(e, s);
  Memo::Entry& m = s.memo->entries[static_cast<std::size_t>(e.memo)];
  if (m.set) {
    if (s.cost + m.cost <= s.limit) {
      s.cost += m.cost;
      ++s.memo->hits;
      return m.value;
    }
    return evaluate_node(e, s);
  }
  const std::uint64_t before = s.cost;
  Value v = evaluate_node(e, s);
  if (!s.exceeded && s.cost <= s.limit) {
    m.set = true;
    m.value = v;
    m.cost = s.cost - before;
  }
  return v;
}

namespace {

Value evaluate_node(const Expr& e, EvalState& s) {
  if (s.exceeded || ++s.cost > s.limit) {
    s.exceeded = true;
    return cost_limit_exceeded();
  }
  Value result;
  switch (e.kind) {
    case Expr::Kind::Literal:
      return e.literal;
    case Expr::Kind::Ident:
      if (e.slot >= 0) return s.locals[static_cast<std::size_t>(e.slot)];
      return s.globals[static_cast<std::size_t>(-1 - e.slot)];
    case Expr::Kind::Select:
      result = eval_select(e, s);
      break;
    case Expr::Kind::Has:
      result = eval_has(e, s);
      break;
    case Expr::Kind::OptSelect:
    case Expr::Kind::OptIndex:
      result = eval_optional_access(e, s);
      break;
    case Expr::Kind::Index:
      result = eval_index(e, s);
      break;
    case Expr::Kind::Call:
      result = eval_call(e, s);
      break;
    case Expr::Kind::List:
      result = eval_list(e, s);
      break;
    case Expr::Kind::Map:
      result = eval_map(e, s);
      break;
    case Expr::Kind::Conditional:
      result = eval_conditional(e, s);
      break;
    case Expr::Kind::And:
    case Expr::Kind::Or:
      result = eval_logical(e, s);
      break;
    case Expr::Kind::Not:
    case Expr::Kind::Negate:
      result = eval_unary(e, s);
      break;
    case Expr::Kind::Binary:
      result = eval_binary(e, s);
      break;
    case Expr::Kind::Comprehension:
      result = Loop(e, s).run();
      break;
  }
  // Work charged inside (string and list sizes) may have crossed the limit: the error
  // must win even where && / || would otherwise absorb it.
  if (s.cost > s.limit) {
    s.exceeded = true;
    return cost_limit_exceeded();
  }
  return result;
}

}  // namespace
}  // namespace kueuepp::kube::schema::cel

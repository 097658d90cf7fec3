#include "kube/apiserver/schema/cel/parser.hpp"

#include <algorithm>

#include "kube/apiserver/schema/cel/lexer.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

// CEL's escaping of schema property names that are not valid identifiers: `x-y` is
// written `x__dash__y`, `namespace` `__namespace__` (Kubernetes' cel.Escape rules).
std::string unescape_property(std::string_view name) {
  if (name.find("__") == std::string_view::npos) return std::string(name);
  static constexpr std::string_view keywords[] = {
      "true",   "false", "null",    "in",   "as",     "break",   "const",     "continue", "else",
      "for",    "function", "if",   "import", "let",  "loop",    "package",   "namespace", "return",
      "var",    "void",  "while"};
  if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__") {
    std::string_view inner = name.substr(2, name.size() - 4);
    for (auto k : keywords) {
      if (k == inner) return std::string(inner);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    struct Escape {
      std::string_view code;
      std::string_view text;
    };
    static constexpr Escape escapes[] = {
        {"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}};
    bool replaced = false;
    for (const auto& e : escapes) {
      if (name.substr(i, e.code.size()) == e.code) {
        out += e.text;
        i += e.code.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += name[i++];
  }
  return out;
}

// cel-go's reservedIds: never a variable or a function name, though (save for true,
// false, null and in, which are tokens of their own) valid as field names.
bool reserved_identifier(std::string_view name) {
  static constexpr std::string_view words[] = {"as",     "break",     "const",  "continue", "else", "for",  "function",
                                               "if",     "import",    "let",    "loop",     "package", "namespace",
                                               "return", "var",       "void",   "while"};
  return std::find(std::begin(words), std::end(words), name) != std::end(words);
}

class Parser {
 public:
  Parser(std::string_view source, std::vector<Token> tokens) : src_(source), toks_(std::move(tokens)) {}

  Expected<ExprPtr> run() {
    ExprPtr e = expr();
    if (ok() && peek().kind != Tok::End) syntax_error(peek(), "extraneous input");
    if (!ok()) return fail(error_);
    return e;
  }

 private:
  // --- tokens and errors ---------------------------------------------------------

  const Token& peek(std::size_t ahead = 0) const { return toks_[std::min(i_ + ahead, toks_.size() - 1)]; }
  const Token& advance() {
    const Token& t = peek();
    if (i_ < toks_.size() - 1) ++i_;
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    advance();
    return true;
  }
  bool ok() const { return error_.empty(); }

  std::nullptr_t error_at(std::size_t pos, const std::string& msg) {
    if (error_.empty()) error_ = "ERROR: " + source_location(src_, pos) + ": " + msg;
    return nullptr;
  }
  std::nullptr_t syntax_error(const Token& t, std::string_view what) {
    std::string near = t.kind == Tok::End ? "<EOF>" : "'" + std::string(t.raw) + "'";
    return error_at(t.pos, "Syntax error: " + std::string(what) + " " + near);
  }
  bool expect(Tok k, std::string_view what) {
    if (accept(k)) return true;
    syntax_error(peek(), "mismatched input, expecting " + std::string(what) + " at");
    return false;
  }

  // --- node construction -----------------------------------------------------------

  ExprPtr node(Expr::Kind kind, std::size_t pos, std::vector<ExprPtr> args = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    int depth = 0;
    for (const auto& a : args) depth = std::max(depth, a->depth);
    e->depth = depth + 1;
    e->args = std::move(args);
    if (e->depth > kMaxDepth) return error_at(pos, "expression nested too deeply: max recursion depth exceeded");
    return e;
  }

  ExprPtr binary(BinaryOp op, std::size_t pos, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    ExprPtr e = node(Expr::Kind::Binary, pos, std::move(args));
    if (e) e->op = op;
    return e;
  }

  // Builds a balanced tree of && or || over operands[lo, hi].
  ExprPtr balanced(Expr::Kind kind, std::vector<ExprPtr>& operands, std::vector<std::size_t>& positions,
                   std::size_t lo, std::size_t hi) {
    if (lo == hi) return std::move(operands[lo]);
    std::size_t mid = (lo + hi) / 2;
    ExprPtr left = balanced(kind, operands, positions, lo, mid);
    ExprPtr right = balanced(kind, operands, positions, mid + 1, hi);
    if (!left || !right) return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    return node(kind, positions[mid], std::move(args));
  }

  // --- grammar ---------------------------------------------------------------------

  ExprPtr expr() {
    if (++nesting_ > kMaxNesting) return error_at(peek().pos, "expression nested too deeply: max recursion depth exceeded");
    ExprPtr e = conditional();
    --nesting_;
    return e;
  }

  ExprPtr conditional() {
    ExprPtr cond = logical(Expr::Kind::Or);
    if (!cond || peek().kind != Tok::Question) return cond;
    std::size_t pos = advance().pos;
    ExprPtr then = logical(Expr::Kind::Or);
    if (!then || !expect(Tok::Colon, "':'")) return nullptr;
    ExprPtr otherwise = expr();
    if (!otherwise) return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(std::move(then));
    args.push_back(std::move(otherwise));
    return node(Expr::Kind::Conditional, pos, std::move(args));
  }

  // conditionalOr / conditionalAnd: operand chains, balanced.
  ExprPtr logical(Expr::Kind kind) {
    Tok op = kind == Expr::Kind::Or ? Tok::OrOr : Tok::AndAnd;
    std::vector<ExprPtr> operands;
    std::vector<std::size_t> positions;
    operands.push_back(kind == Expr::Kind::Or ? logical(Expr::Kind::And) : relation());
    if (!operands.back()) return nullptr;
    while (peek().kind == op) {
      positions.push_back(advance().pos);
      operands.push_back(kind == Expr::Kind::Or ? logical(Expr::Kind::And) : relation());
      if (!operands.back()) return nullptr;
    }
    positions.push_back(0);
    return balanced(kind, operands, positions, 0, operands.size() - 1);
  }

  ExprPtr relation() {
    ExprPtr e = addition();
    while (e) {
      BinaryOp op;
      switch (peek().kind) {
        case Tok::EqEq: op = BinaryOp::Eq; break;
        case Tok::NotEq: op = BinaryOp::Ne; break;
        case Tok::Less: op = BinaryOp::Lt; break;
        case Tok::LessEq: op = BinaryOp::Le; break;
        case Tok::Greater: op = BinaryOp::Gt; break;
        case Tok::GreaterEq: op = BinaryOp::Ge; break;
        case Tok::In: op = BinaryOp::In; break;
        default: return e;
      }
      std::size_t pos = advance().pos;
      ExprPtr rhs = addition();
      if (!rhs) return nullptr;
      e = binary(op, pos, std::move(e), std::move(rhs));
    }
    return e;
  }

  ExprPtr addition() {
    ExprPtr e = multiplication();
    while (e && (peek().kind == Tok::Plus || peek().kind == Tok::Minus)) {
      BinaryOp op = peek().kind == Tok::Plus ? BinaryOp::Add : BinaryOp::Sub;
      std::size_t pos = advance().pos;
      ExprPtr rhs = multiplication();
      if (!rhs) return nullptr;
      e = binary(op, pos, std::move(e), std::move(rhs));
    }
    return e;
  }

  ExprPtr multiplication() {
    ExprPtr e = unary();
    while (e && (peek().kind == Tok::Star || peek().kind == Tok::Slash || peek().kind == Tok::Percent)) {
      BinaryOp op = peek().kind == Tok::Star ? BinaryOp::Mul : (peek().kind == Tok::Slash ? BinaryOp::Div : BinaryOp::Mod);
      std::size_t pos = advance().pos;
      ExprPtr rhs = unary();
      if (!rhs) return nullptr;
      e = binary(op, pos, std::move(e), std::move(rhs));
    }
    return e;
  }

  ExprPtr unary() {
    const Token& t = peek();
    if (t.kind == Tok::Minus && (peek(1).kind == Tok::Int || peek(1).kind == Tok::Double)) {
      // A signed numeric literal (so that -9223372036854775808 is representable).
      std::size_t pos = advance().pos;
      ExprPtr lit = number_literal(advance(), true, pos);
      return lit ? member_suffixes(std::move(lit)) : nullptr;
    }
    if (t.kind == Tok::Not || t.kind == Tok::Minus) {
      Tok k = t.kind;
      std::size_t pos = t.pos;
      int count = 0;
      while (peek().kind == k) {
        advance();
        ++count;
      }
      ExprPtr operand = member();
      if (!operand || count % 2 == 0) return operand;
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      return node(k == Tok::Not ? Expr::Kind::Not : Expr::Kind::Negate, pos, std::move(args));
    }
    return member();
  }

  ExprPtr member() {
    ExprPtr e = primary();
    return e ? member_suffixes(std::move(e)) : nullptr;
  }

  ExprPtr member_suffixes(ExprPtr e) {
    while (e) {
      if (peek().kind == Tok::Dot) {
        std::size_t pos = advance().pos;
        bool optional = accept(Tok::Question);
        const Token& name = peek();
        if (name.kind != Tok::Ident) return field_name_error(name);
        advance();
        if (!optional && peek().kind == Tok::LParen) {
          advance();
          std::vector<ExprPtr> args;
          if (!arguments(args, Tok::RParen)) return nullptr;
          e = call(std::string(name.raw), std::move(e), std::move(args), name.pos);
          continue;
        }
        std::vector<ExprPtr> args;
        args.push_back(std::move(e));
        e = node(optional ? Expr::Kind::OptSelect : Expr::Kind::Select, pos, std::move(args));
        if (e) {
          e->name = std::string(name.raw);
          e->unescaped = unescape_property(name.raw);
        }
      } else if (peek().kind == Tok::LBracket) {
        std::size_t pos = advance().pos;
        bool optional = accept(Tok::Question);
        ExprPtr index = expr();
        if (!index || !expect(Tok::RBracket, "']'")) return nullptr;
        std::vector<ExprPtr> args;
        args.push_back(std::move(e));
        args.push_back(std::move(index));
        e = node(optional ? Expr::Kind::OptIndex : Expr::Kind::Index, pos, std::move(args));
      } else {
        break;
      }
    }
    return e;
  }

  // What cel-go says of a token after `.` that is not an identifier. true, false and null
  // get the message cel-go keeps for them; a backquoted name is cel-go's escape syntax,
  // which Kubernetes does not enable.
  std::nullptr_t field_name_error(const Token& t) {
    switch (t.kind) {
      case Tok::True:
      case Tok::False:
      case Tok::Null:
        return error_at(t.pos, "Syntax error: mismatched input '" + std::string(t.raw) + "' expecting IDENTIFIER");
      case Tok::In:
        return error_at(t.pos, "Syntax error: no viable alternative at input '." + std::string(t.raw) + "'");
      case Tok::EscIdent:
        return error_at(t.pos, "unsupported syntax: '`'");
      default:
        return syntax_error(t, "mismatched input, expecting IDENTIFIER at");
    }
  }

  // Comma-separated expressions up to `close` (already past the opening token);
  // a trailing comma is allowed as in cel-go lists and maps.
  bool arguments(std::vector<ExprPtr>& out, Tok close) {
    if (accept(close)) return true;
    while (true) {
      ExprPtr a = expr();
      if (!a) return false;
      out.push_back(std::move(a));
      if (accept(close)) return true;
      if (!expect(Tok::Comma, "','")) return false;
      if (close == Tok::RBracket && accept(close)) return true;
    }
  }

  ExprPtr number_literal(const Token& t, bool negative, std::size_t pos) {
    ExprPtr e = node(Expr::Kind::Literal, pos);
    if (!e) return nullptr;
    if (t.kind == Tok::Double) {
      e->literal = Value::real(negative ? -t.d : t.d);
      return e;
    }
    constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
    if (t.u > kMax + (negative ? 1 : 0)) return error_at(t.pos, "invalid int literal");
    std::int64_t v = negative ? static_cast<std::int64_t>(0 - t.u) : static_cast<std::int64_t>(t.u);
    e->literal = Value::integer(v);
    return e;
  }

  ExprPtr literal(Value v, std::size_t pos) {
    ExprPtr e = node(Expr::Kind::Literal, pos);
    if (e) e->literal = std::move(v);
    return e;
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int:
      case Tok::Double:
        advance();
        return number_literal(t, false, t.pos);
      case Tok::Uint:
        advance();
        return literal(Value::uinteger(t.u), t.pos);
      case Tok::String: {
        advance();
        // The value borrows the text kept in the node: evaluating the literal copies
        // no string and touches no reference count.
        ExprPtr e = node(Expr::Kind::Literal, t.pos);
        if (!e) return nullptr;
        e->name = t.text;
        e->literal = Value::borrowed_string(e->name);
        return e;
      }
      case Tok::Bytes:
        advance();
        return literal(Value::bytes(t.text), t.pos);
      case Tok::True:
      case Tok::False:
        advance();
        return literal(Value::boolean(t.kind == Tok::True), t.pos);
      case Tok::Null:
        advance();
        return literal(Value::null(), t.pos);
      case Tok::LParen: {
        advance();
        ExprPtr e = expr();
        if (!e || !expect(Tok::RParen, "')'")) return nullptr;
        return e;
      }
      case Tok::LBracket: {
        advance();
        std::vector<ExprPtr> items;
        if (!arguments(items, Tok::RBracket)) return nullptr;
        return list_literal(std::move(items), t.pos);
      }
      case Tok::LBrace:
        return map_literal();
      case Tok::Dot:
        if (peek(1).kind != Tok::Ident) break;
        advance();
        return identifier(t.pos);
      case Tok::Ident:
        return identifier(t.pos);
      default:
        break;
    }
    return syntax_error(t, t.kind == Tok::End ? "mismatched input" : "extraneous input");
  }

  // A list of constants is built once here (`x in ['A', 'B']` is common in rules).
  ExprPtr list_literal(std::vector<ExprPtr> items, std::size_t pos) {
    bool constant = std::all_of(items.begin(), items.end(), [](const ExprPtr& e) { return e->kind == Expr::Kind::Literal; });
    if (!constant) return node(Expr::Kind::List, pos, std::move(items));
    std::vector<Value> values;
    for (const auto& e : items) values.push_back(e->literal);
    // The items stay as children: their string values are borrowed from them.
    ExprPtr e = node(Expr::Kind::Literal, pos, std::move(items));
    if (e) e->literal = Value::list(std::move(values));
    return e;
  }

  ExprPtr map_literal() {
    std::size_t pos = advance().pos;  // {
    std::vector<ExprPtr> entries;
    if (accept(Tok::RBrace)) return node(Expr::Kind::Map, pos, std::move(entries));
    while (true) {
      ExprPtr k = expr();
      if (!k || !expect(Tok::Colon, "':'")) return nullptr;
      ExprPtr v = expr();
      if (!v) return nullptr;
      entries.push_back(std::move(k));
      entries.push_back(std::move(v));
      if (accept(Tok::RBrace)) break;
      if (!expect(Tok::Comma, "','")) return nullptr;
      if (accept(Tok::RBrace)) break;
    }
    return node(Expr::Kind::Map, pos, std::move(entries));
  }

  // A variable or a global call; `start` is where it begins (its leading dot, if any),
  // where cel-go reports a reserved word.
  ExprPtr identifier(std::size_t start) {
    const Token& name = advance();
    if (reserved_identifier(name.raw)) return error_at(start, "reserved identifier: " + std::string(name.raw));
    if (peek().kind != Tok::LParen) {
      ExprPtr e = node(Expr::Kind::Ident, name.pos);
      if (e) e->name = std::string(name.raw);
      return e;
    }
    advance();  // (
    std::vector<ExprPtr> args;
    if (!arguments(args, Tok::RParen)) return nullptr;
    return call(std::string(name.raw), nullptr, std::move(args), name.pos);
  }

  // --- calls and macros --------------------------------------------------------------

  ExprPtr call(std::string name, ExprPtr target, std::vector<ExprPtr> args, std::size_t pos) {
    if (!target && name == "has") return has_macro(std::move(args), pos);
    if (target) {
      ExprPtr m = comprehension(name, target, args, pos);
      if (m || !ok()) return m;
      // optional.of(x), optional.none(), optional.ofNonZeroValue(x): namespaced globals.
      if (target->kind == Expr::Kind::Ident && target->name == "optional") {
        name = "optional." + name;
        target.reset();
      }
    }
    Builtin fn;
    if (!resolve_builtin(name, target != nullptr, args.size(), fn)) {
      return error_at(pos, "undeclared reference to '" + name + "' (in container '')");
    }
    bool method = target != nullptr;
    if (method) args.insert(args.begin(), std::move(target));
    ExprPtr e = node(Expr::Kind::Call, pos, std::move(args));
    if (!e) return nullptr;
    e->fn = fn;
    e->method = method;
    e->name = std::move(name);
    if (fn == Builtin::Matches && !compile_literal_regex(*e)) return nullptr;
    return e;
  }

  // matches() with a literal pattern: compiled once here; a bad pattern is a compile
  // error, as Kubernetes' CEL environment reports it when the CRD is written.
  bool compile_literal_regex(Expr& call) {
    const Expr& pattern = *call.args[1];
    if (pattern.kind != Expr::Kind::Literal || !pattern.literal.is(Kind::String)) return true;
    auto re = Regex::compile(pattern.literal.text());
    if (!re) {
      error_at(pattern.pos, re.error().message);
      return false;
    }
    call.regex = std::make_shared<const Regex>(std::move(*re));
    return true;
  }

  ExprPtr has_macro(std::vector<ExprPtr> args, std::size_t pos) {
    if (args.size() != 1 || args[0]->kind != Expr::Kind::Select) {
      return error_at(pos, "invalid argument to has() macro");
    }
    Expr& select = *args[0];
    std::vector<ExprPtr> operand;
    operand.push_back(std::move(select.args[0]));
    ExprPtr e = node(Expr::Kind::Has, pos, std::move(operand));
    if (!e) return nullptr;
    e->name = std::move(select.name);
    e->unescaped = std::move(select.unescaped);
    return e;
  }

  // x.all(v, p), x.exists(v, p), x.exists_one(v, p), x.map(v, f), x.map(v, p, f),
  // x.filter(v, p). Returns nullptr (and no error) when `name` is not a macro.
  ExprPtr comprehension(const std::string& name, ExprPtr& target, std::vector<ExprPtr>& args, std::size_t pos) {
    Macro macro;
    if (name == "all" && args.size() == 2) {
      macro = Macro::All;
    } else if (name == "exists" && args.size() == 2) {
      macro = Macro::Exists;
    } else if (name == "exists_one" && args.size() == 2) {
      macro = Macro::ExistsOne;
    } else if (name == "map" && args.size() == 2) {
      macro = Macro::Map;
    } else if (name == "map" && args.size() == 3) {
      macro = Macro::MapFilter;
    } else if (name == "filter" && args.size() == 2) {
      macro = Macro::Filter;
    } else {
      return nullptr;
    }
    if (args[0]->kind != Expr::Kind::Ident) return error_at(args[0]->pos, "argument is not an identifier");
    std::string var = args[0]->name;
    std::vector<ExprPtr> parts;
    parts.push_back(std::move(target));
    for (std::size_t i = 1; i < args.size(); ++i) parts.push_back(std::move(args[i]));
    ExprPtr e = node(Expr::Kind::Comprehension, pos, std::move(parts));
    if (!e) return nullptr;
    e->macro = macro;
    e->name = std::move(var);
    return e;
  }

  std::string_view src_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int nesting_ = 0;
  std::string error_;
};

}  // namespace

Expected<ExprPtr> parse(std::string_view source) {
  if (source.size() > kMaxSourceSize) {
    return fail("ERROR: <input>:1:1: expression code point size exceeds limit: size: " + std::to_string(source.size()) +
                ", limit " + std::to_string(kMaxSourceSize));
  }
  auto tokens = tokenize(source);
  if (!tokens) return fail(tokens.error().message);
  return Parser(source, std::move(*tokens)).run();
}

}  // namespace kueuepp::kube::schema::cel

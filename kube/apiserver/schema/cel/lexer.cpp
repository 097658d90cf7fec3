#include "kube/apiserver/schema/cel/lexer.hpp"

#include <cerrno>
#include <cstdlib>

#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema::cel {

std::string source_location(std::string_view source, std::size_t pos) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < pos && i < source.size(); ++i) {
    if (source[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "<input>:" + std::to_string(line) + ":" + std::to_string(column);
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// The characters cel-go's grammar allows between backquotes (ESC_IDENTIFIER).
bool is_escaped_ident_char(char c) { return is_ident_char(c) || c == '.' || c == '-' || c == '/' || c == ' '; }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    while (true) {
      skip_space();
      if (!error_.empty()) return fail(error_);
      Token t;
      t.pos = i_;
      if (i_ >= s_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      if (!next(t)) return fail(error_);
      t.raw = s_.substr(t.pos, i_ - t.pos);
      out.push_back(std::move(t));
    }
  }

 private:
  char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  bool error(std::size_t pos, std::string msg) {
    if (error_.empty()) error_ = "ERROR: " + source_location(s_, pos) + ": " + msg;
    return false;
  }

  void skip_space() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  bool next(Token& t) {
    char c = s_[i_];
    if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) return number(t);
    if (is_ident_start(c)) {
      // String prefixes: r, b, rb, br (any case) directly followed by a quote.
      std::size_t k = i_;
      bool raw = false, bytes = false;
      for (int n = 0; n < 2 && (at(k) == 'r' || at(k) == 'R' || at(k) == 'b' || at(k) == 'B'); ++n, ++k) {
        bool is_r = at(k) == 'r' || at(k) == 'R';
        if ((is_r && raw) || (!is_r && bytes)) break;
        (is_r ? raw : bytes) = true;
      }
      if (k > i_ && (at(k) == '\'' || at(k) == '"')) {
        i_ = k;
        return string_literal(t, raw, bytes);
      }
      return identifier(t);
    }
    if (c == '\'' || c == '"') return string_literal(t, false, false);
    if (c == '`' && escaped_identifier(t)) return true;
    return punctuation(t);
  }

  bool identifier(Token& t) {
    std::size_t start = i_;
    while (i_ < s_.size() && is_ident_char(s_[i_])) ++i_;
    std::string_view w = s_.substr(start, i_ - start);
    if (w == "true") {
      t.kind = Tok::True;
    } else if (w == "false") {
      t.kind = Tok::False;
    } else if (w == "null") {
      t.kind = Tok::Null;
    } else if (w == "in") {
      t.kind = Tok::In;
    } else {
      t.kind = Tok::Ident;
    }
    return true;
  }

  // `name` as cel-go lexes it; whether the parser accepts it is the parser's business.
  bool escaped_identifier(Token& t) {
    std::size_t k = i_ + 1;
    while (k < s_.size() && is_escaped_ident_char(s_[k])) ++k;
    if (k == i_ + 1 || at(k) != '`') return false;
    t.kind = Tok::EscIdent;
    t.text = std::string(s_.substr(i_ + 1, k - i_ - 1));
    i_ = k + 1;
    return true;
  }

  bool number(Token& t) {
    std::size_t start = i_;
    if (s_[i_] == '0' && (at(i_ + 1) == 'x' || at(i_ + 1) == 'X') && is_hex(at(i_ + 2))) {
      i_ += 2;
      std::uint64_t v = 0;
      bool overflow = false;
      while (i_ < s_.size() && is_hex(s_[i_])) {
        if (v > (UINT64_MAX >> 4)) overflow = true;
        v = (v << 4) | static_cast<std::uint64_t>(hex_value(s_[i_++]));
      }
      return integer_suffix(t, start, v, overflow);
    }
    bool is_double = false;
    while (is_digit(at(i_))) ++i_;
    if (at(i_) == '.' && is_digit(at(i_ + 1))) {
      is_double = true;
      ++i_;
      while (is_digit(at(i_))) ++i_;
    }
    if ((at(i_) == 'e' || at(i_) == 'E') &&
        (is_digit(at(i_ + 1)) || ((at(i_ + 1) == '+' || at(i_ + 1) == '-') && is_digit(at(i_ + 2))))) {
      is_double = true;
      i_ += 2;
      while (is_digit(at(i_))) ++i_;
    }
    if (is_double) {
      std::string text(s_.substr(start, i_ - start));
      t.kind = Tok::Double;
      t.d = std::strtod(text.c_str(), nullptr);
      return true;
    }
    std::uint64_t v = 0;
    bool overflow = false;
    for (std::size_t k = start; k < i_; ++k) {
      std::uint64_t digit = static_cast<std::uint64_t>(s_[k] - '0');
      if (v > (UINT64_MAX - digit) / 10) overflow = true;
      v = v * 10 + digit;
    }
    return integer_suffix(t, start, v, overflow);
  }

  bool integer_suffix(Token& t, std::size_t start, std::uint64_t v, bool overflow) {
    t.kind = Tok::Int;
    if (at(i_) == 'u' || at(i_) == 'U') {
      ++i_;
      t.kind = Tok::Uint;
    }
    if (overflow) return error(start, "invalid int literal");
    t.u = v;
    return true;
  }

  bool escape(std::string& out, bool bytes, std::size_t quote_pos) {
    std::size_t start = i_;
    ++i_;  // backslash
    char c = at(i_++);
    switch (c) {
      case 'a': out += '\a'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'v': out += '\v'; return true;
      case '\\': out += '\\'; return true;
      case '\'': out += '\''; return true;
      case '"': out += '"'; return true;
      case '`': out += '`'; return true;
      case '?': out += '?'; return true;
      case 'x':
      case 'X':
      case 'u':
      case 'U': {
        int n = (c == 'x' || c == 'X') ? 2 : (c == 'u' ? 4 : 8);
        if (bytes && (c == 'u' || c == 'U')) break;
        std::uint32_t v = 0;
        for (int k = 0; k < n; ++k) {
          if (!is_hex(at(i_))) return error(start, "invalid escape sequence");
          v = v * 16 + static_cast<std::uint32_t>(hex_value(s_[i_++]));
        }
        if (bytes) {
          out += static_cast<char>(v);
        } else {
          if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return error(start, "invalid unicode code point");
          utf8::append(out, v);
        }
        return true;
      }
      case '0': case '1': case '2': case '3': {
        std::uint32_t v = static_cast<std::uint32_t>(c - '0');
        for (int k = 0; k < 2; ++k) {
          if (at(i_) < '0' || at(i_) > '7') return error(start, "invalid octal escape");
          v = v * 8 + static_cast<std::uint32_t>(s_[i_++] - '0');
        }
        if (bytes) {
          out += static_cast<char>(v);
        } else {
          utf8::append(out, v);
        }
        return true;
      }
      default:
        break;
    }
    (void)quote_pos;
    return error(start, "invalid escape sequence");
  }

  bool string_literal(Token& t, bool raw, bool bytes) {
    std::size_t start = t.pos;
    char q = s_[i_];
    bool triple = at(i_ + 1) == q && at(i_ + 2) == q;
    i_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) return error(start, "unterminated string literal");
      char c = s_[i_];
      if (c == q && (!triple || (at(i_ + 1) == q && at(i_ + 2) == q))) {
        i_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) return error(start, "unterminated string literal");
      if (c == '\\' && !raw) {
        if (!escape(out, bytes, start)) return false;
        continue;
      }
      out += c;
      ++i_;
    }
    t.kind = bytes ? Tok::Bytes : Tok::String;
    t.text = std::move(out);
    return true;
  }

  bool punctuation(Token& t) {
    char c = s_[i_];
    char n = at(i_ + 1);
    auto two = [&](Tok k) {
      t.kind = k;
      i_ += 2;
      return true;
    };
    auto one = [&](Tok k) {
      t.kind = k;
      i_ += 1;
      return true;
    };
    switch (c) {
      case '=': if (n == '=') return two(Tok::EqEq); break;
      case '!': return n == '=' ? two(Tok::NotEq) : one(Tok::Not);
      case '<': return n == '=' ? two(Tok::LessEq) : one(Tok::Less);
      case '>': return n == '=' ? two(Tok::GreaterEq) : one(Tok::Greater);
      case '&': if (n == '&') return two(Tok::AndAnd); break;
      case '|': if (n == '|') return two(Tok::OrOr); break;
      case '+': return one(Tok::Plus);
      case '-': return one(Tok::Minus);
      case '*': return one(Tok::Star);
      case '/': return one(Tok::Slash);
      case '%': return one(Tok::Percent);
      case '?': return one(Tok::Question);
      case ':': return one(Tok::Colon);
      case '.': return one(Tok::Dot);
      case ',': return one(Tok::Comma);
      case '[': return one(Tok::LBracket);
      case ']': return one(Tok::RBracket);
      case '(': return one(Tok::LParen);
      case ')': return one(Tok::RParen);
      case '{': return one(Tok::LBrace);
      case '}': return one(Tok::RBrace);
      default: break;
    }
    return error(i_, "Syntax error: token recognition error at: '" + std::string(1, c) + "'");
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

}  // namespace

Expected<std::vector<Token>> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace kueuepp::kube::schema::cel

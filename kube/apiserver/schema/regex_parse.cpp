// RE2 pattern -> syntax tree. Errors use Go's regexp/syntax wording so a CRD author sees
// the same text kube-apiserver would print.

#include <algorithm>
#include <memory>

#include "kube/apiserver/schema/regex_syntax.hpp"
#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema::regex_syntax {
namespace {

constexpr int kMaxRepeat = 1000;   // RE2's limit on {n,m}
constexpr int kMaxNesting = 200;   // parenthesis depth; bounds parser recursion
constexpr char32_t kMaxRune = 0x10FFFF;

struct Flags {
  bool fold = false;       // (?i)
  bool dot_nl = false;     // (?s)
  bool multi_line = false; // (?m)
};

Node make(Node::Kind k) { return Node{k, {}, {}, 0, 0, Regex::Assertion::BeginText}; }

// Sorts and merges overlapping or adjacent ranges.
void normalize(Ranges& r) {
  std::sort(r.begin(), r.end(), [](auto a, auto b) { return a.lo < b.lo; });
  Ranges out;
  for (auto x : r) {
    if (!out.empty() && x.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, x.hi);
    } else {
      out.push_back(x);
    }
  }
  r = std::move(out);
}

Ranges complement(Ranges r) {
  normalize(r);
  Ranges out;
  char32_t next = 0;
  for (auto x : r) {
    if (x.lo > next) out.push_back({next, x.lo - 1});
    next = x.hi + 1;
  }
  if (next <= kMaxRune) out.push_back({next, kMaxRune});
  return out;
}

// ASCII case folding: adds the other case of every letter the ranges cover.
void add_fold(Ranges& r) {
  Ranges extra;
  for (auto x : r) {
    char32_t lo = std::max<char32_t>(x.lo, 'a');
    char32_t hi = std::min<char32_t>(x.hi, 'z');
    if (lo <= hi) extra.push_back({lo - 32, hi - 32});
    lo = std::max<char32_t>(x.lo, 'A');
    hi = std::min<char32_t>(x.hi, 'Z');
    if (lo <= hi) extra.push_back({lo + 32, hi + 32});
  }
  r.insert(r.end(), extra.begin(), extra.end());
}

const Ranges kDigit = {{'0', '9'}};
const Ranges kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
const Ranges kSpace = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};

// POSIX classes RE2 accepts inside brackets: [[:alpha:]].
bool posix_class(std::string_view name, Ranges& out) {
  struct Entry {
    std::string_view name;
    Ranges ranges;
  };
  static const Entry table[] = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  for (const auto& e : table) {
    if (e.name == name) {
      out = e.ranges;
      return true;
    }
  }
  return false;
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
bool is_alnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  Expected<Node> parse() {
    Flags flags;
    Node n = alternation(flags, 0);
    if (!error_.empty()) return fail(error_);
    if (pos_ < p_.size()) return fail(err("unexpected )", p_));
    return n;
  }

 private:
  std::string err(std::string_view what, std::string_view arg) {
    return "error parsing regexp: " + std::string(what) + ": `" + std::string(arg) + "`";
  }
  void set_error(std::string e) {
    if (error_.empty()) error_ = std::move(e);
  }
  bool ok() const { return error_.empty(); }
  bool at_end() const { return pos_ >= p_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : '\0';
  }

  char32_t next_rune() {
    auto [r, w] = utf8::decode(p_.substr(pos_));
    pos_ += w;
    return r;
  }

  Node literal(char32_t r, const Flags& f) {
    Node n = make(Node::Kind::Class);
    n.ranges = {{r, r}};
    if (f.fold) add_fold(n.ranges);
    normalize(n.ranges);
    return n;
  }

  Node alternation(Flags& flags, int depth) {
    std::vector<Node> alts;
    alts.push_back(concatenation(flags, depth));
    while (ok() && peek() == '|' && !at_end()) {
      ++pos_;
      alts.push_back(concatenation(flags, depth));
    }
    if (alts.size() == 1) return std::move(alts[0]);
    Node n = make(Node::Kind::Alternate);
    n.children = std::move(alts);
    return n;
  }

  Node concatenation(Flags& flags, int depth) {
    Node n = make(Node::Kind::Concat);
    while (ok() && !at_end() && peek() != '|' && peek() != ')') {
      std::size_t start = pos_;
      flag_only_ = false;
      Node atom_node = atom(flags, depth);
      if (!ok()) break;
      bool repeated = false;
      while (ok() && !at_end()) {
        std::size_t qstart = pos_;
        int min = 0, max = 0;
        if (!quantifier(min, max)) break;
        if (repeated) {
          set_error(err("invalid nested repetition operator", p_.substr(start, pos_ - start)));
          break;
        }
        if (flag_only_) {
          set_error(err("missing argument to repetition operator", p_.substr(qstart, pos_ - qstart)));
          break;
        }
        repeated = true;
        Node r = make(Node::Kind::Repeat);
        r.min = min;
        r.max = max;
        r.children.push_back(std::move(atom_node));
        atom_node = std::move(r);
      }
      n.children.push_back(std::move(atom_node));
    }
    return n;
  }

  // Parses `{n}`, `{n,}`, `{n,m}` at pos_; false (pos_ unchanged) when it is not one.
  bool counted(int& min, int& max) {
    std::size_t i = pos_ + 1;
    auto number = [&](int& out) {
      std::size_t s = i;
      long v = 0;
      while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9') {
        v = std::min<long>(v * 10 + (p_[i] - '0'), 100000);
        ++i;
      }
      out = static_cast<int>(v);
      return i > s;
    };
    if (!number(min)) return false;
    max = min;
    if (i < p_.size() && p_[i] == ',') {
      ++i;
      max = -1;
      if (i < p_.size() && p_[i] != '}' && !number(max)) return false;
    }
    if (i >= p_.size() || p_[i] != '}') return false;
    std::size_t start = pos_;
    pos_ = i + 1;
    if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min)) {
      set_error(err("invalid repeat count", p_.substr(start, pos_ - start)));
    }
    return true;
  }

  bool quantifier(int& min, int& max) {
    char c = peek();
    if (c == '*') {
      min = 0, max = -1, ++pos_;
    } else if (c == '+') {
      min = 1, max = -1, ++pos_;
    } else if (c == '?') {
      min = 0, max = 1, ++pos_;
    } else if (c == '{') {
      if (!counted(min, max)) return false;
    } else {
      return false;
    }
    if (peek() == '?' && !at_end()) ++pos_;  // lazy: same language
    return true;
  }

  Node atom(Flags& flags, int depth) {
    char c = peek();
    switch (c) {
      case '(':
        return group(flags, depth);
      case '[':
        return char_class(flags);
      case '.': {
        ++pos_;
        return make(flags.dot_nl ? Node::Kind::Any : Node::Kind::AnyNotNewline);
      }
      case '^': {
        ++pos_;
        Node n = make(Node::Kind::Assert);
        n.assertion = flags.multi_line ? Regex::Assertion::BeginLine : Regex::Assertion::BeginText;
        return n;
      }
      case '$': {
        ++pos_;
        Node n = make(Node::Kind::Assert);
        n.assertion = flags.multi_line ? Regex::Assertion::EndLine : Regex::Assertion::EndText;
        return n;
      }
      case '\\':
        return escape(flags);
      case '*':
      case '+':
      case '?':
        set_error(err("missing argument to repetition operator", p_.substr(pos_, 1)));
        return make(Node::Kind::Empty);
      case '{': {
        int min = 0, max = 0;
        std::size_t start = pos_;
        if (counted(min, max)) {
          set_error(err("missing argument to repetition operator", p_.substr(start, pos_ - start)));
          return make(Node::Kind::Empty);
        }
        ++pos_;
        return literal('{', flags);
      }
      default:
        return literal(next_rune(), flags);
    }
  }

  // Parses flags after "(?" up to ')' or ':'. Returns false on a malformed flag group.
  bool flag_group(Flags& f, bool& scoped) {
    bool negate = false, seen = false;
    while (!at_end()) {
      char c = p_[pos_++];
      switch (c) {
        case 'i': f.fold = !negate; seen = true; break;
        case 's': f.dot_nl = !negate; seen = true; break;
        case 'm': f.multi_line = !negate; seen = true; break;
        case 'U': seen = true; break;  // ungreedy: irrelevant for a yes/no match
        case '-':
          if (negate) return false;
          negate = true;
          seen = false;
          break;
        case ':':
        case ')':
          if (negate && !seen) return false;
          scoped = c == ':';
          return true;
        default:
          return false;
      }
    }
    return false;
  }

  Node group(Flags& flags, int depth) {
    std::size_t start = pos_;
    ++pos_;  // (
    if (depth >= kMaxNesting) {
      set_error(err("expression nests too deeply", p_.substr(start)));
      return make(Node::Kind::Empty);
    }
    Flags inner = flags;
    if (peek() == '?') {
      ++pos_;
      if (peek() == 'P' || peek() == '<') {
        if (peek() == 'P') ++pos_;
        if (peek() != '<') {
          set_error(err("invalid or unsupported Perl syntax", p_.substr(start, pos_ - start + 1)));
          return make(Node::Kind::Empty);
        }
        std::size_t close = p_.find('>', pos_);
        std::string_view name =
            close == std::string_view::npos ? std::string_view{} : p_.substr(pos_ + 1, close - pos_ - 1);
        bool valid = !name.empty();
        for (char ch : name) valid = valid && (is_alnum(static_cast<unsigned char>(ch)) || ch == '_');
        if (!valid) {
          // Go quotes the capture up to its '>' ("(?P<>"), or the rest when unclosed.
          set_error(err("invalid named capture",
                        close == std::string_view::npos ? p_.substr(start) : p_.substr(start, close + 1 - start)));
          return make(Node::Kind::Empty);
        }
        pos_ = close + 1;
      } else {
        bool scoped = false;
        Flags changed = flags;
        if (!flag_group(changed, scoped)) {
          set_error(err("invalid or unsupported Perl syntax", p_.substr(start, pos_ - start)));
          return make(Node::Kind::Empty);
        }
        if (!scoped) {  // (?i): applies to the rest of the enclosing group
          flags = changed;
          flag_only_ = true;
          return make(Node::Kind::Empty);
        }
        inner = changed;
      }
    }
    Node body = alternation(inner, depth + 1);
    if (!ok()) return body;
    if (peek() != ')' || at_end()) {
      set_error(err("missing closing )", p_.substr(start)));
      return body;
    }
    ++pos_;
    return body;
  }

  // Escapes valid both inside and outside classes. Returns false when `\c` is none.
  bool perl_class(char c, Ranges& out) {
    switch (c) {
      case 'd': out = kDigit; return true;
      case 'D': out = complement(kDigit); return true;
      case 'w': out = kWord; return true;
      case 'W': out = complement(kWord); return true;
      case 's': out = kSpace; return true;
      case 'S': out = complement(kSpace); return true;
      default: return false;
    }
  }

  // A single-rune escape after the backslash (pos_ at the escaped char).
  bool escaped_rune(char32_t& out) {
    std::size_t start = pos_ - 1;
    char c = peek();
    ++pos_;
    switch (c) {
      case 'a': out = 7; return true;
      case 'f': out = '\f'; return true;
      case 't': out = '\t'; return true;
      case 'n': out = '\n'; return true;
      case 'r': out = '\r'; return true;
      case 'v': out = '\v'; return true;
      case 'x': {
        if (peek() == '{') {
          std::size_t i = pos_ + 1;
          std::uint32_t v = 0;
          while (i < p_.size() && is_hex(p_[i]) && v <= kMaxRune) v = v * 16 + hex_value(p_[i++]);
          if (i == pos_ + 1 || i >= p_.size() || p_[i] != '}' || v > kMaxRune) break;
          pos_ = i + 1;
          out = v;
          return true;
        }
        if (is_hex(peek()) && is_hex(peek(1))) {
          out = static_cast<char32_t>(hex_value(peek()) * 16 + hex_value(peek(1)));
          pos_ += 2;
          return true;
        }
        break;
      }
      case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        // A lone non-zero digit is a backreference, which RE2 does not support.
        if (peek() < '0' || peek() > '7') break;
        [[fallthrough]];
      case '0': {
        std::uint32_t v = static_cast<std::uint32_t>(c - '0');
        for (int k = 0; k < 2 && peek() >= '0' && peek() <= '7' && !at_end(); ++k) v = v * 8 + (p_[pos_++] - '0');
        out = v;
        return true;
      }
      default:
        if (c != '\0' && static_cast<unsigned char>(c) < 0x80 && !is_alnum(static_cast<unsigned char>(c))) {
          out = static_cast<unsigned char>(c);
          return true;
        }
        break;
    }
    pos_ = std::min(pos_, p_.size());
    set_error(err("invalid escape sequence", p_.substr(start, std::min<std::size_t>(2, p_.size() - start))));
    return false;
  }

  Node escape(const Flags& flags) {
    std::size_t start = pos_;
    ++pos_;  // backslash
    if (at_end()) {
      set_error(err("trailing backslash at end of expression", ""));
      return make(Node::Kind::Empty);
    }
    char c = peek();
    Ranges r;
    if (perl_class(c, r)) {
      ++pos_;
      Node n = make(Node::Kind::Class);
      n.ranges = std::move(r);
      normalize(n.ranges);
      return n;
    }
    auto assertion = [&](Regex::Assertion a) {
      ++pos_;
      Node n = make(Node::Kind::Assert);
      n.assertion = a;
      return n;
    };
    switch (c) {
      case 'A': return assertion(Regex::Assertion::BeginText);
      case 'z': return assertion(Regex::Assertion::EndText);
      case 'b': return assertion(Regex::Assertion::WordBoundary);
      case 'B': return assertion(Regex::Assertion::NotWordBoundary);
      case 'Q': {
        ++pos_;
        std::size_t end = p_.find("\\E", pos_);
        std::string_view lit = p_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
        pos_ = end == std::string_view::npos ? p_.size() : end + 2;
        Node n = make(Node::Kind::Concat);
        for (std::size_t i = 0; i < lit.size();) {
          auto [rune, w] = utf8::decode(lit.substr(i));
          i += w;
          n.children.push_back(literal(rune, flags));
        }
        return n;
      }
      case 'p':
      case 'P':
        set_error(err("invalid character class range", p_.substr(start, 2)));
        return make(Node::Kind::Empty);
      default:
        break;
    }
    char32_t rune = 0;
    if (!escaped_rune(rune)) return make(Node::Kind::Empty);
    return literal(rune, flags);
  }

  // One endpoint of a class range; false on error.
  bool class_rune(char32_t& out) {
    if (peek() == '\\') {
      ++pos_;
      if (at_end()) {
        set_error(err("trailing backslash at end of expression", ""));
        return false;
      }
      return escaped_rune(out);
    }
    out = next_rune();
    return true;
  }

  Node char_class(const Flags& flags) {
    std::size_t start = pos_;
    ++pos_;  // [
    bool negate = false;
    if (peek() == '^') {
      negate = true;
      ++pos_;
    }
    Ranges ranges;
    bool first = true;
    while (true) {
      if (at_end()) {
        set_error(err("missing closing ]", p_.substr(start)));
        return make(Node::Kind::Empty);
      }
      char c = peek();
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (c == '[' && peek(1) == ':') {
        std::size_t close = p_.find(":]", pos_ + 2);
        if (close != std::string_view::npos) {
          std::string_view name = p_.substr(pos_ + 2, close - pos_ - 2);
          bool neg = !name.empty() && name[0] == '^';
          if (neg) name.remove_prefix(1);
          Ranges r;
          if (!posix_class(name, r)) {
            set_error(err("invalid character class range", p_.substr(pos_, close + 2 - pos_)));
            return make(Node::Kind::Empty);
          }
          if (neg) r = complement(r);
          ranges.insert(ranges.end(), r.begin(), r.end());
          pos_ = close + 2;
          continue;
        }
      }
      if (c == '\\') {
        Ranges r;
        if (perl_class(peek(1), r)) {
          pos_ += 2;
          ranges.insert(ranges.end(), r.begin(), r.end());
          continue;
        }
      }
      std::size_t item = pos_;
      char32_t lo = 0;
      if (!class_rune(lo)) return make(Node::Kind::Empty);
      char32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < p_.size()) {
        ++pos_;
        if (!class_rune(hi)) return make(Node::Kind::Empty);
        if (hi < lo) {
          set_error(err("invalid character class range", p_.substr(item, pos_ - item)));
          return make(Node::Kind::Empty);
        }
      }
      ranges.push_back({lo, hi});
    }
    if (flags.fold) add_fold(ranges);
    if (negate) {
      ranges = complement(std::move(ranges));
    } else {
      normalize(ranges);
    }
    Node n = make(Node::Kind::Class);
    n.ranges = std::move(ranges);
    return n;
  }

  std::string_view p_;
  std::size_t pos_ = 0;
  std::string error_;
  bool flag_only_ = false;  // the last atom was a bare flag group such as (?i)
};

}  // namespace

Expected<Node> parse(std::string_view pattern) { return Parser(pattern).parse(); }

}  // namespace kueuepp::kube::schema::regex_syntax

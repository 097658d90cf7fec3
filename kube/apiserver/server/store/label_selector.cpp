#include "kube/apiserver/server/store/label_selector.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

/// A small tokenizer over the selector text.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }
  bool done() {
    skip_space();
    return pos_ >= text_.size();
  }
  bool peek(std::string_view token) {
    skip_space();
    return text_.substr(pos_, token.size()) == token;
  }
  bool consume(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  /// A word: everything up to whitespace or one of the operator characters.
  std::string_view word() {
    skip_space();
    std::size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == ',' || c == '=' || c == '!' ||
          c == '(' || c == ')' || c == '<' || c == '>') {
        break;
      }
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  /// The next word without consuming it.
  std::string_view peek_word() {
    std::size_t saved = pos_;
    std::string_view w = word();
    pos_ = saved;
    return w;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Unexpected<Error> parse_error(std::string_view what) {
  return fail(fmt::format("unable to parse requirement: {}", what));
}

Status check_key(std::string_view key) {
  if (key.empty()) return parse_error("found '', expected: identifier");
  auto problems = qualified_name_problems(key);
  if (!problems.empty()) return parse_error(fmt::format("key: Invalid value: \"{}\": {}", key, problems.front()));
  return {};
}

Status check_value(std::string_view value) {
  auto problems = label_value_problems(value);
  if (!problems.empty()) {
    return parse_error(fmt::format("values[0]: Invalid value: \"{}\": {}", value, problems.front()));
  }
  return {};
}

Expected<std::vector<std::string>> parse_set(Lexer& lex) {
  if (!lex.consume("(")) return parse_error(fmt::format("found '{}', expected: '('", lex.peek_word()));
  std::vector<std::string> values;
  if (lex.consume(")")) return values;
  // kube-apiserver looks for a value, a comma or ")" after "(".
  if (lex.done()) return parse_error("found '', expected: ',', ')' or identifier");
  while (true) {
    std::string_view v = lex.word();
    if (auto st = check_value(v); !st) return unexpected(st.error());
    values.emplace_back(v);
    if (lex.consume(")")) return values;
    if (!lex.consume(",")) return parse_error(fmt::format("found '{}', expected: ',' or ')'", lex.peek_word()));
  }
}

Expected<LabelSelector::Requirement> parse_requirement(Lexer& lex) {
  LabelSelector::Requirement r;
  if (lex.consume("!")) {
    r.key = std::string(lex.word());
    if (auto st = check_key(r.key); !st) return unexpected(st.error());
    r.op = LabelSelector::Op::DoesNotExist;
    return r;
  }
  r.key = std::string(lex.word());
  if (auto st = check_key(r.key); !st) return unexpected(st.error());
  if (lex.done() || lex.peek(",")) {
    r.op = LabelSelector::Op::Exists;
    return r;
  }
  if (lex.consume("==") || lex.consume("=")) {
    r.op = LabelSelector::Op::Equals;
  } else if (lex.consume("!=")) {
    r.op = LabelSelector::Op::NotEquals;
  } else if (lex.consume(">")) {
    r.op = LabelSelector::Op::GreaterThan;
  } else if (lex.consume("<")) {
    r.op = LabelSelector::Op::LessThan;
  } else {
    std::string_view w = lex.word();
    if (w == "in") {
      r.op = LabelSelector::Op::In;
    } else if (w == "notin") {
      r.op = LabelSelector::Op::NotIn;
    } else {
      return parse_error(fmt::format("found '{}', expected: in, notin, =, ==, !=, gt, lt", w));
    }
    auto set = parse_set(lex);
    if (!set) return unexpected(set.error());
    r.values = std::move(*set);
    return r;
  }
  std::string_view v = lex.word();
  if (r.op == LabelSelector::Op::GreaterThan || r.op == LabelSelector::Op::LessThan) {
    long long n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size()) {
      return parse_error(fmt::format("for 'Gt', 'Lt' operators, the value must be an integer"));
    }
  } else if (auto st = check_value(v); !st) {
    return unexpected(st.error());
  }
  r.values.emplace_back(v);
  return r;
}

}  // namespace

Expected<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector sel;
  Lexer lex(text);
  if (lex.done()) return sel;
  while (true) {
    auto r = parse_requirement(lex);
    if (!r) return unexpected(r.error());
    sel.requirements_.push_back(std::move(*r));
    if (lex.done()) break;
    if (!lex.consume(",")) {
      return parse_error(fmt::format("found '{}', expected: ',' or 'end of string'", lex.peek_word()));
    }
    if (lex.done()) return parse_error("found '', expected: identifier");
  }
  return sel;
}

bool LabelSelector::matches(const json::value* labels) const {
  const json::object* map = labels != nullptr ? labels->if_object() : nullptr;
  for (const auto& r : requirements_) {
    const json::value* v = map != nullptr ? map->if_contains(r.key) : nullptr;
    std::string_view value;
    bool present = v != nullptr && v->is_string();
    if (present) value = v->get_string();
    auto in_values = [&] {
      return std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    };
    switch (r.op) {
      case Op::Equals:
      case Op::In:
        if (!present || !in_values()) return false;
        break;
      case Op::NotEquals:
      case Op::NotIn:
        if (present && in_values()) return false;
        break;
      case Op::Exists:
        if (!present) return false;
        break;
      case Op::DoesNotExist:
        if (present) return false;
        break;
      case Op::GreaterThan:
      case Op::LessThan: {
        if (!present) return false;
        long long have = 0;
        long long want = 0;
        auto [p1, e1] = std::from_chars(value.data(), value.data() + value.size(), have);
        std::from_chars(r.values[0].data(), r.values[0].data() + r.values[0].size(), want);
        if (e1 != std::errc() || p1 != value.data() + value.size()) return false;
        if (r.op == Op::GreaterThan ? !(have > want) : !(have < want)) return false;
        break;
      }
    }
  }
  return true;
}

}  // namespace kueuepp::kube::server

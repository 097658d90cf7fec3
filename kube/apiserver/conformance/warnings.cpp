#include "kube/apiserver/conformance/warnings.hpp"

#include "kube/apiserver/conformance/subset_match.hpp"
#include "kube/apiserver/conformance/token_pattern.hpp"

namespace kueuepp::kube::conformance {

namespace {

void skip_spaces(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// A quoted-string at the front of `s`, unescaped; nullopt if there is none.
std::optional<std::string> quoted(std::string_view& s) {
  if (s.empty() || s.front() != '"') return std::nullopt;
  std::string out;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out.push_back(s[++i]);
    } else if (s[i] == '"') {
      s.remove_prefix(i + 1);
      return out;
    } else {
      out.push_back(s[i]);
    }
  }
  return std::nullopt;
}

// warn-code SP warn-agent SP warn-text [SP warn-date]
std::optional<std::string> one_warning(std::string_view& s) {
  skip_spaces(s);
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  skip_spaces(s);
  i = 0;
  while (i < s.size() && s[i] != ' ') ++i;
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  skip_spaces(s);
  auto text = quoted(s);
  if (!text) return std::nullopt;
  skip_spaces(s);
  if (!s.empty() && s.front() == '"' && !quoted(s)) return std::nullopt;  // the date
  return text;
}

}  // namespace

std::vector<std::string> parse_warning_header(std::string_view value) {
  std::vector<std::string> texts;
  std::string_view rest = value;
  while (true) {
    auto text = one_warning(rest);
    if (!text) return {std::string(value)};
    texts.push_back(std::move(*text));
    skip_spaces(rest);
    if (rest.empty()) return texts;
    if (rest.front() != ',') return {std::string(value)};
    rest.remove_prefix(1);
  }
}

std::optional<std::string> match_warnings(const std::vector<std::string>& recorded,
                                          const std::vector<std::string>& actual) {
  std::vector<std::vector<char>> ok(recorded.size(), std::vector<char>(actual.size(), 0));
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    for (std::size_t j = 0; j < actual.size(); ++j) ok[i][j] = string_matches(recorded[i], actual[j]);
  }
  const auto missing = unmatched_left(recorded.size(), actual.size(), ok);
  if (!missing) return std::nullopt;
  std::string got;
  for (const std::string& a : actual) got += (got.empty() ? "" : ", ") + ("\"" + a + "\"");
  return "warning \"" + recorded[*missing] + "\" not found among the actual warnings [" + got + "]";
}

}  // namespace kueuepp::kube::conformance

#include "kube/apiserver/conformance/token_pattern.hpp"

#include <array>
#include <string>
#include <vector>

namespace kueuepp::kube::conformance {

namespace {

constexpr std::array<std::string_view, 5> kTokens = {"<uid>", "<rv>", "<time>", "<continue>",
                                                     "<generated>"};

// The token starting at `pos`, or empty.
std::string_view token_at(std::string_view text, std::size_t pos) {
  for (std::string_view token : kTokens) {
    if (text.substr(pos, token.size()) == token) return token;
  }
  return {};
}

// A pattern as a sequence of literal characters and wildcards (one or more chars).
struct Part {
  bool wildcard = false;
  char literal = 0;
};

std::vector<Part> compile(std::string_view recorded) {
  std::vector<Part> parts;
  for (std::size_t i = 0; i < recorded.size();) {
    const std::string_view token = token_at(recorded, i);
    if (!token.empty()) {
      parts.push_back({true, 0});
      i += token.size();
    } else {
      parts.push_back({false, recorded[i]});
      ++i;
    }
  }
  return parts;
}

}  // namespace

bool has_token(std::string_view recorded) {
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    if (recorded[i] == '<' && !token_at(recorded, i).empty()) return true;
  }
  return false;
}

bool string_matches(std::string_view recorded, std::string_view actual) {
  if (recorded == actual) return true;
  if (!has_token(recorded)) return false;
  const std::vector<Part> parts = compile(recorded);
  // reachable[j]: the parts consumed so far can match exactly actual[0, j).
  std::vector<char> reachable(actual.size() + 1, 0);
  reachable[0] = 1;
  for (const Part& part : parts) {
    std::vector<char> next(actual.size() + 1, 0);
    if (part.wildcard) {
      // one or more characters: next[j] if reachable[k] for some k < j
      bool any = false;
      for (std::size_t j = 0; j <= actual.size(); ++j) {
        if (any) next[j] = 1;
        if (reachable[j]) any = true;
      }
    } else {
      for (std::size_t j = 0; j < actual.size(); ++j) {
        if (reachable[j] && actual[j] == part.literal) next[j + 1] = 1;
      }
    }
    reachable.swap(next);
  }
  return reachable[actual.size()] != 0;
}

}  // namespace kueuepp::kube::conformance

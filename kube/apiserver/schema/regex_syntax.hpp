#pragma once

// The syntax tree of an RE2 pattern (internal to kube/apiserver/schema): regex_parse.cpp builds it,
// regex_compile.cpp turns it into the NFA program.

#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/schema/regex.hpp"

namespace kueuepp::kube::schema::regex_syntax {

using Ranges = std::vector<Regex::Range>;

struct Node {
  enum class Kind { Empty, Class, Any, AnyNotNewline, Concat, Alternate, Repeat, Assert } kind;
  Ranges ranges;  ///< Class: sorted, merged code point ranges
  std::vector<Node> children;
  int min = 0;
  int max = 0;  ///< Repeat: -1 for unbounded
  Regex::Assertion assertion = Regex::Assertion::BeginText;
};

/// Parses an RE2 pattern; the error reads like Go's `error parsing regexp: ...`.
Expected<Node> parse(std::string_view pattern);

}  // namespace kueuepp::kube::schema::regex_syntax

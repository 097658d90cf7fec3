#pragma once

// Regular expressions in the RE2 dialect, the one Go's regexp package (and therefore
// kube-apiserver's OpenAPI `pattern` check and CEL's `matches`) speaks. std::regex is not
// used: it recurses once per input character (a long string overflows the stack) and its
// ECMAScript grammar lacks RE2's inline flags such as `(?i)`.
//
// Matching never backtracks. Patterns whose only assertions are \A/^ and \z/$ (all of
// the CRD patterns) are also compiled into a DFA over ASCII at compile time: one table
// lookup per byte. Non-ASCII input, other assertions and patterns whose DFA would be
// too large run the NFA simulation (a Pike VM without captures): O(pattern x text) time,
// O(pattern) memory. Compiled regexes are immutable, so sharing them across threads is safe.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::schema {

class Regex {
 public:
  /// Compiles an RE2 pattern. Supported: literals and escapes (`\d \w \s \D \W \S \n \t
  /// \x41 \x{263a} \Q...\E`, escaped punctuation), `.`, classes `[a-z]`, `[^...]`,
  /// `[[:alpha:]]`, groups `(...)`, `(?:...)`, `(?P<n>...)`, `(?<n>...)`, flags `(?i)`,
  /// `(?s)`, `(?m)`, `(?U)`, `(?i:...)`, alternation, `* + ? {n} {n,} {n,m}` (and lazy
  /// forms), anchors `^ $ \A \z \b \B`. Case folding is ASCII only. The error text
  /// follows Go's `error parsing regexp: ...` wording.
  /// `build_dfa` false skips the DFA (for patterns compiled at evaluation time and used
  /// once: building it would cost more than it saves).
  static Expected<Regex> compile(std::string_view pattern, bool build_dfa = true);

  /// Whether the pattern matches anywhere in `text` (Go's MatchString).
  bool search(std::string_view text) const;

  const std::string& source() const { return source_; }

  /// Instruction count of the compiled program (tests and cost accounting).
  std::size_t program_size() const { return program_.size(); }
  /// Whether ASCII input is matched by the DFA (tests).
  bool has_dfa() const { return !dfa_.empty(); }

  enum class Op : std::uint8_t { Class, Any, AnyNotNewline, Split, Jump, Assert, Match };
  enum class Assertion : std::uint8_t {
    BeginText,
    EndText,
    BeginLine,
    EndLine,
    WordBoundary,
    NotWordBoundary,
  };
  struct Range {
    char32_t lo;
    char32_t hi;
  };
  struct Inst {
    Op op = Op::Match;
    Assertion assertion = Assertion::BeginText;
    std::uint32_t x = 0;  ///< Split/Jump target; Class: first range index
    std::uint32_t y = 0;  ///< Split: second target; Class: range count
  };

 private:
  friend class RegexCompiler;

  std::string source_;
  std::vector<Inst> program_;
  std::vector<Range> ranges_;
  bool anchored_start_ = false;  ///< begins with \A or ^ (no multi-line): one start position

  // DFA over ASCII bytes: dfa_[state * 128 + byte] is the next state; flags per state.
  friend class DfaBuilder;
  static constexpr std::uint8_t kAcceptNow = 1;    ///< a match ends here, whatever follows
  static constexpr std::uint8_t kAcceptAtEnd = 2;  ///< a match ends here if the text ends here
  static constexpr std::uint8_t kDead = 4;         ///< no match is possible any more
  std::vector<std::uint16_t> dfa_;
  std::vector<std::uint8_t> dfa_flags_;

  bool pike_search(std::string_view text) const;
};

}  // namespace kueuepp::kube::schema

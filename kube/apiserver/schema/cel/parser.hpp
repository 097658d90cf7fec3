#pragma once

// CEL source -> syntax tree (cel-spec grammar), with the standard macros expanded:
// has(), all(), exists(), exists_one(), map() (2 and 3 arguments), filter(), and
// function names resolved to builtins. Identifiers are resolved later (program.cpp).
//
// Hostile input is bounded: at most kMaxSourceSize bytes, kMaxNesting levels of
// parenthesised/bracketed nesting (parser recursion), and syntax trees at most
// kMaxDepth high (evaluation recursion); chains of && and || are built balanced, as
// cel-go does, so long conjunctions stay shallow.

#include <string_view>

#include "core/expected.hpp"
#include "kube/apiserver/schema/cel/ast.hpp"

namespace kueuepp::kube::schema::cel {

inline constexpr std::size_t kMaxSourceSize = 100'000;  // cel-go's default code point limit
inline constexpr int kMaxNesting = 100;
inline constexpr int kMaxDepth = 250;

/// The error reads like cel-go's: "ERROR: <input>:1:5: Syntax error: ...".
Expected<ExprPtr> parse(std::string_view source);

}  // namespace kueuepp::kube::schema::cel

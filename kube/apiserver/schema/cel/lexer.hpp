#pragma once

// CEL tokens (cel-spec lexical grammar): identifiers, int/uint/double literals (decimal
// and hex), string and bytes literals (quoted '...' "..." '''...''' """...""", raw r'',
// bytes b'', all escapes), operators and comments. As in cel-go's lexer, reserved words
// other than true, false, null and in are plain identifiers: they are valid field names
// (`t.metadata.namespace`), and the parser refuses them only as variables and functions.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::schema::cel {

enum class Tok : std::uint8_t {
  End,
  Int,     ///< magnitude in `u` (a leading '-' is a separate token)
  Uint,
  Double,
  String,
  Bytes,
  Ident,     ///< any identifier, reserved words included (the parser refuses them where cel-go does)
  EscIdent,  ///< `a-b`: cel-go's escaped field name, `text` without the backquotes
  True,
  False,
  Null,
  In,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  AndAnd,
  OrOr,
  Not,
  Question,
  Colon,
  Dot,
  Comma,
  LBracket,
  RBracket,
  LParen,
  RParen,
  LBrace,
  RBrace,
};

struct Token {
  Tok kind = Tok::End;
  std::size_t pos = 0;    ///< byte offset in the source
  std::string_view raw;   ///< the token's source text
  std::string text;       ///< decoded string/bytes literal
  std::uint64_t u = 0;    ///< Int magnitude / Uint value
  double d = 0;
};

/// "<input>:line:column: message", cel-go's location prefix.
std::string source_location(std::string_view source, std::size_t pos);

/// Splits `source` into tokens, ending with Tok::End. The error names the position.
Expected<std::vector<Token>> tokenize(std::string_view source);

}  // namespace kueuepp::kube::schema::cel

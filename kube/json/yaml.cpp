#include "kube/json/yaml.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

namespace kueuepp::json {
namespace {

bool is_null_scalar(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// Resolves a plain (unquoted) scalar the way YAML's core schema does: null, bool, int,
// float, else string.
value resolve_plain_scalar(const std::string& s) {
  if (is_null_scalar(s)) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;

  const char* b = s.data();
  const char* e = s.data() + s.size();
  const char* digits = b;
  if (*digits == '+' || *digits == '-') ++digits;
  if (digits == e) return value(s);

  // Integers: decimal, 0x hex, 0o octal.
  if (digits + 1 < e && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o')) {
    int base = digits[1] == 'x' ? 16 : 8;
    std::uint64_t u = 0;
    auto [p, ec] = std::from_chars(digits + 2, e, u, base);
    if (ec == std::errc() && p == e && digits + 2 != e) {
      if (*b == '-') {
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          return -static_cast<std::int64_t>(u);
        return value(s);
      }
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(u);
      return u;
    }
  }
  bool all_digits = true;
  for (const char* p = digits; p != e; ++p) {
    if (*p < '0' || *p > '9') { all_digits = false; break; }
  }
  if (all_digits) {
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(*b == '+' ? b + 1 : b, e, i);
    if (ec == std::errc() && p == e) return i;
    if (*b != '-') {
      std::uint64_t u = 0;
      auto [p2, ec2] = std::from_chars(digits, e, u);
      if (ec2 == std::errc() && p2 == e) return u;
    }
    // Too large for 64 bits: fall through to float, as YAML decoders do.
  }

  std::string_view rest(digits, static_cast<std::size_t>(e - digits));
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF") {
    return *b == '-' ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::infinity();
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();

  // Float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  const char* p = digits;
  bool mantissa = false;
  while (p != e && *p >= '0' && *p <= '9') { ++p; mantissa = true; }
  if (p != e && *p == '.') {
    ++p;
    while (p != e && *p >= '0' && *p <= '9') { ++p; mantissa = true; }
  }
  if (!mantissa) return value(s);
  if (p != e && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p != e && (*p == '+' || *p == '-')) ++p;
    const char* exp_digits = p;
    while (p != e && *p >= '0' && *p <= '9') ++p;
    if (p == exp_digits) return value(s);
  }
  if (p != e) return value(s);
  double d = 0;
  auto [q, ec] = std::from_chars(*b == '+' ? b + 1 : b, e, d);
  if (ec == std::errc() && q == e) return d;
  return value(s);
}

// Where `text` stops being UTF-8 (a bad lead byte, a missing or stray continuation byte,
// an overlong form, a surrogate, past U+10FFFF), or npos. yaml-cpp passes any bytes
// through into strings, which would then be served as JSON no client can parse;
// sigs.k8s.io/yaml refuses such text too.
std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

/// What one document may expand to. Aliases make a graph of the text: an alias inside its
/// own anchor (`e: &b {<<: *b}`) is a cycle that converting would follow for ever (found
/// by fuzz/json_fuzzer: a stack overflow), and aliases of aliases grow exponentially ("a
/// billion laughs"); sigs.k8s.io/yaml refuses both ("excessive aliasing").
struct ConvertBudget {
  std::size_t values_left;
  int depth = 0;
};

constexpr int kMaxYamlDepth = 1000;

value convert(const YAML::Node& node, ConvertBudget& budget);

// yaml-cpp 0.7 decodes the escapes "\\N" (U+0085) and "\\_" (U+00A0) of double-quoted
// scalars to one Latin-1 byte instead of UTF-8, leaving a string no JSON client parses
// (found by fuzz/json_fuzzer). The input was checked to be UTF-8, so a lone 0x85 or 0xA0
// in a scalar can only come from those escapes; anything else not UTF-8 (an escaped
// surrogate) is refused.
std::string as_utf8(std::string text, const YAML::Mark& mark) {
  for (std::size_t from = 0;;) {
    const std::size_t bad = first_invalid_utf8(std::string_view(text).substr(from));
    if (bad == std::string_view::npos) return text;
    const std::size_t at = from + bad;
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte != 0x85 && byte != 0xA0) {
      throw YAML::ParserException(mark, "an escape in this string stands for no Unicode character (a surrogate?)");
    }
    text.insert(at, 1, '\xC2');
    from = at + 2;
  }
}

std::string utf8_scalar(const YAML::Node& node) { return as_utf8(node.Scalar(), node.Mark()); }


value resolve_scalar(const YAML::Node& node);

// Infinities and NaN have no JSON form: sigs.k8s.io/yaml fails to convert them too, and
// a document holding one would be dumped as text no JSON parser reads (found by
// fuzz/json_fuzzer).
value convert_scalar(const YAML::Node& node) {
  value v = resolve_scalar(node);
  if (v.is_double() && !std::isfinite(v.get_double())) {
    throw YAML::ParserException(node.Mark(), "\"" + node.Scalar() + "\" has no JSON form (infinity or NaN): quote it to mean a string");
  }
  return v;
}

value resolve_scalar(const YAML::Node& node) {
  const std::string text = utf8_scalar(node);
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return value(text);
  if (tag == "?" || tag.empty()) return resolve_plain_scalar(text);
  // Explicit core-schema tags resolve as the plain scalar would; unknown tags keep text.
  if (tag == "tag:yaml.org,2002:null" || tag == "tag:yaml.org,2002:bool" ||
      tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float") {
    return resolve_plain_scalar(text);
  }
  return value(text);
}

/// Keeps `budget.depth` right whichever way the conversion of a child ends.
struct DepthStep {
  explicit DepthStep(ConvertBudget& b) : budget(b) { ++budget.depth; }
  ~DepthStep() { --budget.depth; }
  DepthStep(const DepthStep&) = delete;
  DepthStep& operator=(const DepthStep&) = delete;
  ConvertBudget& budget;
};

value convert(const YAML::Node& node, ConvertBudget& budget) {
  if (budget.values_left == 0) {
    throw YAML::ParserException(node.Mark(), "the document expands to too many values through its aliases "
                                             "(an alias inside its own anchor, or aliases of aliases)");
  }
  --budget.values_left;
  if (budget.depth >= kMaxYamlDepth) {
    throw YAML::ParserException(node.Mark(), "values nested deeper than " + std::to_string(kMaxYamlDepth) +
                                                 " levels (an alias inside its own anchor?)");
  }
  const DepthStep step(budget);
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      return convert_scalar(node);
    case YAML::NodeType::Sequence: {
      array a;
      a.reserve(node.size());
      for (const auto& item : node) a.push_back(convert(item, budget));
      return a;
    }
    case YAML::NodeType::Map: {
      object o;
      o.reserve(node.size());
      for (const auto& kv : node) {
        const YAML::Node& k = kv.first;
        // JSON has no other keys; sigs.k8s.io/yaml refuses them too.
        if (!k.IsScalar() && !k.IsNull()) {
          throw YAML::ParserException(k.Mark(), "a map key must be a string, a number, a boolean or null");
        }
        std::string key = k.IsScalar() ? utf8_scalar(k) : std::string("null");
        o[key] = convert(kv.second, budget);
      }
      return o;
    }
  }
  return nullptr;
}

std::string describe(const YAML::Exception& e) {
  if (e.mark.is_null()) return e.msg;
  return "line " + std::to_string(e.mark.line + 1) + ", column " +
         std::to_string(e.mark.column + 1) + ": " + e.msg;
}

// The first ASCII control character YAML does not allow (all but tab, line feed and
// carriage return), or npos. Besides being what sigs.k8s.io/yaml refuses, a NUL makes
// yaml-cpp read the text as UTF-16 or UTF-32 ("b\0\0\0" looks like UTF-32LE) and turn
// it into strings that are not UTF-8 (found by fuzz/json_fuzzer).
std::size_t first_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
  }
  return std::string_view::npos;
}

std::string position_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// Where each document starts; nothing else of the events is kept.
class DocumentStarts final : public YAML::EventHandler {
 public:
  YAML::Mark last;
  void OnDocumentStart(const YAML::Mark& mark) override { last = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7's LoadAll loops for ever, making one more null document each turn and
// so eating all memory, when a document starts with a token that begins no node (a ","
// at the top level: yaml-cpp issue 1040, found by fuzz/kubeconfig_fuzzer): the parser
// hands out the same document again without consuming anything. A first pass over the
// events alone stops at the second document that starts where the one before it did.
std::optional<YAML::Mark> stuck_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  std::optional<int> previous;
  while (parser.HandleNextDocument(starts)) {
    if (previous && *previous == starts.last.pos) return starts.last;
    previous = starts.last.pos;
  }
  return std::nullopt;
}

}  // namespace

Expected<std::vector<value>> parse_yaml_documents(std::string_view text) {
  if (const std::size_t control = first_control_character(text); control != std::string_view::npos) {
    return fail("invalid YAML: " + position_of(text, control) + ": control characters are not allowed (byte 0x" +
                "0123456789abcdef"[static_cast<unsigned char>(text[control]) >> 4] +
                "0123456789abcdef"[static_cast<unsigned char>(text[control]) & 0xF] + ")");
  }
  if (const std::size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    return fail("invalid YAML: " + position_of(text, bad) + ": the text is not UTF-8 (byte 0x" +
                "0123456789abcdef"[static_cast<unsigned char>(text[bad]) >> 4] +
                "0123456789abcdef"[static_cast<unsigned char>(text[bad]) & 0xF] + ")");
  }
  try {
    const std::string owned(text);
    if (const auto stuck = stuck_document(owned)) {
      return fail("invalid YAML: line " + std::to_string(stuck->line + 1) + ", column " +
                  std::to_string(stuck->column + 1) + ": no value can start here");
    }
    std::vector<YAML::Node> docs = YAML::LoadAll(owned);
    std::vector<value> out;
    out.reserve(docs.size());
    // A document takes at most one value per byte of text, aliases aside; they may
    // expand it tenfold, which no manifest comes near.
    ConvertBudget budget{10'000 + 10 * text.size()};
    for (const auto& d : docs) out.push_back(convert(d, budget));
    return out;
  } catch (const YAML::Exception& e) {
    return fail("invalid YAML: " + describe(e));
  }
}

Expected<value> parse_yaml(std::string_view text) {
  auto docs = parse_yaml_documents(text);
  if (!docs) return unexpected(std::move(docs).error());
  std::size_t non_empty = 0;
  value result = nullptr;
  for (auto& d : *docs) {
    if (d.is_null()) continue;
    ++non_empty;
    result = std::move(d);
  }
  if (non_empty > 1) return fail("expected one YAML document, found " + std::to_string(non_empty));
  return result;
}

}  // namespace kueuepp::json

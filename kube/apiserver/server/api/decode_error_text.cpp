#include "kube/apiserver/server/api/decode_error_text.hpp"

#include <boost/json/stream_parser.hpp>

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

constexpr std::size_t kSummaryLength = 30;
constexpr std::string_view kProbeType =
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

// Go names JSON types as its decoder meets them: array, string, number, bool.
std::string_view go_type_name(const boost::json::value& v) {
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

}  // namespace

namespace {

// The parsed body, or nullopt when it does not parse (truncated says why).
std::optional<boost::json::value> parse_whole(std::string_view body, bool& truncated) {
  boost::json::stream_parser parser;
  boost::system::error_code ec;
  parser.write(body.data(), body.size(), ec);
  truncated = (!ec && !parser.done()) || ec == boost::json::error::incomplete;
  if (ec || !parser.done()) return std::nullopt;
  return parser.release();
}

}  // namespace

std::string go_syntax_error(std::string_view body, std::string_view fallback) {
  bool truncated = false;
  if (!parse_whole(body, truncated) && truncated) return "unexpected end of JSON input";
  return std::string(fallback);
}

std::optional<std::string> go_probe_error(std::string_view body, std::string_view fallback) {
  bool truncated = false;
  const std::optional<boost::json::value> parsed = parse_whole(body, truncated);
  if (truncated) return std::string("unexpected end of JSON input");
  if (!parsed) return std::string(fallback);
  const boost::json::value& v = *parsed;
  if (v.is_object() || v.is_null()) return std::nullopt;
  return fmt::format("json: cannot unmarshal {} into Go value of type {}", go_type_name(v), kProbeType);
}

std::string summarize_body(std::string_view body) {
  if (body.empty()) return "<empty>";
  const bool cut = body.size() > kSummaryLength;
  const std::string_view head = body.substr(0, kSummaryLength);
  std::string out;
  if (head.front() == '{') {
    out = std::string(head);
  } else {
    for (unsigned char c : head) out += fmt::format("{:02x}", c);
  }
  return cut ? out + " ..." : out;
}

}  // namespace kueuepp::kube::server

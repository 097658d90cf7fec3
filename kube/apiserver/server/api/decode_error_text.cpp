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

std::optional<std::string> go_probe_error(std::string_view body, std::string_view fallback) {
  boost::json::stream_parser parser;
  boost::system::error_code ec;
  parser.write(body.data(), body.size(), ec);
  if ((!ec && !parser.done()) || ec == boost::json::error::incomplete) {
    return std::string("unexpected end of JSON input");
  }
  if (ec) return std::string(fallback);
  const boost::json::value v = parser.release();
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

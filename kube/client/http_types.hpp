#pragma once

// Plain HTTP messages as the client's raw layer sees them: no Beast types, so callers
// (the conformance replayer, tests) get exact control of headers and bodies without
// pulling Beast into their translation units. Requests going out; the API server's
// requests coming in are kube/apiserver/server/http/http_types.hpp. Both hold their
// header fields as kube/http/headers.hpp does.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kube/http/headers.hpp"

namespace kueuepp::kube::client {

using http::find_header;
using http::find_headers;
using http::Headers;
using http::iequals;

struct HttpRequest {
  std::string method = "GET";
  /// Path and query, already percent-encoded: `/api/v1/namespaces?limit=2`.
  std::string target;
  /// Sent verbatim. The client adds Host, Content-Length and, when the configuration
  /// has credentials, Authorization (unless present), and User-Agent (unless present).
  Headers headers;
  /// nullopt: no body. An empty string: an empty body with Content-Length: 0.
  std::optional<std::string> body;
  /// Fencing (WriteOptions::send_before): not written to a connection once this time has
  /// passed, however long the rate limiter and the io thread held the request; it fails
  /// with fence_deadline_error instead.
  std::optional<std::chrono::steady_clock::time_point> send_before;
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
};

}  // namespace kueuepp::kube::client

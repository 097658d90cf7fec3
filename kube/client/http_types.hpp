#pragma once

// Plain HTTP messages as the client's raw layer sees them: no Beast types, so callers
// (the conformance replayer, tests) get exact control of headers and bodies without
// pulling Beast into their translation units.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::kube::client {

/// Header fields in order; names compare case-insensitively (see find_header).
using Headers = std::vector<std::pair<std::string, std::string>>;

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

/// The first value of header `name` (case-insensitive), or nullopt.
std::optional<std::string_view> find_header(const Headers& headers, std::string_view name);

/// Every value of header `name` (case-insensitive), in order.
std::vector<std::string_view> find_headers(const Headers& headers, std::string_view name);

/// ASCII case-insensitive equality (HTTP field names).
bool iequals(std::string_view a, std::string_view b);

}  // namespace kueuepp::kube::client

#pragma once

// The HTTP exchange as the API layer sees it, free of Beast/Asio types: a parsed request,
// a complete response, and the streaming side used by watches. The network layer
// (kube/apiserver/server/net/) implements Responder and StreamSink. Requests coming in;
// the client's requests going out are kube/client/http_types.hpp. Both hold their header
// fields as kube/http/headers.hpp does.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/http/headers.hpp"

namespace kueuepp::kube::server {

struct HttpRequest {
  std::string method;      ///< "GET", "POST", ...
  std::string target;      ///< path and query as sent
  http::Headers headers;   ///< names lowercased
  std::string body;
  std::string remote;      ///< peer address, for the request log
  /// The certificate chain the TLS client presented (DER, its own first), unverified;
  /// null when it presented none or the connection is plain HTTP.
  std::shared_ptr<const std::vector<std::string>> peer_certificates;

  /// The first header named `name` (case-insensitive), or "".
  std::string_view header(std::string_view name) const { return http::find_header(headers, name).value_or(""); }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  http::Headers headers;  ///< extra headers (Warning, Retry-After, ...)
  std::string body;
  /// When set, the body instead of `body`: text someone else keeps (a stored version's
  /// serialization), sent as it is rather than copied into each answer.
  std::shared_ptr<const std::string> shared_body;

  std::string_view body_text() const { return shared_body ? std::string_view(*shared_body) : std::string_view(body); }
};

/// The open side of a streaming (chunked) response.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  /// Queues bytes for the client. False when the stream is closed, or when the client is
  /// so far behind that the bytes queued for it exceed the stream's bound (the caller
  /// then ends the stream).
  virtual bool write(std::shared_ptr<const std::string> data) = 0;
  /// Ends the stream after everything queued (plus `last`, exempt from the bound).
  virtual void finish(std::shared_ptr<const std::string> last = nullptr) = 0;
  /// Called once when the stream ends, by finish() or because the client went away.
  virtual void on_close(std::function<void()> callback) = 0;
  virtual bool closed() const = 0;
};

/// Answers one request: either respond() once, or stream() once.
class Responder {
 public:
  virtual ~Responder() = default;
  virtual void respond(HttpResponse response) = 0;
  virtual std::shared_ptr<StreamSink> stream(int status, std::string content_type, http::Headers headers) = 0;
};
using ResponderPtr = std::shared_ptr<Responder>;

}  // namespace kueuepp::kube::server

#pragma once

// How the embedded API server calls out over HTTPS (an aggregated API server, an admission
// or conversion webhook): one exchange, the peer's certificate verified against the
// caller's CA bundle for the target's name (or not at all with insecureSkipTLSVerify), a
// client certificate presented when there is one, and the answer handed back as it
// arrives (head, then body pieces), so a watch streams. Callbacks run on the store thread,
// never from within send(). Connections are kept alive and reused, as kube-apiserver's
// transports do. The interface keeps Asio out of its callers; https_backend_transport.hpp
// implements it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/expected.hpp"
#include "kube/http/headers.hpp"

namespace kueuepp::kube::server {

struct BackendTarget {
  std::string host;  ///< where to connect (name or address)
  std::string port;
  /// The name the certificate must be valid for, and the SNI: <service>.<namespace>.svc.
  std::string server_name;
  std::string ca_pem;  ///< trusted CAs; empty: the system's
  bool insecure_skip_verify = false;
  /// The client certificate and key presented (PEM; empty: none).
  std::string client_cert_pem;
  std::string client_key_pem;
};

struct BackendRequest {
  std::string method;
  std::string target;  ///< path and query
  http::Headers headers;
  std::string body;
  /// May be sent again on a new connection when the kept-alive one it went out on turns
  /// out closed before any answer (a peer closing an idle connection as it is reused).
  /// Only for requests whose repetition is harmless (an admission or conversion review).
  bool replayable = false;
};

struct BackendResponseHead {
  int status = 0;
  http::Headers headers;  ///< as the backend sent them (hop-by-hop ones included)
  /// Content-Length when the backend sent one (a body delimited otherwise streams).
  std::optional<std::uint64_t> content_length;
};

struct BackendTimeouts {
  std::chrono::milliseconds connect{std::chrono::seconds(30)};
  /// Go's TLSHandshakeTimeout of kube-aggregator's transport.
  std::chrono::milliseconds tls_handshake{std::chrono::seconds(10)};
  /// The whole exchange, answer included: past it the exchange ends with Go's
  /// "context deadline exceeded" (a webhook's timeoutSeconds). None: the caller bounds it.
  std::optional<std::chrono::milliseconds> total;
};

/// What the exchange reports, in this order: `head` once (an error instead when no answer
/// came: the error reads like Go's net/http client's), then `data` for each piece of the
/// body (return false to stop reading), then `end` once after a head (an error when the
/// body broke off).
struct BackendHandlers {
  std::function<void(Expected<BackendResponseHead>)> head;
  std::function<bool(std::string)> data;
  std::function<void(Status)> end;
};

/// An exchange in flight; cancel() ends it (no callback runs afterwards).
class BackendExchange {
 public:
  virtual ~BackendExchange() = default;
  virtual void cancel() = 0;
};

class BackendTransport {
 public:
  virtual ~BackendTransport() = default;
  virtual std::shared_ptr<BackendExchange> send(const BackendTarget& target, BackendRequest request,
                                                BackendTimeouts timeouts, BackendHandlers handlers) = 0;
};

}  // namespace kueuepp::kube::server

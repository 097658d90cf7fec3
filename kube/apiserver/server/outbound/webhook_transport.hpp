#pragma once

// How a review (AdmissionReview, ConversionReview) reaches a webhook: one HTTPS POST, verified against the
// webhook's CA bundle and host name, bounded by its timeout, answered through a callback
// on the store thread. The interface keeps Asio out of the admission and conversion logic;
// https_transport.hpp implements it.

#include <chrono>
#include <functional>
#include <cstddef>
#include <string>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

struct WebhookTarget {
  std::string host;         ///< where to connect (name or address)
  std::string port;
  std::string path;         ///< with the query (timeout=Ns)
  /// The name the certificate must be valid for (and the SNI): the URL's host, or
  /// <service>.<namespace>.svc for a service reference.
  std::string server_name;
  std::string ca_pem;       ///< trusted CAs; empty: the system's
  /// The URL as kube-apiserver names it in errors: Post "https://...".
  std::string display_url;
  /// The largest answer read: an AdmissionReview's is small; a ConversionReview's carries
  /// a whole list converted (10,000 Workloads with their status are over 16 MiB).
  std::size_t max_response_bytes = 16u << 20;
};

struct WebhookReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

class WebhookTransport {
 public:
  using Callback = std::function<void(Expected<WebhookReply>)>;
  virtual ~WebhookTransport() = default;
  /// POSTs `body` (JSON). The error reads like Go's net/http client's
  /// ("dial tcp 127.0.0.1:9443: connect: connection refused", "context deadline
  /// exceeded", "tls: failed to verify certificate: x509: ..."). `done` runs exactly
  /// once, never from within post().
  virtual void post(const WebhookTarget& target, std::string body, std::chrono::milliseconds timeout,
                    Callback done) = 0;
};

}  // namespace kueuepp::kube::server

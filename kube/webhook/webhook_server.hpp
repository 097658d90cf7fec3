#pragma once

// The admission webhook server: HTTPS (TLS 1.2 and 1.3 only) on kube/serving, routing by
// Kueue's webhook paths (webhook_catalog.hpp), and the CRDs' conversion webhook at
// /convert (kube/conversion: pure, answered on the server's threads, no handler). A request's AdmissionReview is decoded on
// the server's threads and handed to the handler with a reply to call once, from any
// thread (the controller's webhook actor answers from its watch caches). What the
// handler does not answer within `answer_timeout` gets an HTTP 500, so kube-apiserver
// applies the webhook's failurePolicy instead of waiting; malformed input gets a 400,
// an unknown path a 404, a body over `max_body_bytes` (`max_conversion_body_bytes` at
// /convert) a 413. The TLS certificate is set
// (and replaced, on rotation) while the server runs: new connections take the latest.
// Asio stays out of this header.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/expected.hpp"
#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/webhook_catalog.hpp"

namespace kueuepp::kube::webhook {

struct WebhookServerOptions {
  /// ADDR:PORT; port 0 picks a free one (see WebhookServer::port).
  std::string listen = "0.0.0.0:9443";
  std::size_t threads = 1;
  /// kube-apiserver sends the object and, on UPDATE, its old version; objects are at most
  /// 1.5 MiB in etcd, so 8 MiB leaves room.
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  /// A ConversionReview carries a whole list when a list is read in another version
  /// (10,000 Workloads are some 15 MiB): the conversion path's own limit.
  std::size_t max_conversion_body_bytes = 256 * 1024 * 1024;
  std::size_t max_connections = 1024;
  std::chrono::milliseconds handshake_timeout{10'000};
  /// Reading one request (and waiting for the next on a kept-alive connection).
  std::chrono::milliseconds read_timeout{30'000};
  std::chrono::milliseconds write_timeout{10'000};
  /// kube-apiserver's own default webhook timeout is 10 s: answer well before.
  std::chrono::milliseconds answer_timeout{3'000};
  /// How long stop() lets requests being answered finish.
  std::chrono::milliseconds stop_grace{1'000};
};

using AdmissionReply = std::function<void(AdmissionResponse)>;
/// Called on a server thread; must not block. `reply` may be called from any thread,
/// at most once counts.
using AdmissionHandler = std::function<void(const WebhookSpec& webhook, AdmissionRequest request, AdmissionReply reply)>;

struct WebhookServerStats {
  std::uint64_t connections = 0;          ///< accepted with a certificate
  std::uint64_t connections_refused = 0;  ///< no certificate yet, or too many connections
  std::uint64_t tls_failures = 0;
  std::uint64_t requests = 0;     ///< AdmissionReviews handed to the handler
  std::uint64_t answered = 0;
  std::uint64_t timeouts = 0;     ///< no answer within answer_timeout (500)
  std::uint64_t bad_requests = 0; ///< 400, 404, 405, 413
  std::uint64_t conversions = 0;  ///< ConversionReviews answered (also counted in requests and answered)
};

class WebhookServer {
 public:
  /// Listens at once; connections are refused until a certificate is set.
  static Expected<std::unique_ptr<WebhookServer>> start(WebhookServerOptions options, AdmissionHandler handler);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  /// The certificate (chain) and key new connections present; the error says what does
  /// not load (the previous certificate stays).
  Status set_certificate(const std::string& cert_pem, const std::string& key_pem);
  bool has_certificate() const;
  std::uint16_t port() const;
  /// "ADDR:PORT" as bound.
  std::string address() const;
  WebhookServerStats stats() const;
  /// Stops accepting, lets requests being answered finish (stop_grace), closes the rest.
  /// Idempotent.
  void stop();

  struct Impl;

 private:
  explicit WebhookServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::kube::webhook

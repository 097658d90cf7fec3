#pragma once

// HTTP/1.1 over TCP or TLS with a keep-alive connection pool: the only part of the
// client that includes Beast and OpenSSL (in transport.cpp). Requests arrive with
// their headers final except Host and Content-Length; no retries happen here.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/expected.hpp"
#include "kube/client/api_error.hpp"
#include "kube/client/client_config.hpp"
#include "kube/client/client_options.hpp"
#include "kube/client/http_types.hpp"

namespace boost::asio {
class io_context;
}

namespace kueuepp::kube::client::detail {

/// One exchange in flight. cancel() is thread-safe and idempotent; the exchange then
/// completes with a Cancelled error unless it already completed.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void cancel() = 0;
};

using ResponseCallback = std::function<void(Expected<HttpResponse, ApiError>)>;

struct StreamCallbacks {
  std::function<void(int status, const Headers& headers)> on_head;
  std::function<void(std::string_view chunk)> on_chunk;
  std::function<void(Expected<void, ApiError>)> on_end;
  /// Optional: after on_chunk when none of the data received so far waits to be parsed
  /// (the next piece of the body needs another read of the socket).
  std::function<void()> on_drained;
};

class Transport {
 public:
  /// Builds the TLS context (CA, client certificate) when the server is https.
  static Expected<std::unique_ptr<Transport>> create(boost::asio::io_context& io,
                                                     const ClientConfig& config,
                                                     const ClientOptions& options);
  virtual ~Transport() = default;

  /// Sends `request` and reads the whole response within `timeout`. `done` runs on an
  /// io thread. Errors: Transport (not_sent when connecting failed), Timeout, Cancelled.
  virtual std::shared_ptr<Exchange> send(HttpRequest request, std::chrono::milliseconds timeout,
                                         ResponseCallback done) = 0;
  /// Sends `request` and delivers the response body as it arrives.
  virtual std::shared_ptr<Exchange> stream(HttpRequest request, StreamCallbacks callbacks) = 0;
  /// Closes the idle pooled connections (shutdown).
  virtual void close_idle() = 0;

  virtual std::uint64_t connections_opened() const = 0;
  virtual std::uint64_t connections_reused() const = 0;
};

}  // namespace kueuepp::kube::client::detail

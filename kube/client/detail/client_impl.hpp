#pragma once

// The machinery behind Client: the io_context and its threads, the rate limiter, the
// token source, retries and the registry of in-flight operations (for shutdown).
// Asio lives in client_impl.cpp only; this header is cheap to include.

#include <chrono>
#include <functional>
#include <memory>

#include "core/expected.hpp"
#include "kube/client/cancel_handle.hpp"
#include "kube/client/client.hpp"

namespace kueuepp::kube::client::detail {

struct RequestSpec {
  HttpRequest http;
  Verb verb = Verb::Raw;
  /// Retry per retry_policy.hpp (raw calls usually do not).
  bool retry = true;
  /// 0: ClientOptions::request_timeout.
  std::chrono::milliseconds timeout{0};
  /// WriteOptions::may_wait_for_step.
  bool may_wait_for_step = false;
  /// WriteOptions::background.
  bool background = false;
};

class ClientImpl {
 public:
  static Expected<std::unique_ptr<ClientImpl>> create(ClientConfig config, ClientOptions options);
  ~ClientImpl();

  void shutdown();
  /// Rate limit, authenticate, send, retry. Any HTTP status completes successfully.
  void execute(RequestSpec spec, RawCallback done);
  /// Rate limit, authenticate, stream (one attempt).
  CancelHandle stream(RequestSpec spec, StreamHandlers handlers);
  CancelHandle after(std::chrono::milliseconds delay, std::function<void()> fn);
  void post(std::function<void()> fn);
  bool in_io_thread() const;

  ClientStats stats() const;
  const ClientConfig& config() const;
  const ClientOptions& options() const;

  struct Runtime;

 private:
  explicit ClientImpl(std::unique_ptr<Runtime> runtime);
  std::unique_ptr<Runtime> rt_;
};

}  // namespace kueuepp::kube::client::detail

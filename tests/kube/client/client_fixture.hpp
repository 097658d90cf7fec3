#pragma once

// Helpers for tests that run a real Client against a TestServer.

#include <chrono>
#include <future>
#include <memory>

#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "tests/kube/client/support/test_server.hpp"

namespace kueuepp::kube::client::testing {

/// Fast, deterministic-ish options: no rate limit, 1 ms retry backoff.
inline ClientOptions fast_options() {
  ClientOptions options;
  options.qps = -1;
  options.retry_backoff = {std::chrono::milliseconds(1), std::chrono::milliseconds(5), 2.0, 0.0};
  options.request_timeout = std::chrono::milliseconds(5000);
  options.random = [] { return 0.0; };
  return options;
}

inline std::unique_ptr<Client> make_client(const std::string& server,
                                           ClientOptions options = fast_options(),
                                           ClientConfig config = {}) {
  config.server = server;
  if (config.source.empty()) config.source = "test";
  auto client = Client::create(std::move(config), std::move(options));
  if (!client) throw std::runtime_error(client.error().message);
  return std::move(*client);
}

/// Waits for a value delivered by a callback (fails the test on timeout).
template <class T>
class Waiter {
 public:
  std::function<void(T)> callback() {
    return [p = promise_](T v) { p->set_value(std::move(v)); };
  }
  T get(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    if (future_.wait_for(timeout) != std::future_status::ready) {
      throw std::runtime_error("timed out waiting for a callback");
    }
    return future_.get();
  }

 private:
  std::shared_ptr<std::promise<T>> promise_ = std::make_shared<std::promise<T>>();
  std::future<T> future_ = promise_->get_future();
};

inline std::string job_json(const std::string& name, const std::string& rv = "1") {
  return R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv + R"("},"spec":{"suspend":true}})";
}

}  // namespace kueuepp::kube::client::testing

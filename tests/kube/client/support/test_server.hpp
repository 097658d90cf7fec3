#pragma once

// A small HTTP/1.1 server for client tests (plain or TLS, optionally requiring client
// certificates), bound to 127.0.0.1:0. Each connection is served by its own thread
// with keep-alive; a handler decides every answer, including chunked streams with
// exact chunk boundaries, dropped connections and held-open watches.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/client/http_types.hpp"

namespace kueuepp::kube::client::testing {

struct TestRequest {
  std::string method;
  std::string target;
  Headers headers;
  std::string body;
  int connection = 0;         ///< 1-based id of the connection that carried it
  std::string client_cert_cn; ///< CN of the verified client certificate, if any

  std::string header(std::string_view name) const;
};

struct TestResponse {
  int status = 200;
  Headers headers;
  std::string body;
  /// Non-empty: a chunked response written chunk by chunk (exact boundaries), with
  /// `chunk_delay` between chunks.
  std::vector<std::string> chunks;
  std::chrono::milliseconds chunk_delay{0};
  /// Chunks framed and written together in one write (the delay comes between writes).
  std::size_t chunks_per_write = 1;
  /// After the chunks, keep the stream open until the client or stop() closes it.
  bool hold_open = false;
  /// Close the connection after answering (no keep-alive).
  bool close_after = false;
  /// Close the connection without answering.
  bool drop = false;

  static TestResponse json(int status, std::string body);
};

using TestHandler = std::function<TestResponse(const TestRequest&)>;

struct TestTlsOptions {
  std::string cert_pem;
  std::string key_pem;
  /// Non-empty: require and verify client certificates signed by this CA.
  std::string client_ca_pem;
};

class TestServer {
 public:
  static std::unique_ptr<TestServer> start(TestHandler handler,
                                           std::optional<TestTlsOptions> tls = std::nullopt);
  ~TestServer();

  void stop();
  std::uint16_t port() const;
  /// http://127.0.0.1:PORT or https://127.0.0.1:PORT
  std::string url() const;
  int connections_accepted() const;
  std::vector<TestRequest> requests() const;
  /// Closes every open connection now (simulates a dropped watch / server restart).
  void drop_connections();

  struct State;

 private:
  explicit TestServer(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace kueuepp::kube::client::testing

#pragma once

// An HTTPS admission webhook for tests: its own CA and serving certificate (made with
// OpenSSL when the test starts), every AdmissionReview it receives recorded, and answers
// given by a handler per path — allow, deny, patch, garbage, a wrong uid, or no answer at
// all (it hangs until the server stops).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server::testing {

class TestWebhookServer {
 public:
  struct Answer {
    int status = 200;
    std::string body;
    bool hang = false;  ///< read the request, never answer
  };
  using Handler = std::function<Answer(const json::value& review)>;
  struct Received {
    std::string path;
    json::value review;
  };

  /// `hosts`: the names and addresses the serving certificate is valid for.
  explicit TestWebhookServer(std::vector<std::string> hosts = {"127.0.0.1", "localhost"});
  ~TestWebhookServer();
  TestWebhookServer(const TestWebhookServer&) = delete;
  TestWebhookServer& operator=(const TestWebhookServer&) = delete;

  std::uint16_t port() const { return port_; }
  /// https://127.0.0.1:PORT<path>
  std::string url(std::string_view path) const;
  /// The PEM of the CA that signed the serving certificate, and the same in base64 (caBundle).
  const std::string& ca_pem() const { return ca_pem_; }
  std::string ca_bundle() const;

  /// The handler of requests to `path` (unknown paths answer 404).
  void on(std::string path, Handler handler);
  /// Every review received so far, in order.
  std::vector<Received> received() const;
  std::vector<Received> received(std::string_view path) const;
  /// CPU time the serving threads spent so far (TLS handshakes, reading, answering), in
  /// seconds: what a benchmark subtracts to see the API server's own share.
  double serving_cpu_seconds() const;
  /// Answers keep the connection open for the next request (default: each answer says
  /// Connection: close, one request per connection).
  void keep_alive(bool on);
  /// A request that arrives on a connection that already served one is read, then the
  /// connection closed without an answer: a server closing an idle connection just as
  /// the client reuses it.
  void drop_requests_on_reused_connections(bool on);
  /// Connections accepted so far.
  std::size_t connections_accepted() const;

  // -- answers --
  /// allowed: true, with a JSON patch when `patch` is an array.
  static Answer allow(const json::value& review, const json::value& patch = nullptr);
  static Answer deny(const json::value& review, int code, std::string_view message);
  static Answer hang();

 private:
  void accept_loop();
  void work();
  void serve(int fd);
  /// Serves one request of a connection; whether to wait for another on it.
  bool serve_one(void* ssl, int served_before);
  /// Adds this thread's CPU time since `since` to serving_cpu_; `since` becomes now.
  void count_cpu(double& since);

  std::uint16_t port_ = 0;
  std::string ca_pem_;
  std::string cert_pem_;
  std::string key_pem_;
  int listen_fd_ = -1;
  void* tls_ = nullptr;  ///< the SSL_CTX, shared by every connection
  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::map<std::string, Handler> handlers_;
  std::vector<Received> received_;
  std::vector<int> connections_;
  std::vector<int> queue_;  ///< accepted connections waiting for a worker
  double serving_cpu_ = 0;
  bool keep_alive_ = false;
  bool drop_reused_ = false;
  std::size_t accepted_ = 0;
  /// A few long-lived workers rather than a thread per connection: a thread's exit
  /// returns its stack to the kernel, and the TLB flushes that costs every thread of the
  /// process would be counted against the API server in benchmarks.
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

/// A port nothing listens on (bound, then released).
std::uint16_t unused_port();

}  // namespace kueuepp::kube::server::testing

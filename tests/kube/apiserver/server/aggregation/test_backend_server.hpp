#pragma once

// An HTTPS aggregated API server for tests: its own CA and a serving certificate for
// the Service name it stands behind (<service>.<namespace>.svc), an optional client CA
// that the front proxy's certificate is checked against, every request recorded (method,
// target, headers, body, the client certificate's subject and whether it verified), and
// answers given by a handler per path: a whole answer, a chunked stream held open until
// the test ends it, garbage bytes, or no answer at all (it hangs until the server stops).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kueuepp::kube::server::testing {

class TestBackendServer {
 public:
  struct Request {
    std::string method;
    std::string target;  ///< path and query
    std::string path;
    std::vector<std::pair<std::string, std::string>> headers;  ///< names lowercased, in order
    std::string body;
    std::string client_cn;         ///< the client certificate's CN ("" without one)
    bool client_verified = false;  ///< it verified against the client CA
    std::vector<std::string> header_values(std::string_view name) const;
  };
  struct Answer {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    /// Chunked: each piece sent as it is, then the stream is held open until end_streams().
    std::vector<std::string> stream;
    bool hang = false;     ///< read the request, never answer
    std::string garbage;   ///< sent instead of an HTTP answer, then the connection closes
  };
  using Handler = std::function<Answer(const Request&)>;

  /// `server_names`: the DNS names (and addresses) the serving certificate is valid for.
  /// `client_ca_pem`: the CA client certificates are verified against (empty: none asked).
  TestBackendServer(std::vector<std::string> server_names, std::string client_ca_pem = "");
  ~TestBackendServer();
  TestBackendServer(const TestBackendServer&) = delete;
  TestBackendServer& operator=(const TestBackendServer&) = delete;

  std::uint16_t port() const { return port_; }
  const std::string& ca_pem() const { return ca_pem_; }
  /// caBundle: the CA's PEM in base64.
  std::string ca_bundle() const;

  /// The handler of requests whose path starts with `prefix` (the longest prefix wins;
  /// others answer 404).
  void on(std::string prefix, Handler handler);
  /// An APIResourceList of `group`/`version` with one namespaced resource `plural` (kind
  /// `kind`), answered at /apis/<group>/<version>.
  void serve_discovery(const std::string& group, const std::string& version, const std::string& plural,
                       const std::string& kind);
  std::vector<Request> received() const;
  std::vector<Request> received(std::string_view path) const;
  /// Ends every stream held open.
  void end_streams();
  /// Connections accepted so far (a TLS handshake refused counts).
  int accepted() const;

 private:
  void accept_loop();
  void work();
  void serve(int fd);

  std::uint16_t port_ = 0;
  std::string ca_pem_;
  int listen_fd_ = -1;
  void* tls_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool streams_ended_ = false;
  int accepted_ = 0;
  std::map<std::string, Handler> handlers_;
  std::vector<Request> received_;
  std::vector<int> connections_;
  std::vector<int> queue_;  ///< accepted connections waiting for a worker
  /// Long-lived workers rather than a thread per connection: a thread's exit costs every
  /// thread of the process TLB flushes, which benchmarks would charge to the API server.
  /// A hanging or streaming answer holds its worker; there are enough for the tests.
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

}  // namespace kueuepp::kube::server::testing

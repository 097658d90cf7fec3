#pragma once

// The embedded API server started in-process for one test (127.0.0.1, port 0) and the
// helpers the server's tests share: JSON requests over real HTTP with the blocking test
// client (tests/kube/apiserver/server/test_http.hpp), reading fields of answers, waiting for
// asynchronous effects (garbage collector, namespace controller) with a timeout, and
// the objects the tests write (Namespaces, Jobs, Kueue custom resources).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "tests/kube/apiserver/server/test_http.hpp"

namespace kueuepp::kube::server::testing {

using kueuepp::testing::HttpConnection;
using kueuepp::testing::HttpReply;

// -- where the shared reference material is ---------------------------------------------

/// ../shared: $KUEUEPP_SHARED_DIR, else the directory configured at build time.
std::string shared_dir();
/// The Kueue CRDs (shared/kueue-crds), or "" when they are not there.
std::string crds_dir();

// -- reading answers ------------------------------------------------------------------

/// The body as JSON (null when it is not JSON).
json::value body_json(const HttpReply& reply);
/// The value at a JSON pointer ("/metadata/name"), or nullptr.
const json::value* at(const json::value& v, std::string_view pointer);
/// The string at a JSON pointer ("" when absent or not a string).
std::string str(const json::value& v, std::string_view pointer);
/// The integer at a JSON pointer (nullopt when absent or not an integer).
std::optional<std::int64_t> num(const json::value& v, std::string_view pointer);
/// metadata.resourceVersion as a number (0 when absent).
std::uint64_t rv_of(const json::value& object);
/// The names of a list's items, in order.
std::vector<std::string> item_names(const json::value& list);
/// details.causes[].field of a Status.
std::vector<std::string> cause_fields(const json::value& status);

/// A fresh directory under the system's temporary directory, removed afterwards.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

/// Polls `condition` every few milliseconds until it holds or `timeout` passes.
bool wait_until(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(10));

// -- objects ------------------------------------------------------------------------

/// A valid batch/v1 Job (suspended, one busybox container).
json::value job(std::string_view name, json::object labels = {{"app", "demo"}});
json::value name_space(std::string_view name, json::object labels = {});
/// Kueue custom resources (kueue.x-k8s.io/v1beta2).
json::value resource_flavor(std::string_view name);
json::value cluster_queue(std::string_view name, std::string_view cpu_quota = "10");
json::value workload(std::string_view name);

constexpr std::string_view kKueue = "/apis/kueue.x-k8s.io/v1beta2";

// -- a client -----------------------------------------------------------------------

/// Requests on one keep-alive connection, reconnecting when the server closed it.
class ApiClient {
 public:
  explicit ApiClient(std::uint16_t port) : port_(port) {}

  HttpReply request(std::string_view method, std::string_view target, std::string_view body = {},
                    std::string_view content_type = "application/json",
                    const std::vector<std::pair<std::string, std::string>>& headers = {});
  HttpReply get(std::string_view target) { return request("GET", target); }
  HttpReply post(std::string_view target, const json::value& body) { return request("POST", target, json::dump(body)); }
  HttpReply put(std::string_view target, const json::value& body) { return request("PUT", target, json::dump(body)); }
  HttpReply patch(std::string_view target, const json::value& body,
                  std::string_view type = "application/merge-patch+json") {
    return request("PATCH", target, json::dump(body), type);
  }
  HttpReply del(std::string_view target, std::string_view body = {}) { return request("DELETE", target, body); }

 private:
  std::uint16_t port_;
  std::unique_ptr<HttpConnection> conn_;
};

// -- the fixture --------------------------------------------------------------------

/// Options for a throwaway in-process server: loopback, any free port, no fsync.
ApiServerOptions test_options();

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  void SetUp() override;
  void TearDown() override;

  /// The options SetUp starts the server with (override to change them).
  virtual ApiServerOptions options() const { return test_options(); }

  /// Starts a server (the test fails when it cannot); stops the current one first.
  void start(ApiServerOptions options);
  void stop();

  ApiServer& server() { return *server_; }
  std::uint16_t port() const { return server_->port(); }
  ApiClient& api() { return *client_; }

  /// Requests that must succeed with `status`: the answer's body (the test fails otherwise).
  json::value expect(int status, const HttpReply& reply);
  json::value create(std::string_view collection, const json::value& body) {
    return expect(201, api().post(collection, body));
  }
  json::value get_ok(std::string_view target) { return expect(200, api().get(target)); }
  /// Creates the namespace `name`.
  void make_namespace(std::string_view name);
  /// True once GET `target` answers 404.
  bool wait_gone(std::string_view target, std::chrono::milliseconds timeout = std::chrono::seconds(10));

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<ApiClient> client_;
};

/// The same with the Kueue CRDs installed (skipped when ../shared/kueue-crds is missing).
class KueueServerTest : public ServerTest {
 protected:
  void SetUp() override;
  ApiServerOptions options() const override;
};

}  // namespace kueuepp::kube::server::testing

#include "tests/kube/apiserver/server/server_fixture.hpp"

#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include <spdlog/spdlog.h>

namespace kueuepp::kube::server::testing {

namespace fs = std::filesystem;

std::string shared_dir() {
  if (const char* env = std::getenv("KUEUEPP_SHARED_DIR"); env != nullptr && *env != '\0') return env;
#ifdef KUEUEPP_SHARED_DIR
  return KUEUEPP_SHARED_DIR;
#else
  return std::string(KUEUEPP_SOURCE_DIR) + "/../shared";
#endif
}

std::string crds_dir() {
  std::string dir = shared_dir() + "/kueue-crds";
  std::error_code ec;
  return fs::is_directory(dir, ec) ? dir : std::string();
}

json::value body_json(const HttpReply& reply) {
  auto parsed = json::parse(reply.body);
  return parsed ? std::move(*parsed) : json::value();
}

const json::value* at(const json::value& v, std::string_view pointer) {
  boost::system::error_code ec;
  return v.find_pointer(pointer, ec);
}

std::string str(const json::value& v, std::string_view pointer) {
  const json::value* found = at(v, pointer);
  return found != nullptr && found->is_string() ? std::string(found->get_string()) : std::string();
}

std::optional<std::int64_t> num(const json::value& v, std::string_view pointer) {
  const json::value* found = at(v, pointer);
  if (found == nullptr) return std::nullopt;
  if (found->is_int64()) return found->get_int64();
  if (found->is_uint64()) return static_cast<std::int64_t>(found->get_uint64());
  return std::nullopt;
}

std::uint64_t rv_of(const json::value& object) {
  std::string rv = str(object, "/metadata/resourceVersion");
  return rv.empty() ? 0 : std::stoull(rv);
}

std::vector<std::string> item_names(const json::value& list) {
  std::vector<std::string> out;
  const json::value* items = at(list, "/items");
  if (items == nullptr || !items->is_array()) return out;
  for (const auto& item : items->as_array()) out.push_back(str(item, "/metadata/name"));
  return out;
}

std::vector<std::string> cause_fields(const json::value& status) {
  std::vector<std::string> out;
  const json::value* causes = at(status, "/details/causes");
  if (causes == nullptr || !causes->is_array()) return out;
  for (const auto& c : causes->as_array()) out.push_back(str(c, "/field"));
  return out;
}

TempDir::TempDir() {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / ("kueuepp-server-test-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(p);
  path_ = p.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

json::value job(std::string_view name, json::object labels) {
  return json::object{
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
      {"spec",
       json::object{{"suspend", true},
                    {"template",
                     json::object{{"spec", json::object{{"restartPolicy", "Never"},
                                                        {"containers", json::array{json::object{
                                                                           {"name", "main"},
                                                                           {"image", "busybox"},
                                                                           {"command", json::array{"sleep", "10"}}}}}}}}}}}};
}

json::value name_space(std::string_view name, json::object labels) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Namespace"},
                      {"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}}};
}

json::value resource_flavor(std::string_view name) {
  return json::object{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "ResourceFlavor"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"nodeLabels", json::object{{"pool", "a"}}}}}};
}

json::value cluster_queue(std::string_view name, std::string_view cpu_quota) {
  json::object resource{{"name", "cpu"}, {"nominalQuota", cpu_quota}};
  json::object flavor{{"name", "default"}, {"resources", json::array{resource}}};
  json::object group{{"coveredResources", json::array{"cpu"}}, {"flavors", json::array{flavor}}};
  return json::object{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "ClusterQueue"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"namespaceSelector", json::object{}},
                                            {"resourceGroups", json::array{group}}}}};
}

json::value workload(std::string_view name) {
  json::object container{{"name", "c"},
                         {"image", "busybox"},
                         {"resources", json::object{{"requests", json::object{{"cpu", "1"}}}}}};
  json::object pod_set{{"name", "main"},
                       {"count", 1},
                       {"template", json::object{{"spec", json::object{{"restartPolicy", "Never"},
                                                                        {"containers", json::array{container}}}}}}};
  return json::object{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "Workload"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"queueName", "lq"}, {"podSets", json::array{pod_set}}}}};
}

HttpReply ApiClient::request(std::string_view method, std::string_view target, std::string_view body,
                             std::string_view content_type,
                             const std::vector<std::pair<std::string, std::string>>& headers) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!conn_ || !conn_->connected()) conn_ = std::make_unique<HttpConnection>(port_);
    HttpReply reply = conn_->request(method, target, body, content_type, headers);
    bool closes = reply.header("connection") == "close";
    if (reply.status == 0 || closes) conn_.reset();
    // No answer at all: the keep-alive connection was gone before the request; retry once
    // on a new one (the request never reached the server).
    if (reply.status != 0 || attempt == 1) return reply;
  }
  return {};
}

ApiServerOptions test_options() {
  ApiServerOptions o;
  o.listen = "127.0.0.1:0";
  o.fsync = false;
  return o;
}

void ServerTest::SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

void ServerTest::SetUp() { start(options()); }

void ServerTest::TearDown() { stop(); }

void ServerTest::start(ApiServerOptions opts) {
  stop();
  auto started = ApiServer::start(std::move(opts));
  ASSERT_TRUE(started) << started.error().message;
  server_ = std::move(*started);
  client_ = std::make_unique<ApiClient>(server_->port());
}

void ServerTest::stop() {
  client_.reset();
  if (server_) server_->stop();
  server_.reset();
}

json::value ServerTest::expect(int status, const HttpReply& reply) {
  EXPECT_EQ(reply.status, status) << reply.body;
  return body_json(reply);
}

void ServerTest::make_namespace(std::string_view name) { create("/api/v1/namespaces", name_space(name)); }

bool ServerTest::wait_gone(std::string_view target, std::chrono::milliseconds timeout) {
  return wait_until([&] { return api().get(target).status == 404; }, timeout);
}

void KueueServerTest::SetUp() {
  if (crds_dir().empty()) GTEST_SKIP() << "needs the Kueue CRDs in " << shared_dir() << "/kueue-crds";
  ServerTest::SetUp();
}

ApiServerOptions KueueServerTest::options() const {
  ApiServerOptions o = test_options();
  o.crd_paths = {crds_dir()};
  return o;
}

}  // namespace kueuepp::kube::server::testing

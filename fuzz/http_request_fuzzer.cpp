// Fuzzes what the embedded API server does with the bytes a client sends: HTTP/1.1
// request parsing (Beast's parser with the limits kube/apiserver/server/net/http_session.cpp
// sets: request line, headers, chunked or sized bodies), then the request as the session
// hands it to the API layer: target and query (parse_target), content negotiation
// (Accept, Content-Type), and the whole ApiHandler over a fresh in-memory server: routing,
// authentication, list options and selectors, body decoding (JSON and YAML), the patch
// types, validation, CRDs and their schemas, watches. One input may hold several requests
// back to back (keep-alive), so a create can be followed by reads, patches and watches of
// what it created.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/api_handler.hpp"
#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/bootstrap.hpp"
#include "kube/apiserver/server/controllers/cluster_role_aggregation.hpp"
#include "kube/apiserver/server/controllers/crd_controller.hpp"
#include "kube/apiserver/server/controllers/garbage_collector.hpp"
#include "kube/apiserver/server/controllers/namespace_controller.hpp"
#include "kube/apiserver/server/http/http_types.hpp"
#include "kube/apiserver/server/net/http_session.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace kueuepp::kube::server;

constexpr int kMaxRequests = 8;
constexpr std::size_t kMaxStreamBytes = 1 << 20;

// Posted tasks run after each request, as the io thread would run them; timers (watch
// timeouts, bookmarks) never fire, and are dropped with the server.
class ManualScheduler final : public Scheduler {
 public:
  void post(std::function<void()> task) override { tasks_.push_back(std::move(task)); }
  std::shared_ptr<TimerHandle> after(std::chrono::milliseconds, std::function<void()>) override {
    return std::make_shared<NoTimer>();
  }
  void run() {
    // Bounded: a controller that keeps posting work must not hang the fuzzer.
    for (int i = 0; i < 10000 && !tasks_.empty(); ++i) {
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      task();
    }
    tasks_.clear();
  }

 private:
  struct NoTimer final : TimerHandle {
    void cancel() override {}
  };
  std::deque<std::function<void()>> tasks_;
};

// The answer to one request: a response, or a stream whose bytes are counted (and
// refused past a bound, as a slow client's would be).
class Capture final : public Responder, public StreamSink, public std::enable_shared_from_this<Capture> {
 public:
  void respond(HttpResponse response) override {
    if (answered_) __builtin_trap();  // one answer per request
    answered_ = true;
    status_ = response.status;
    (void)response.body_text().size();
  }
  std::shared_ptr<StreamSink> stream(int status, std::string, kueuepp::http::Headers) override {
    if (answered_) __builtin_trap();
    answered_ = true;
    status_ = status;
    return shared_from_this();
  }
  bool write(std::shared_ptr<const std::string> data) override {
    if (closed_ || data == nullptr) return false;
    bytes_ += data->size();
    return bytes_ <= kMaxStreamBytes;
  }
  void finish(std::shared_ptr<const std::string>) override { close(); }
  void on_close(std::function<void()> callback) override {
    if (closed_) return callback();
    callbacks_.push_back(std::move(callback));
  }
  bool closed() const override { return closed_; }
  // The client goes away.
  void close() {
    if (closed_) return;
    closed_ = true;
    auto callbacks = std::move(callbacks_);
    callbacks_.clear();
    for (auto& cb : callbacks) cb();
  }

 private:
  bool answered_ = false;
  bool closed_ = false;
  int status_ = 0;
  std::size_t bytes_ = 0;
  std::vector<std::function<void()>> callbacks_;
};

// A fresh in-memory API server, as ApiServerImpl wires it (no network, no data directory,
// no authentication, no admission webhooks: nothing it would call out to).
struct Server {
  ManualScheduler scheduler;
  ServerContext ctx{scheduler, 1000};
  GarbageCollector gc{ctx};
  NamespaceController namespaces{ctx};
  ClusterRoleAggregationController role_aggregation{ctx};
  CrdController crds{ctx};
  std::optional<ApiHandler> handler;

  Server() {
    register_builtin_kinds(ctx.registry, ctx.store);
    ctx.observe([this](const Change& c) { crds.observe(c); });
    ctx.observe([this](const Change& c) { gc.observe(c); });
    ctx.observe([this](const Change& c) { namespaces.observe(c); });
    ctx.observe([this](const Change& c) { role_aggregation.observe(c); });
    ctx.watches.set_published_rv(ctx.store.current_rv());
    if (!create_bootstrap_objects(ctx)) __builtin_trap();
    handler.emplace(ctx, ApiHandlerOptions{});
  }
};

// The request as HttpSession::on_read builds it from Beast's message.
HttpRequest to_request(http::request<http::string_body>& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (char& c : name) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    out.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  out.body = std::move(req.body());
  out.remote = "127.0.0.1:1";
  return out;
}

// What the API layer reads of every request before routing it.
void read_request_parts(const HttpRequest& request) {
  if (auto parsed = parse_target(request.target)) {
    const auto& [info, query] = *parsed;
    (void)query.flag("watch");
    (void)query.get_or("labelSelector", "");
    (void)info.parts.size();
  }
  (void)parse_accept(request.header("accept"));
  (void)parse_media_type(request.header("content-type"));
  (void)negotiate_resource(request.header("accept"));
  (void)negotiate_discovery(request.header("accept"));
  (void)negotiate_plain(request.header("accept"));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const SessionLimits limits;
  std::optional<Server> server;
  std::vector<std::shared_ptr<Capture>> streams;
  beast::flat_buffer buffer;
  if (size > 0) {  // libFuzzer's empty input comes with a null pointer, which memcpy may not take
    auto space = buffer.prepare(size);
    std::memcpy(space.data(), data, size);
    buffer.commit(size);
  }
  for (int n = 0; n < kMaxRequests && buffer.size() > 0; ++n) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.header_limit));
    parser.body_limit(limits.body_limit);
    parser.eager(true);
    beast::error_code ec;
    while (!parser.is_done() && buffer.size() > 0) {
      const std::size_t used = parser.put(buffer.data(), ec);
      buffer.consume(used);
      if (ec || used == 0) break;
    }
    // The session answers a malformed request (400, 413, 431) and closes the connection.
    if (ec && ec != http::error::need_more) break;
    if (!parser.is_done()) {
      parser.put_eof(ec);
      if (ec || !parser.is_done()) break;
    }
    auto message = parser.release();
    const bool keep_alive = message.keep_alive();
    HttpRequest request = to_request(message);
    read_request_parts(request);
    if (!server) server.emplace();
    auto capture = std::make_shared<Capture>();
    try {
      server->handler->handle(request, capture);
    } catch (const std::exception&) {
      // HttpSession answers 500 to a handler that throws; the request is not lost but it
      // is a bug all the same.
      __builtin_trap();
    }
    server->scheduler.run();
    streams.push_back(std::move(capture));
    if (!keep_alive) break;
  }
  // The clients go away: their watches end.
  for (auto& stream : streams) stream->close();
  if (server) server->scheduler.run();
  return 0;
}

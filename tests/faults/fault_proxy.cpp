#include "tests/faults/fault_proxy.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "tests/faults/fault_decider.hpp"
#include "tests/faults/proxy_context.hpp"
#include "tests/faults/proxy_session.hpp"

namespace kueuepp::faults {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
/// How long stop() waits for the connections it closed to finish their last step.
constexpr std::chrono::milliseconds kStopGrace{2000};

Expected<std::vector<tcp::endpoint>> resolve(const std::string& host, std::uint16_t port, const std::string& what) {
  asio::io_context io;
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return fail("cannot resolve the " + what + " address " + host + ":" + std::to_string(port) + ": " +
                (ec ? ec.message() : "no address") + "; give an IP address such as 127.0.0.1");
  }
  std::vector<tcp::endpoint> out;
  for (const auto& r : results) out.push_back(r.endpoint());
  return out;
}

}  // namespace

struct FaultProxy::Impl {
  // Declared first so that it outlives the io_context: connections destroyed with the
  // io_context's leftover handlers unregister themselves from it.
  std::unique_ptr<ProxyContext> ctx;
  asio::io_context io;
  asio::strand<asio::io_context::executor_type> control{asio::make_strand(io)};
  tcp::acceptor acceptor{control};
  asio::steady_timer blackout_timer{control};
  std::vector<std::thread> threads;
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t next_connection = 1;
  std::atomic<bool> stopped{false};

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> blackout_loop();
};

asio::awaitable<void> FaultProxy::Impl::accept_loop() {
  for (;;) {
    tcp::socket socket(asio::make_strand(io));
    auto [ec] = co_await acceptor.async_accept(socket, use_tuple);
    if (ctx->stopping() || ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) {
      // Out of descriptors or a connection aborted while queued: pause, then go on.
      ctx->note("accept failed: " + ec.message());
      asio::steady_timer pause(control, std::chrono::milliseconds(50));
      co_await pause.async_wait(use_tuple);
      continue;
    }
    ctx->count_connection();
    if (auto rule = ctx->decider().blackout_at(ctx->elapsed())) {
      boost::system::error_code ignored;
      socket.set_option(asio::socket_base::linger(true, 0), ignored);
      socket.close(ignored);
      ctx->record_fault(*rule, FaultKind::blackout, "-", "-", "new connection reset during an outage");
      continue;
    }
    start_proxy_session(*ctx, std::move(socket), next_connection++);
  }
}

asio::awaitable<void> FaultProxy::Impl::blackout_loop() {
  struct Edge {
    std::chrono::milliseconds at;
    std::size_t rule;
    bool begins;
  };
  std::vector<Edge> edges;
  for (const auto& window : ctx->decider().blackouts()) {
    edges.push_back(Edge{window.from, window.rule, true});
    if (window.until) edges.push_back(Edge{*window.until, window.rule, false});
  }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  for (const auto& edge : edges) {
    blackout_timer.expires_at(ctx->started() + edge.at);
    auto [ec] = co_await blackout_timer.async_wait(use_tuple);
    if (ec || ctx->stopping()) co_return;
    if (edge.begins) {
      const std::size_t closed = ctx->close_connections(true);
      ctx->record_fault(edge.rule, FaultKind::blackout, "-", "-",
                        "outage begins: " + std::to_string(closed) + " open connections reset", closed);
    } else {
      ctx->note("rule " + std::to_string(edge.rule) + ": outage ends");
    }
  }
}

FaultProxy::FaultProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FaultProxy::~FaultProxy() { stop(); }

Expected<std::unique_ptr<FaultProxy>> FaultProxy::start(FaultProxyOptions options) {
  if (options.upstream_port == 0) return fail("fault proxy: give the upstream API server's port (upstream_port)");
  if (options.io_threads < 1) return fail("fault proxy: io_threads must be at least 1");
  auto decider = FaultDecider::create(options.plan);
  if (!decider) return fail("fault plan: " + decider.error().message);
  auto log = FaultLog::open(options.log_path);
  if (!log) return unexpected(log.error());
  auto upstream = resolve(options.upstream_host, options.upstream_port, "upstream");
  if (!upstream) return unexpected(upstream.error());
  auto listen = resolve(options.listen_host, options.listen_port, "listen");
  if (!listen) return unexpected(listen.error());

  auto impl = std::make_unique<Impl>();
  const tcp::endpoint endpoint = listen->front();
  boost::system::error_code ec;
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail("fault proxy cannot listen on " + options.listen_host + ":" + std::to_string(options.listen_port) +
                ": " + ec.message() + "; pick another port (0 picks a free one)");
  }
  impl->port = impl->acceptor.local_endpoint().port();
  impl->host = options.listen_host;
  const int threads = options.io_threads;
  const std::string upstream_text = options.upstream_host + ":" + std::to_string(options.upstream_port);
  impl->ctx = std::make_unique<ProxyContext>(std::move(options), std::move(*decider), std::move(*log),
                                             std::move(*upstream));

  const FaultPlan& plan = impl->ctx->decider().plan();
  impl->ctx->note("fault proxy listening on " + impl->host + ":" + std::to_string(impl->port) + ", upstream " +
                  upstream_text + ", seed " + std::to_string(plan.seed) + ", " + std::to_string(plan.rules.size()) +
                  " rules");
  for (std::size_t i = 0; i < plan.rules.size(); ++i) {
    impl->ctx->note("rule " + std::to_string(i) + ": " + describe_rule(plan.rules[i]));
  }

  Impl* raw = impl.get();
  asio::co_spawn(raw->control, raw->accept_loop(), asio::detached);
  if (!raw->ctx->decider().blackouts().empty()) asio::co_spawn(raw->control, raw->blackout_loop(), asio::detached);
  for (int i = 0; i < threads; ++i) raw->threads.emplace_back([raw] { raw->io.run(); });
  return std::unique_ptr<FaultProxy>(new FaultProxy(std::move(impl)));
}

std::uint16_t FaultProxy::port() const { return impl_->port; }

std::string FaultProxy::url() const {
  const bool v6 = impl_->host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + impl_->host + "]" : impl_->host) + ":" + std::to_string(impl_->port);
}

void FaultProxy::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  Impl& impl = *impl_;
  asio::post(impl.control, [&impl] {
    boost::system::error_code ec;
    impl.acceptor.close(ec);
    impl.blackout_timer.cancel();
  });
  impl.ctx->begin_stop();
  if (!impl.ctx->wait_connections_gone(kStopGrace)) {
    impl.ctx->note("stop: some connections did not finish in time; their sockets close with the proxy");
  }
  // Whatever is left (the accept loop's last completion) need not run.
  impl.io.stop();
  for (auto& t : impl.threads) {
    if (t.joinable()) t.join();
  }
  boost::system::error_code ec;
  impl.acceptor.close(ec);
  impl.ctx->note("fault proxy stopped: " + impl.ctx->stats().json());
}

FaultProxyStats FaultProxy::stats() const { return impl_->ctx->stats(); }

std::string FaultProxy::stats_json() const { return stats().json(); }

std::chrono::milliseconds FaultProxy::elapsed() const { return impl_->ctx->elapsed(); }

}  // namespace kueuepp::faults

#include "cmd/standalone/probe_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <future>
#include <thread>

namespace kueuepp::cmd {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

struct ProbeServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  ProbeHandler handler;
  std::chrono::milliseconds timeout;
  std::thread thread;
  std::atomic<bool> stopping{false};

  void serve(tcp::socket socket) {
    boost::beast::flat_buffer buffer;
    http::request_parser<http::string_body> parser;
    parser.body_limit(64 * 1024);
    boost::system::error_code ec;
    http::read(socket, buffer, parser, ec);
    http::response<http::string_body> res;
    res.version(11);
    res.keep_alive(false);
    if (ec) {
      res.result(http::status::bad_request);
      res.set(http::field::content_type, "text/plain");
      res.body() = "malformed request: " + ec.message() + "\n";
    } else if (parser.get().method() != http::verb::get) {
      res.result(http::status::method_not_allowed);
      res.set(http::field::content_type, "text/plain");
      res.body() = "only GET is served here\n";
    } else {
      std::string target(parser.get().target());
      std::string path = target.substr(0, target.find('?'));
      auto promise = std::make_shared<std::promise<std::tuple<int, std::string, std::string>>>();
      auto answered = std::make_shared<std::atomic<bool>>(false);
      auto future = promise->get_future();
      handler(path, [promise, answered](int status, std::string type, std::string body) {
        if (answered->exchange(true)) return;
        promise->set_value({status, std::move(type), std::move(body)});
      });
      if (future.wait_for(timeout) == std::future_status::ready) {
        auto [status, type, body] = future.get();
        res.result(static_cast<unsigned>(status));
        res.set(http::field::content_type, type);
        res.body() = std::move(body);
      } else {
        res.result(http::status::service_unavailable);
        res.set(http::field::content_type, "text/plain");
        res.body() = "no answer within the timeout\n";
      }
    }
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  void run() {
    while (!stopping) {
      boost::system::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) {
        if (stopping) return;
        continue;
      }
      serve(std::move(socket));
    }
  }
};

ProbeServer::ProbeServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProbeServer::~ProbeServer() { stop(); }

Expected<std::unique_ptr<ProbeServer>> ProbeServer::start(const std::string& listen, ProbeHandler handler,
                                                          std::chrono::milliseconds timeout) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return fail("--probe-listen \"" + listen + "\" is not ADDR:PORT");
  auto impl = std::make_unique<Impl>();
  impl->handler = std::move(handler);
  impl->timeout = timeout;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(listen.substr(0, colon), ec);
  if (ec) return fail("--probe-listen \"" + listen + "\": bad address: " + ec.message());
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    return fail("--probe-listen \"" + listen + "\": bad port");
  }
  tcp::endpoint endpoint(address, static_cast<std::uint16_t>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("cannot listen on " + listen + ": " + ec.message());
  auto* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<ProbeServer>(new ProbeServer(std::move(impl)));
}

std::uint16_t ProbeServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void ProbeServer::stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  boost::system::error_code ec;
  // Wake the blocking accept with a connection of our own.
  try {
    tcp::socket wake(impl_->io);
    wake.connect(impl_->acceptor.local_endpoint(), ec);
  } catch (...) {
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->acceptor.close(ec);
}

}  // namespace kueuepp::cmd

#include "cmd/standalone/probe_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "cmd/standalone/server_sent_events.hpp"

namespace kueuepp::cmd {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

struct ProbeServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  ProbeHandler handler;
  ProbeServerOptions options;
  std::thread thread;
  std::atomic<bool> stopping{false};

  struct Stream {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex streams_mutex;
  std::condition_variable streams_wake;  ///< wakes the streams when the server stops
  std::list<Stream> streams;

  using Answer = std::tuple<int, std::string, std::string>;

  /// The last answer of each stream source: streams of one source share it for a period,
  /// so N open pages cost one query a period, not N.
  struct SharedAnswer {
    std::chrono::steady_clock::time_point at;
    std::optional<Answer> answer;
  };
  std::mutex shared_mutex;
  std::map<std::string, SharedAnswer> shared_answers;

  /// The handler's answer for `target`, or nothing within the timeout.
  std::optional<Answer> ask(const std::string& target) {
    auto promise = std::make_shared<std::promise<Answer>>();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    auto future = promise->get_future();
    handler(target, [promise, answered](int status, std::string type, std::string body) {
      if (answered->exchange(true)) return;
      promise->set_value({status, std::move(type), std::move(body)});
    });
    if (future.wait_for(options.timeout) != std::future_status::ready) return std::nullopt;
    return future.get();
  }

  /// The source's answer, asked at most once a period whatever the number of streams.
  std::optional<Answer> ask_shared(const ProbeStream& stream) {
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(shared_mutex);
      auto it = shared_answers.find(stream.source);
      if (it != shared_answers.end() && now - it->second.at < stream.period) return it->second.answer;
    }
    auto answer = ask(stream.source);
    std::lock_guard lock(shared_mutex);
    shared_answers[stream.source] = SharedAnswer{now, answer};
    return answer;
  }

  const ProbeStream* stream_at(const std::string& path) const {
    for (const auto& s : options.streams) {
      if (s.path == path) return &s;
    }
    return nullptr;
  }

  /// Serves one event stream until the client goes or the server stops.
  void run_stream(tcp::socket socket, const ProbeStream& stream) {
    boost::system::error_code ec;
    asio::write(socket, asio::buffer(sse_response_head()), ec);
    std::string last;
    auto last_write = std::chrono::steady_clock::now();
    while (!ec && !stopping) {
      auto answer = ask_shared(stream);
      const auto now = std::chrono::steady_clock::now();
      if (answer && std::get<0>(*answer) == 200 && std::get<2>(*answer) != last) {
        last = std::move(std::get<2>(*answer));
        asio::write(socket, asio::buffer(sse_event(stream.event, last)), ec);
        last_write = now;
      } else if (now - last_write >= options.keepalive) {
        asio::write(socket, asio::buffer(sse_comment("keepalive")), ec);
        last_write = now;
      }
      std::unique_lock lock(streams_mutex);
      streams_wake.wait_for(lock, stream.period, [this] { return stopping.load(); });
    }
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  /// Hands `socket` to a thread of its own, or refuses it when `max_streams` run.
  void start_stream(tcp::socket socket, const ProbeStream& stream) {
    std::lock_guard lock(streams_mutex);
    for (auto it = streams.begin(); it != streams.end();) {
      if (*it->done) {
        it->thread.join();
        it = streams.erase(it);
      } else {
        ++it;
      }
    }
    if (streams.size() >= options.max_streams) {
      boost::system::error_code ec;
      const std::string busy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nRetry-After: 5\r\nConnection: close\r\n"
          "Content-Length: 40\r\n\r\ntoo many event streams; try again later\n";
      asio::write(socket, asio::buffer(busy), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      return;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto shared_socket = std::make_shared<tcp::socket>(std::move(socket));
    streams.push_back(Stream{std::thread([this, shared_socket, &stream, done] {
                               run_stream(std::move(*shared_socket), stream);
                               *done = true;
                             }),
                             done});
  }

  void stop_streams() {
    {
      std::lock_guard lock(streams_mutex);
      streams_wake.notify_all();
    }
    std::list<Stream> running;
    {
      std::lock_guard lock(streams_mutex);
      running.swap(streams);
    }
    for (auto& s : running) {
      if (s.thread.joinable()) s.thread.join();
    }
  }

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
      if (const ProbeStream* stream = stream_at(target.substr(0, target.find('?')))) {
        start_stream(std::move(socket), *stream);
        return;
      }
      if (auto answer = ask(target)) {
        auto [status, type, body] = std::move(*answer);
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
  ProbeServerOptions options;
  options.timeout = timeout;
  return start(listen, std::move(handler), std::move(options));
}

Expected<std::unique_ptr<ProbeServer>> ProbeServer::start(const std::string& listen, ProbeHandler handler,
                                                          ProbeServerOptions options) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return fail("--probe-listen \"" + listen + "\" is not ADDR:PORT");
  auto impl = std::make_unique<Impl>();
  impl->handler = std::move(handler);
  impl->options = std::move(options);
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
  impl_->stop_streams();
  impl_->acceptor.close(ec);
}

}  // namespace kueuepp::cmd

#include "tests/kube/client/support/test_server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <mutex>
#include <set>
#include <thread>

namespace kueuepp::kube::client::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

std::string TestRequest::header(std::string_view name) const {
  auto v = find_header(headers, name);
  return v ? std::string(*v) : std::string();
}

TestResponse TestResponse::json(int status, std::string body) {
  TestResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = std::move(body);
  return r;
}

struct TestServer::State {
  TestHandler handler;
  std::optional<TestTlsOptions> tls_options;
  std::unique_ptr<ssl::context> tls;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::uint16_t port = 0;
  std::atomic<bool> stopping{false};
  std::thread accept_thread;

  mutable std::mutex mutex;
  std::vector<std::thread> connection_threads;
  std::set<int> open_fds;
  std::vector<TestRequest> requests;
  int accepted = 0;

  void accept_loop();
  void serve(tcp::socket socket, int id);
  template <class Stream>
  void serve_stream(Stream& stream, int fd, int id, const std::string& client_cn);
  template <class Stream>
  bool answer(Stream& stream, int fd, const TestResponse& response, bool keep_alive);
};

namespace {

bool wait_readable_or_closed(int fd, const std::atomic<bool>& stopping) {
  while (!stopping) {
    pollfd pfd{fd, POLLIN | POLLRDHUP, 0};
    const int r = ::poll(&pfd, 1, 50);
    if (r > 0) return true;
  }
  return false;
}

std::string chunk_frame(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

}  // namespace

void TestServer::State::accept_loop() {
  int next_id = 1;
  while (!stopping) {
    pollfd pfd{acceptor.native_handle(), POLLIN, 0};
    if (::poll(&pfd, 1, 50) <= 0) continue;
    boost::system::error_code ec;
    tcp::socket socket(io);
    acceptor.accept(socket, ec);
    if (ec) continue;
    socket.set_option(tcp::no_delay(true), ec);
    const int id = next_id++;
    std::lock_guard lock(mutex);
    ++accepted;
    open_fds.insert(socket.native_handle());
    connection_threads.emplace_back(
        [this, s = std::move(socket), id]() mutable { serve(std::move(s), id); });
  }
}

void TestServer::State::serve(tcp::socket socket, int id) {
  const int fd = socket.native_handle();
  if (tls) {
    ssl::stream<tcp::socket> stream(std::move(socket), *tls);
    boost::system::error_code ec;
    stream.handshake(ssl::stream_base::server, ec);
    std::string cn;
    if (!ec) {
      if (X509* peer = SSL_get1_peer_certificate(stream.native_handle())) {
        char buf[256] = {};
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, buf, sizeof buf);
        cn = buf;
        X509_free(peer);
      }
      serve_stream(stream, fd, id, cn);
    }
    stream.lowest_layer().close(ec);
  } else {
    serve_stream(socket, fd, id, "");
    boost::system::error_code ec;
    socket.close(ec);
  }
  std::lock_guard lock(mutex);
  open_fds.erase(fd);
}

template <class Stream>
void TestServer::State::serve_stream(Stream& stream, int fd, int id, const std::string& client_cn) {
  beast::flat_buffer buffer;
  while (!stopping) {
    http::request<http::string_body> req;
    boost::system::error_code ec;
    http::read(stream, buffer, req, ec);
    if (ec) return;
    TestRequest request;
    request.method = std::string(std::string_view(req.method_string()));
    request.target = std::string(std::string_view(req.target()));
    for (const auto& f : req) {
      request.headers.emplace_back(std::string(std::string_view(f.name_string())),
                                   std::string(std::string_view(f.value())));
    }
    request.body = req.body();
    request.connection = id;
    request.client_cert_cn = client_cn;
    {
      std::lock_guard lock(mutex);
      requests.push_back(request);
    }
    const TestResponse response = handler(request);
    if (response.drop) return;
    if (!answer(stream, fd, response, req.keep_alive() && !response.close_after)) return;
  }
}

template <class Stream>
bool TestServer::State::answer(Stream& stream, int fd, const TestResponse& response,
                               bool keep_alive) {
  boost::system::error_code ec;
  if (response.chunks.empty() && !response.hold_open) {
    http::response<http::string_body> res{static_cast<http::status>(response.status), 11};
    for (const auto& [k, v] : response.headers) res.insert(k, v);
    res.body() = response.body;
    res.keep_alive(keep_alive);
    res.prepare_payload();
    http::write(stream, res, ec);
    return !ec && keep_alive;
  }
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " X\r\n";
  bool has_type = false;
  for (const auto& [k, v] : response.headers) {
    head += k + ": " + v + "\r\n";
    has_type |= iequals(k, "Content-Type");
  }
  if (!has_type) head += "Content-Type: application/json\r\n";
  head += "Transfer-Encoding: chunked\r\n";
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  asio::write(stream, asio::buffer(head), ec);
  if (ec) return false;
  const std::size_t per_write = std::max<std::size_t>(response.chunks_per_write, 1);
  for (std::size_t i = 0; i < response.chunks.size(); i += per_write) {
    if (stopping) return false;
    if (response.chunk_delay.count() > 0) std::this_thread::sleep_for(response.chunk_delay);
    std::string frames;
    for (std::size_t j = i; j < std::min(i + per_write, response.chunks.size()); ++j) {
      frames += chunk_frame(response.chunks[j]);
    }
    asio::write(stream, asio::buffer(frames), ec);
    if (ec) return false;
  }
  if (response.hold_open) {
    wait_readable_or_closed(fd, stopping);
    return false;
  }
  asio::write(stream, asio::buffer(std::string("0\r\n\r\n")), ec);
  return !ec && keep_alive;
}

TestServer::TestServer(std::shared_ptr<State> state) : state_(std::move(state)) {}

TestServer::~TestServer() { stop(); }

std::unique_ptr<TestServer> TestServer::start(TestHandler handler,
                                              std::optional<TestTlsOptions> tls) {
  auto state = std::make_shared<State>();
  state->handler = std::move(handler);
  if (tls) {
    state->tls = std::make_unique<ssl::context>(ssl::context::tls_server);
    state->tls->use_certificate_chain(asio::buffer(tls->cert_pem));
    state->tls->use_private_key(asio::buffer(tls->key_pem), ssl::context::pem);
    if (!tls->client_ca_pem.empty()) {
      state->tls->add_certificate_authority(asio::buffer(tls->client_ca_pem));
      state->tls->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    state->tls_options = std::move(tls);
  }
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  state->acceptor.open(endpoint.protocol());
  state->acceptor.set_option(tcp::acceptor::reuse_address(true));
  state->acceptor.bind(endpoint);
  state->acceptor.listen();
  state->port = state->acceptor.local_endpoint().port();
  state->accept_thread = std::thread([s = state.get()] { s->accept_loop(); });
  return std::unique_ptr<TestServer>(new TestServer(std::move(state)));
}

void TestServer::stop() {
  if (state_->stopping.exchange(true)) return;
  if (state_->accept_thread.joinable()) state_->accept_thread.join();
  drop_connections();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(state_->mutex);
    threads.swap(state_->connection_threads);
  }
  for (auto& t : threads) t.join();
  boost::system::error_code ec;
  state_->acceptor.close(ec);
}

void TestServer::drop_connections() {
  std::lock_guard lock(state_->mutex);
  for (int fd : state_->open_fds) ::shutdown(fd, SHUT_RDWR);
}

std::uint16_t TestServer::port() const { return state_->port; }

std::string TestServer::url() const {
  return std::string(state_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(state_->port);
}

int TestServer::connections_accepted() const {
  std::lock_guard lock(state_->mutex);
  return state_->accepted;
}

std::vector<TestRequest> TestServer::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests;
}

}  // namespace kueuepp::kube::client::testing

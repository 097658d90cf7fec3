#include "kube/apiserver/server/net/http_session.hpp"

#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/api_handler.hpp"
#include "kube/apiserver/server/net/response_head.hpp"
#include "kube/apiserver/server/net/session_registry.hpp"
#include "kube/tls/client_certificate.hpp"

namespace kueuepp::kube::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

/// The read buffer's starting capacity. Beast reads max(512, free capacity) bytes at a
/// time and its parser consumes the body as it arrives, so a buffer left at its first
/// 512 bytes stays there: every request over 512 bytes (a Workload status patch is ~600)
/// took two reads, two passes through the parser and an extra trip through the event
/// loop. 4 KiB (Go's bufio default, as kube-apiserver reads) holds the usual write whole.
constexpr std::size_t kReadBufferBytes = 4096;

/// One connection. Serves one request at a time; a watch turns the response into a
/// chunked stream fed through the StreamSink interface.
template <class Stream>
class HttpSession : public Session,
                    public Responder,
                    public StreamSink,
                    public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(Stream stream, ApiHandler& handler, const SessionLimits& limits, SessionRegistry& registry)
      : stream_(std::move(stream)), handler_(handler), limits_(limits), registry_(registry) {
    buffer_.reserve(kReadBufferBytes);
  }

  ~HttpSession() override { registry_.remove(this); }

  void start() {
    registry_.add(this->shared_from_this());
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) {
                                  spdlog::debug("TLS handshake failed: {}", ec.message());
                                  return;
                                }
                                self->collect_peer_certificates();
                                self->read_request();
                              });
    } else {
      // send_now's writes must not block the event loop on a slow reader.
      beast::error_code ec;
      stream_.socket().non_blocking(true, ec);
      read_request();
    }
  }

  /// The client's certificate chain, kept for the authenticator (which verifies it
  /// against --client-ca-file): a client that presents none authenticates otherwise.
  void collect_peer_certificates() {
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      auto chain = kube::tls::peer_chain_der(stream_.native_handle());
      if (!chain.empty()) peer_certificates_ = std::make_shared<const std::vector<std::string>>(std::move(chain));
    }
  }

  void shutdown() override {
    closing_ = true;
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
    close_stream();
  }

  // -- Responder ----------------------------------------------------------------------

  void respond(HttpResponse response) override {
    if (answered_) return;
    answered_ = true;
    const bool keep_alive = keep_alive_ && !closing_;
    if (auto head = plain_response_head(response, keep_alive)) {
      // The usual answer: the same bytes Beast would write, in one gathered send.
      log_request(response.status);
      auto out = std::make_shared<std::array<std::string, 2>>(
          std::array<std::string, 2>{std::move(*head), std::move(response.body)});
      const std::string_view body = response.shared_body ? std::string_view(*response.shared_body) : (*out)[1];
      std::array<net::const_buffer, 2> buffers{net::buffer((*out)[0]), net::buffer(body.data(), body.size())};
      std::size_t sent = 0;
      if (send_now(buffers, sent, keep_alive)) return;
      for (auto& b : buffers) {
        const std::size_t skip = std::min(sent, b.size());
        b += skip;
        sent -= skip;
      }
      auto done = [self = this->shared_from_this(), out, shared = std::move(response.shared_body),
                   keep_alive](beast::error_code ec, std::size_t) {
        self->request_.reset();
        if (ec || !keep_alive) return self->close();
        self->read_request();
      };
      if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
        net::async_write(stream_, buffers, std::move(done));
      } else {
        // Not the two-buffer array: Asio's write loop for it hands the TLS stream's
        // flattening layer an empty first buffer once the head is sent, which then writes
        // nothing, and Asio takes a write of nothing for the end (the body was never sent).
        // A sequence Asio consumes generically skips what is sent.
        std::vector<net::const_buffer> sequence(buffers.begin(), buffers.end());
        net::async_write(stream_, sequence, std::move(done));
      }
      return;
    }
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(response.status), 11);
    res->set(http::field::content_type, response.content_type);
    res->set(http::field::cache_control, "no-cache, private");
    for (auto& [name, value] : response.headers) res->insert(name, value);
    res->body() = response.shared_body ? *response.shared_body : std::move(response.body);
    res->keep_alive(keep_alive_ && !closing_);
    res->prepare_payload();
    log_request(response.status);
    http::async_write(stream_, *res, [self = this->shared_from_this(), res](beast::error_code ec, std::size_t) {
      self->request_.reset();
      if (ec || !res->keep_alive()) return self->close();
      self->read_request();
    });
  }

  std::shared_ptr<StreamSink> stream(int status, std::string content_type, kueuepp::http::Headers headers) override {
    answered_ = true;
    streaming_ = true;
    stream_header_.emplace(static_cast<http::status>(status), 11);
    stream_header_->set(http::field::content_type, content_type);
    stream_header_->set(http::field::cache_control, "no-cache, private");
    for (auto& [name, value] : headers) stream_header_->insert(name, value);
    stream_header_->keep_alive(false);
    stream_header_->chunked(true);
    log_request(status);
    beast::get_lowest_layer(stream_).expires_never();
    serializer_.emplace(*stream_header_);
    writing_ = true;
    http::async_write_header(stream_, *serializer_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      self->writing_ = false;
      if (ec) return self->close_stream();
      self->flush();
    });
    watch_for_disconnect();
    return this->shared_from_this();
  }

  // -- StreamSink ---------------------------------------------------------------------

  bool write(std::shared_ptr<const std::string> data) override {
    if (stream_closed_ || finishing_) return false;
    if (queued_bytes_ + data->size() > limits_.stream_buffer_limit) return false;
    queued_bytes_ += data->size();
    queue_.push_back(std::move(data));
    if (!writing_) flush();
    return true;
  }

  void finish(std::shared_ptr<const std::string> last) override {
    if (stream_closed_ || finishing_) return;
    if (last) {
      queued_bytes_ += last->size();
      queue_.push_back(std::move(last));
    }
    finishing_ = true;
    if (!writing_) flush();
  }

  void on_close(std::function<void()> callback) override {
    if (stream_closed_) {
      callback();
      return;
    }
    close_callbacks_.push_back(std::move(callback));
  }

  bool closed() const override { return stream_closed_; }

 private:
  void read_request() {
    if (closing_) return;
    request_.reset();
    answered_ = false;
    streaming_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits_.header_limit));
    parser_->body_limit(limits_.body_limit);
    beast::get_lowest_layer(stream_).expires_after(limits_.read_timeout);
    http::async_read(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  /// While a request's handler runs, its answer is sent at once when the socket takes it
  /// whole (nearly always: a few kB into an empty send buffer), and the next request is
  /// read once the handler has returned (it may still use the request). An asynchronous
  /// write would complete through the event loop: one more handler and one more
  /// epoll_wait per request. True when done (sent, or failed and closing); else `sent`
  /// bytes went out and the caller writes the rest asynchronously. Plain TCP only.
  bool send_now(const std::array<net::const_buffer, 2>& buffers, std::size_t& sent, bool keep_alive) {
    if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
      return false;
    } else {
      if (!in_handler_) return false;
      beast::error_code ec;
      sent = stream_.socket().write_some(buffers, ec);  // non-blocking (start())
      if (ec == net::error::would_block || ec == net::error::try_again) {
        sent = 0;
        return false;
      }
      if (!ec && sent < net::buffer_size(buffers)) return false;
      after_handler_ = ec || !keep_alive ? AfterHandler::Close : AfterHandler::ReadNext;
      return true;
    }
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset) {
      return close();
    }
    if (ec) return reject(ec);
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    request_.emplace();
    request_->method = std::string(req.method_string());
    request_->target = std::string(req.target());
    for (const auto& field : req) {
      std::string name(field.name_string());
      // ASCII only (header names are tokens), without a locale lookup per character.
      for (char& c : name) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
      request_->headers.emplace_back(std::move(name), std::string(field.value()));
    }
    request_->body = std::move(req.body());
    request_->peer_certificates = peer_certificates_;
    started_ = std::chrono::steady_clock::now();
    in_handler_ = true;
    try {
      handler_.handle(*request_, this->shared_from_this());
    } catch (const std::exception& e) {
      // A bug in a handler must not take the server down: answer 500 and log it.
      spdlog::error("handler failed on {} {}: {}", request_->method, request_->target, e.what());
      if (!answered_) respond_status(internal_error(e.what()));
    }
    in_handler_ = false;
    const AfterHandler next = std::exchange(after_handler_, AfterHandler::Nothing);
    if (next == AfterHandler::Nothing) return;
    request_.reset();
    if (next == AfterHandler::Close) return close();
    read_request();
  }

  /// Answers a request that could not be read, then closes.
  void reject(beast::error_code ec) {
    keep_alive_ = false;
    request_.emplace();
    request_->method = parser_ && parser_->is_header_done() ? std::string(parser_->get().method_string()) : "?";
    request_->target = parser_ && parser_->is_header_done() ? std::string(parser_->get().target()) : "?";
    started_ = std::chrono::steady_clock::now();
    if (ec == http::error::body_limit) {
      respond_status(request_too_large(fmt::format("the request body exceeds the limit of {} bytes", limits_.body_limit)));
    } else if (ec == http::error::header_limit) {
      HttpResponse res;
      res.status = 431;
      res.content_type = "text/plain; charset=utf-8";
      res.body = "431 Request Header Fields Too Large";
      respond(std::move(res));
    } else if (ec == http::error::partial_message || ec == http::error::short_read) {
      close();
    } else {
      HttpResponse res;
      res.status = 400;
      res.content_type = "text/plain; charset=utf-8";
      res.body = fmt::format("400 Bad Request: {}", ec.message());
      respond(std::move(res));
    }
  }

  void respond_status(const ApiError& e) {
    HttpResponse res;
    res.status = e.code;
    res.body = json::dump(to_status(e));
    res.headers = e.headers;
    respond(std::move(res));
  }

  void log_request(int status) {
    if (!spdlog::should_log(spdlog::level::debug) || !request_) return;
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_).count();
    spdlog::debug("http method={} target=\"{}\" status={} bytes_in={} duration_us={}", request_->method,
                  request_->target, status, request_->body.size(), micros);
  }

  /// Writes everything queued as one chunk (plus the last chunk when finishing).
  void flush() {
    if (stream_closed_ || writing_ || !serializer_) return;
    if (queue_.empty() && !finishing_) return;
    std::size_t total = 0;
    in_flight_.clear();
    while (!queue_.empty()) {
      total += queue_.front()->size();
      in_flight_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    chunk_header_ = fmt::format("{:x}\r\n", total);
    std::vector<net::const_buffer> buffers;
    buffers.reserve(in_flight_.size() + 3);
    if (total > 0) {
      buffers.push_back(net::buffer(chunk_header_));
      for (const auto& b : in_flight_) buffers.push_back(net::buffer(*b));
      buffers.push_back(net::buffer("\r\n", 2));
    }
    bool last = finishing_;
    if (last) buffers.push_back(net::buffer("0\r\n\r\n", 5));
    writing_ = true;
    net::async_write(stream_, buffers, [self = this->shared_from_this(), total, last](beast::error_code ec, std::size_t) {
      self->writing_ = false;
      self->queued_bytes_ -= std::min(self->queued_bytes_, total);
      self->in_flight_.clear();
      if (ec) return self->close();
      if (last) return self->end_stream();
      self->flush();
    });
  }

  /// The stream ended cleanly. Streams are sent with "Connection: close", so the
  /// connection ends with them (clients open a new one for their next request).
  void end_stream() { close(); }

  void watch_for_disconnect() {
    stream_.async_read_some(net::buffer(probe_), [self = this->shared_from_this()](beast::error_code, std::size_t) {
      // The client closed (or sent data it should not send during a watch).
      self->close();
    });
  }

  void close_stream() {
    if (!streaming_ || stream_closed_) return;
    stream_closed_ = true;
    queue_.clear();
    queued_bytes_ = 0;
    auto callbacks = std::move(close_callbacks_);
    close_callbacks_.clear();
    for (auto& cb : callbacks) cb();
  }

  void close() {
    close_stream();
    if (closed_socket_) return;
    closed_socket_ = true;
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
  }

  Stream stream_;
  ApiHandler& handler_;
  SessionLimits limits_;
  SessionRegistry& registry_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<HttpRequest> request_;
  /// What the TLS client presented, shared by the connection's requests.
  std::shared_ptr<const std::vector<std::string>> peer_certificates_;
  std::chrono::steady_clock::time_point started_;
  bool keep_alive_ = true;
  bool answered_ = false;
  bool in_handler_ = false;  ///< on_read is running the handler
  /// What on_read does once the handler returns, when send_now sent the answer.
  enum class AfterHandler { Nothing, ReadNext, Close } after_handler_ = AfterHandler::Nothing;
  bool closing_ = false;
  bool closed_socket_ = false;

  // Streaming state.
  bool streaming_ = false;
  bool stream_closed_ = false;
  bool finishing_ = false;
  bool writing_ = false;
  std::optional<http::response<http::empty_body>> stream_header_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  std::vector<std::shared_ptr<const std::string>> in_flight_;
  std::size_t queued_bytes_ = 0;
  std::string chunk_header_;
  std::array<char, 512> probe_{};
  std::vector<std::function<void()>> close_callbacks_;
};

}  // namespace

void start_plain_session(tcp::socket socket, ApiHandler& handler, const SessionLimits& limits,
                         SessionRegistry& registry) {
  beast::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  auto session = std::make_shared<HttpSession<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)), handler,
                                                                   limits, registry);
  session->start();
}

void start_tls_session(tcp::socket socket, net::ssl::context& tls, ApiHandler& handler, const SessionLimits& limits,
                       SessionRegistry& registry) {
  beast::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  auto session = std::make_shared<HttpSession<beast::ssl_stream<beast::tcp_stream>>>(
      beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), tls), handler, limits, registry);
  session->start();
}

}  // namespace kueuepp::kube::server

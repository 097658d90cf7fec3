#include "kube/client/detail/transport.hpp"

#include <poll.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <deque>
#include <mutex>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace kueuepp::kube::client::detail {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
// Concrete executor types: with any_io_executor every operation copied, queried and
// destroyed a type-erased executor, several percent of the controller's CPU.
using Strand = asio::strand<asio::io_context::executor_type>;
using TcpStream = beast::basic_stream<tcp, Strand>;
using TlsStream = beast::ssl_stream<TcpStream>;
using Resolver = asio::ip::basic_resolver<tcp, Strand>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, Strand>;

constexpr std::uint32_t kHeaderLimit = 1 << 20;
constexpr std::size_t kStreamBufferSize = 64 * 1024;
// What one read of a connection may take. Beast reads into a flat buffer as much as it
// has room for (at least 512 bytes), and a buffer left to grow on its own stays near
// that: a Workload of a few kilobytes then took four or five system calls to read.
constexpr std::size_t kReadBufferBytes = 64 * 1024;

// -- TLS context -------------------------------------------------------------------

std::string openssl_reason(const error_code& ec) {
  std::string text = ec.message();
  if (ec.category() == asio::error::get_ssl_category()) {
    char buf[256];
    ERR_error_string_n(static_cast<unsigned long>(ec.value()), buf, sizeof buf);
    text = buf;
  }
  return text;
}

Expected<std::shared_ptr<ssl::context>> make_tls_context(const ClientConfig& config) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  error_code ec;
  if (!config.ca_pem.empty()) {
    ctx->add_certificate_authority(asio::buffer(config.ca_pem), ec);
    if (ec) {
      return fail(config.source + ": the certificate authority is not a valid PEM certificate (" +
                  openssl_reason(ec) + "); check certificate-authority(-data)");
    }
  } else if (!config.insecure_skip_tls_verify) {
    ctx->set_default_verify_paths(ec);
    if (ec) return fail("cannot load the system CA certificates: " + openssl_reason(ec));
  }
  if (!config.client_certificate_pem.empty()) {
    ctx->use_certificate_chain(asio::buffer(config.client_certificate_pem), ec);
    if (ec) {
      return fail(config.source + ": the client certificate is not valid PEM (" +
                  openssl_reason(ec) + "); check client-certificate(-data)");
    }
    ctx->use_private_key(asio::buffer(config.client_key_pem), ssl::context::pem, ec);
    if (ec) {
      return fail(config.source + ": the client key is not valid PEM or does not match the "
                  "certificate (" + openssl_reason(ec) + "); check client-key(-data)");
    }
  }
  return ctx;
}

bool is_ip_address(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// -- connections ---------------------------------------------------------------------

// One TCP or TLS connection, bound to its own strand; every operation on it runs there.
class Connection {
 public:
  Connection(Strand strand, ssl::context* tls) : strand_(std::move(strand)), resolver_(strand_) {
    buffer_.reserve(kReadBufferBytes);
    if (tls != nullptr) {
      tls_ = std::make_unique<TlsStream>(strand_, *tls);
    } else {
      tcp_ = std::make_unique<TcpStream>(strand_);
    }
  }

  TcpStream& lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : *tcp_; }
  bool is_tls() const { return tls_ != nullptr; }
  TlsStream& tls() { return *tls_; }
  Resolver& resolver() { return resolver_; }
  beast::flat_buffer& buffer() { return buffer_; }
  const Strand& strand() const { return strand_; }

  /// Runs `f(stream)` with the TCP or the TLS stream.
  template <class F>
  void with_stream(F&& f) {
    if (tls_) f(*tls_);
    else f(*tcp_);
  }

  void close() {
    resolver_.cancel();
    error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    lowest().close();
  }

  // An idle keep-alive connection is reusable when the server has not closed it: the
  // socket must have nothing to read (EOF or stray bytes both mean "do not reuse").
  bool usable_for_reuse() {
    if (!lowest().socket().is_open() || buffer_.size() != 0) return false;
    if (tls_ && SSL_pending(tls_->native_handle()) > 0) return false;
    pollfd pfd{};
    pfd.fd = lowest().socket().native_handle();
    pfd.events = POLLIN | POLLRDHUP;
    const int ready = ::poll(&pfd, 1, 0);
    return ready == 0;
  }

  std::chrono::steady_clock::time_point idle_since;

 private:
  Strand strand_;
  Resolver resolver_;
  std::unique_ptr<TcpStream> tcp_;
  std::unique_ptr<TlsStream> tls_;
  beast::flat_buffer buffer_;
};

using ConnectionPtr = std::shared_ptr<Connection>;

class TransportImpl;

// -- one exchange ----------------------------------------------------------------

// The common part of a request: get a connection (pooled or new), send the request.
// Subclasses read the response. All state is touched on `strand_` only.
class ExchangeBase : public Exchange, public std::enable_shared_from_this<ExchangeBase> {
 public:
  ExchangeBase(TransportImpl& transport, Strand strand, HttpRequest request, std::chrono::milliseconds timeout);

  void start(ConnectionPtr pooled);
  void cancel() override;
  const Strand& strand() const { return strand_; }

 protected:
  virtual void read_response() = 0;
  virtual void complete(Expected<void, ApiError> failure) = 0;

  void fail(const error_code& ec, std::string_view phase, bool not_sent);
  std::string operation() const {
    return std::string(std::string_view(request_.method_string())) + " " +
           std::string(std::string_view(request_.target()));
  }

  /// The exchange must end within `limit` (the request timeout).
  void arm_deadline(std::chrono::milliseconds limit);
  /// From now on the exchange fails only after `limit` without data: each read notes
  /// its data (note_activity), and the timer, when it fires, looks at the last note.
  void arm_idle_deadline(std::chrono::milliseconds limit);
  void note_activity() { last_activity_ = std::chrono::steady_clock::now(); }
  void disarm_deadline();

  TransportImpl& transport_;
  /// HttpRequest::send_before (declared before request_, which the request moves into).
  std::optional<std::chrono::steady_clock::time_point> send_before_;
  http::request<http::string_body> request_;
  std::chrono::milliseconds timeout_;
  Strand strand_;
  ConnectionPtr conn_;
  std::atomic<bool> cancelled_{false};
  bool finished_ = false;

 private:
  void connect();
  void on_connected();
  void write();
  void wait_deadline(std::uint64_t generation);

  // Timeouts are ours, not Beast's: a basic_stream with an expiry starts and cancels a
  // timer wait for every read and write (two more handlers per socket operation). One
  // timer per exchange: a deadline for a request, an idle
  // limit checked against the last data for a stream. `deadline_generation_` tells a
  // wait that fired after being re-armed (its handler already queued) from the current one.
  Timer deadline_;
  std::uint64_t deadline_generation_ = 0;
  std::chrono::milliseconds idle_limit_{0};  ///< 0: a plain deadline
  std::chrono::steady_clock::time_point last_activity_{};
  bool timed_out_ = false;
  bool new_connection_ = false;
};

class TransportImpl : public Transport {
 public:
  TransportImpl(asio::io_context& io, ServerEndpoint endpoint, std::shared_ptr<ssl::context> tls,
                const ClientConfig& config, const ClientOptions& options)
      : io_(io), endpoint_(std::move(endpoint)), tls_(std::move(tls)), options_(options) {
    verify_peer_ = tls_ && !config.insecure_skip_tls_verify;
    verify_name_ = config.tls_server_name.empty() ? endpoint_.host : config.tls_server_name;
  }

  std::shared_ptr<Exchange> send(HttpRequest request, std::chrono::milliseconds timeout,
                                 ResponseCallback done) override;
  std::shared_ptr<Exchange> stream(HttpRequest request, StreamCallbacks callbacks) override;

  void close_idle() override {
    std::deque<ConnectionPtr> idle;
    {
      std::lock_guard lock(mutex_);
      idle.swap(idle_);
    }
    for (ConnectionPtr& c : idle) asio::post(c->strand(), [c] { c->close(); });
  }

  std::uint64_t connections_opened() const override { return opened_.load(); }
  std::uint64_t connections_reused() const override { return reused_.load(); }

  // Used by the exchanges.
  ConnectionPtr new_connection(const Strand& strand) {
    ++opened_;
    return std::make_shared<Connection>(strand, tls_.get());
  }
  void release(ConnectionPtr conn) {
    conn->idle_since = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    if (idle_.size() >= options_.max_idle_connections) {
      asio::post(conn->strand(), [conn] { conn->close(); });
      return;
    }
    idle_.push_back(std::move(conn));
  }
  const ServerEndpoint& endpoint() const { return endpoint_; }
  const ClientOptions& options() const { return options_; }
  bool verify_peer() const { return verify_peer_; }
  const std::string& verify_name() const { return verify_name_; }

  /// Starts an exchange on a pooled connection's strand, or on a new strand that a new
  /// connection will share.
  template <class Op, class... Args>
  std::shared_ptr<Op> launch(Args&&... args) {
    ConnectionPtr pooled = take_idle();
    if (pooled) ++reused_;
    auto op = std::make_shared<Op>(*this, pooled ? pooled->strand() : asio::make_strand(io_),
                                   std::forward<Args>(args)...);
    asio::post(op->strand(), [op, pooled] { op->start(pooled); });
    return op;
  }

 private:
  // The most recently used idle connection that is still open and fresh.
  ConnectionPtr take_idle() {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    while (!idle_.empty()) {
      ConnectionPtr c = std::move(idle_.back());
      idle_.pop_back();
      if (now - c->idle_since < options_.idle_connection_ttl && c->usable_for_reuse()) return c;
      asio::post(c->strand(), [c] { c->close(); });
    }
    return nullptr;
  }

  asio::io_context& io_;
  ServerEndpoint endpoint_;
  std::shared_ptr<ssl::context> tls_;
  ClientOptions options_;
  bool verify_peer_ = false;
  std::string verify_name_;
  std::mutex mutex_;
  std::deque<ConnectionPtr> idle_;
  std::atomic<std::uint64_t> opened_{0};
  std::atomic<std::uint64_t> reused_{0};
};

http::request<http::string_body> to_beast(HttpRequest&& in, const ServerEndpoint& endpoint) {
  http::request<http::string_body> req;
  req.version(11);
  req.method_string(in.method);
  req.target(endpoint.path_prefix + in.target);
  for (auto& [name, value] : in.headers) req.insert(name, value);
  if (req.find(http::field::host) == req.end()) req.set(http::field::host, endpoint.host_header());
  if (in.body) req.body() = std::move(*in.body);
  // Content-Length from the body; a request without a body gets none unless its
  // method expects one (POST/PUT/PATCH get "0"), as Beast decides.
  req.prepare_payload();
  if (in.body && in.body->empty() && req.find(http::field::content_length) == req.end()) {
    req.set(http::field::content_length, "0");
  }
  return req;
}

Headers to_headers(const http::fields& fields) {
  Headers out;
  for (const auto& f : fields) {
    out.emplace_back(std::string(std::string_view(f.name_string())),
                     std::string(std::string_view(f.value())));
  }
  return out;
}

ExchangeBase::ExchangeBase(TransportImpl& transport, Strand strand, HttpRequest request,
                           std::chrono::milliseconds timeout)
    : transport_(transport),
      send_before_(request.send_before),
      request_(to_beast(std::move(request), transport.endpoint())),
      timeout_(timeout),
      strand_(std::move(strand)),
      deadline_(strand_) {}

void ExchangeBase::arm_deadline(std::chrono::milliseconds limit) {
  idle_limit_ = std::chrono::milliseconds(0);
  deadline_.expires_after(limit);
  wait_deadline(++deadline_generation_);
}

void ExchangeBase::arm_idle_deadline(std::chrono::milliseconds limit) {
  idle_limit_ = limit;
  note_activity();
  deadline_.expires_after(limit);
  wait_deadline(++deadline_generation_);
}

void ExchangeBase::disarm_deadline() {
  ++deadline_generation_;
  deadline_.cancel();
}

void ExchangeBase::wait_deadline(std::uint64_t generation) {
  deadline_.async_wait([self = shared_from_this(), generation](const error_code& ec) {
    if (ec || generation != self->deadline_generation_ || self->finished_) return;
    if (self->idle_limit_.count() > 0) {
      const auto quiet = std::chrono::steady_clock::now() - self->last_activity_;
      if (quiet < self->idle_limit_) {  // data came meanwhile: wait out the rest
        self->deadline_.expires_after(self->idle_limit_ - quiet);
        self->wait_deadline(generation);
        return;
      }
    }
    // The pending operation completes with an error, which fail() reports as a timeout.
    self->timed_out_ = true;
    if (self->conn_) self->conn_->close();
  });
}

void ExchangeBase::start(ConnectionPtr pooled) {
  if (cancelled_) {
    ApiError e = make_error(ApiError::Kind::Cancelled, operation(), "cancelled");
    e.not_sent = true;  // nothing was written to a connection yet
    complete(unexpected(std::move(e)));
    return;
  }
  if (pooled) {
    conn_ = std::move(pooled);
    write();
  } else {
    connect();
  }
}

void ExchangeBase::cancel() {
  cancelled_ = true;
  asio::post(strand_, [self = shared_from_this()] {
    if (!self->finished_ && self->conn_) self->conn_->close();
  });
}

void ExchangeBase::fail(const error_code& ec, std::string_view phase, bool not_sent) {
  if (conn_) conn_->close();
  const ServerEndpoint& ep = transport_.endpoint();
  ApiError e;
  if (cancelled_) {
    e = make_error(ApiError::Kind::Cancelled, operation(), "cancelled");
  } else if (ec == beast::error::timeout || timed_out_) {
    e = make_error(ApiError::Kind::Timeout, operation(),
                   std::string(phase) + " " + ep.host_header() + " timed out");
  } else {
    std::string reason = openssl_reason(ec);
    std::string hint;
    if (phase == "TLS handshake with") {
      hint = transport_.verify_peer()
                 ? " (check the server certificate against the configured CA, its name \"" +
                       transport_.verify_name() + "\", and the client certificate)"
                 : "";
    }
    e = make_error(ApiError::Kind::Transport, operation(),
                   std::string(phase) + " " + ep.host_header() + " failed: " + reason + hint);
  }
  e.not_sent = not_sent;
  complete(unexpected(std::move(e)));
}

void ExchangeBase::connect() {
  conn_ = transport_.new_connection(strand_);
  new_connection_ = true;
  const ServerEndpoint& ep = transport_.endpoint();
  auto self = shared_from_this();
  conn_->lowest().expires_after(transport_.options().connect_timeout);
  conn_->resolver().async_resolve(
      ep.host, std::to_string(ep.port),
      [self](const error_code& ec, const Resolver::results_type& results) {
        if (ec || self->cancelled_) return self->fail(ec, "resolving", true);
        self->conn_->lowest().async_connect(
            results, [self](const error_code& cec, const tcp::endpoint&) {
              if (cec || self->cancelled_) return self->fail(cec, "connecting to", true);
              error_code ignored;
              self->conn_->lowest().socket().set_option(tcp::no_delay(true), ignored);
              self->on_connected();
            });
      });
}

void ExchangeBase::on_connected() {
  if (!conn_->is_tls()) return write();
  auto& tls = conn_->tls();
  const std::string& name = transport_.verify_name();
  if (!is_ip_address(name)) SSL_set_tlsext_host_name(tls.native_handle(), name.c_str());
  if (transport_.verify_peer()) {
    tls.set_verify_mode(ssl::verify_peer);
    tls.set_verify_callback(ssl::host_name_verification(name));
  } else {
    tls.set_verify_mode(ssl::verify_none);
  }
  auto self = shared_from_this();
  tls.async_handshake(ssl::stream_base::client, [self](const error_code& ec) {
    if (ec || self->cancelled_) return self->fail(ec, "TLS handshake with", true);
    self->write();
  });
}

void ExchangeBase::write() {
  // The fence, checked where the request would leave the process: a write handed over
  // before this process was frozen (or held past its Lease) must not go out after.
  if (send_before_) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= *send_before_) {
      if (conn_) conn_->close();
      return complete(unexpected(fence_deadline_error(operation(), now - *send_before_)));
    }
  }
  auto self = shared_from_this();
  // Resolving, connecting and the TLS handshake ran under Beast's connect timeout; from
  // here on the exchange's own deadline holds (pooled connections carry no expiry).
  if (new_connection_) conn_->lowest().expires_never();
  arm_deadline(timeout_);
  conn_->with_stream([&](auto& stream) {
    http::async_write(stream, request_, [self](const error_code& ec, std::size_t) {
      if (ec || self->cancelled_) return self->fail(ec, "sending to", false);
      self->read_response();
    });
  });
}

// -- whole responses ------------------------------------------------------------------

class SendExchange final : public ExchangeBase {
 public:
  SendExchange(TransportImpl& transport, Strand strand, HttpRequest request, std::chrono::milliseconds timeout,
               ResponseCallback done)
      : ExchangeBase(transport, std::move(strand), std::move(request), timeout), done_(std::move(done)) {}

 private:
  void read_response() override {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(transport_.options().max_response_bytes);
    auto self = std::static_pointer_cast<SendExchange>(shared_from_this());
    conn_->with_stream([&](auto& stream) {
      http::async_read(stream, conn_->buffer(), *parser_,
                       [self](const error_code& ec, std::size_t) { self->on_read(ec); });
    });
  }

  void on_read(const error_code& ec) {
    if (ec || cancelled_) return fail(ec, "reading the response from", false);
    auto message = parser_->release();
    HttpResponse response;
    response.status = static_cast<int>(message.result_int());
    response.headers = to_headers(message);
    response.body = std::move(message.body());
    disarm_deadline();
    if (message.keep_alive()) {
      transport_.release(std::move(conn_));
    } else {
      conn_->close();
    }
    conn_.reset();
    finished_ = true;
    if (auto done = std::move(done_)) done(std::move(response));
  }

  void complete(Expected<void, ApiError> failure) override {
    if (finished_) return;
    finished_ = true;
    disarm_deadline();
    conn_.reset();
    if (auto done = std::move(done_)) done(unexpected(std::move(failure).error()));
  }

  ResponseCallback done_;
  std::optional<http::response_parser<http::string_body>> parser_;
};

// -- streamed responses ------------------------------------------------------------------

class StreamExchange final : public ExchangeBase {
 public:
  StreamExchange(TransportImpl& transport, Strand strand, HttpRequest request, StreamCallbacks callbacks)
      : ExchangeBase(transport, std::move(strand), std::move(request), transport.options().request_timeout),
        callbacks_(std::move(callbacks)),
        chunk_(kStreamBufferSize) {}

 private:
  void read_response() override {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(boost::none);
    auto self = std::static_pointer_cast<StreamExchange>(shared_from_this());
    conn_->with_stream([&](auto& stream) {
      http::async_read_header(stream, conn_->buffer(), *parser_,
                              [self](const error_code& ec, std::size_t) { self->on_header(ec); });
    });
  }

  void on_header(const error_code& ec) {
    if (ec || cancelled_) return fail(ec, "reading the response from", false);
    const auto& message = parser_->get();
    if (callbacks_.on_head) {
      callbacks_.on_head(static_cast<int>(message.result_int()), to_headers(message));
    }
    arm_idle_deadline(transport_.options().stream_idle_timeout);
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return on_done();
    auto& body = parser_->get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    auto self = std::static_pointer_cast<StreamExchange>(shared_from_this());
    conn_->with_stream([&](auto& stream) {
      http::async_read_some(stream, conn_->buffer(), *parser_,
                            [self](error_code rec, std::size_t) { self->on_body(rec); });
    });
  }

  void on_body(error_code ec) {
    if (ec == http::error::need_buffer) ec = {};
    note_activity();  // a read completes on data (or an error, which ends the stream)
    bool drained = false;
    if (!ec && !cancelled_) ec = parse_buffered(drained);
    const std::size_t got = chunk_.size() - parser_->get().body().size;
    if (got > 0 && !cancelled_ && callbacks_.on_chunk) {
      callbacks_.on_chunk(std::string_view(chunk_.data(), got));
      if (drained && callbacks_.on_drained) callbacks_.on_drained();
    }
    if (ec || cancelled_) return fail(ec, "reading the stream from", false);
    read_body();
  }

  // A read of the body returns after one element (a chunk's header or its data), and
  // the next read would go through the executor for what is already buffered: parse
  // on here, element by element as async_read_some does, so that one delivery holds all
  // that one read of the socket brought. `drained`: what remains needs the socket.
  error_code parse_buffered(bool& drained) {
    beast::flat_buffer& buffer = conn_->buffer();
    while (!parser_->is_done()) {
      if (buffer.size() == 0) {
        drained = true;
        return {};
      }
      if (parser_->get().body().size == 0) return {};  // chunk_ is full: deliver it first
      error_code ec;
      const std::size_t used = parser_->put(buffer.data(), ec);
      buffer.consume(used);
      if (ec == http::error::need_more) {
        drained = true;  // a partial element: the rest is still to come
        return {};
      }
      if (ec == http::error::need_buffer) return {};
      if (ec) return ec;
    }
    return {};
  }

  void on_done() {
    disarm_deadline();
    if (parser_->get().keep_alive()) {
      transport_.release(std::move(conn_));
    } else {
      conn_->close();
    }
    conn_.reset();
    finished_ = true;
    if (auto end = release_callbacks().on_end) end({});
  }

  void complete(Expected<void, ApiError> failure) override {
    if (finished_) return;
    finished_ = true;
    disarm_deadline();
    conn_.reset();
    if (auto end = release_callbacks().on_end) end(std::move(failure));
  }

  // All of them, not only on_end: the caller's callbacks usually hold the operation that
  // holds this exchange, and a cycle left behind would keep both alive for good.
  StreamCallbacks release_callbacks() {
    StreamCallbacks out = std::move(callbacks_);
    callbacks_ = {};
    return out;
  }

  StreamCallbacks callbacks_;
  std::vector<char> chunk_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
};

std::shared_ptr<Exchange> TransportImpl::send(HttpRequest request, std::chrono::milliseconds timeout,
                                              ResponseCallback done) {
  return launch<SendExchange>(std::move(request), timeout, std::move(done));
}

std::shared_ptr<Exchange> TransportImpl::stream(HttpRequest request, StreamCallbacks callbacks) {
  return launch<StreamExchange>(std::move(request), std::move(callbacks));
}

}  // namespace

Expected<std::unique_ptr<Transport>> Transport::create(asio::io_context& io,
                                                       const ClientConfig& config,
                                                       const ClientOptions& options) {
  auto endpoint = parse_server_url(config.server);
  if (!endpoint) return fail(config.source + ": " + endpoint.error().message);
  std::shared_ptr<ssl::context> tls;
  if (endpoint->tls) {
    auto ctx = make_tls_context(config);
    if (!ctx) return unexpected(ctx.error());
    tls = std::move(*ctx);
  }
  return std::unique_ptr<Transport>(
      std::make_unique<TransportImpl>(io, std::move(*endpoint), std::move(tls), config, options));
}

}  // namespace kueuepp::kube::client::detail

#include "kube/apiserver/server/outbound/https_backend_transport.hpp"

#include <array>
#include <cerrno>
#include <limits>
#include <optional>
#include <map>
#include <vector>

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "kube/apiserver/server/outbound/go_error_text.hpp"

namespace kueuepp::kube::server {

namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

constexpr std::size_t kReadChunk = 64u << 10;

/// Go's net/http wording of an answer that is not HTTP.
std::string malformed_answer(const beast::error_code& ec) {
  return fmt::format("net/http: HTTP/1.x transport connection broken: malformed HTTP response ({})", ec.message());
}

using Stream = beast::ssl_stream<beast::tcp_stream>;
using Clock = std::chrono::steady_clock;

/// Go's http.Transport defaults as Kubernetes sets them (utilnet.SetTransportDefaults):
/// 25 idle connections per host, dropped after 90 s idle.
constexpr std::size_t kMaxIdlePerTarget = 25;
constexpr auto kIdleTimeout = std::chrono::seconds(90);

/// Whether a kept-alive connection is still usable: nothing may have arrived on it while
/// idle (a peer that closes sends its FIN or a TLS close_notify first). A peek, no read.
bool still_open(Stream& stream) {
  char byte = 0;
  auto fd = beast::get_lowest_layer(stream).socket().native_handle();
  ssize_t got = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void close_stream(Stream& stream) {
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().close(ignored);
}

/// Idle kept-alive connections, per target (where, which name, which trust and client
/// certificate): the last one returned is the first taken, so the spares age out.
class ConnectionPool {
 public:
  struct Connection {
    std::unique_ptr<Stream> stream;
    std::shared_ptr<ssl::context> tls;  ///< the stream's SSL refers to it
  };

  Connection take(const std::string& target) {
    auto it = idle_.find(target);
    if (it == idle_.end()) return {};
    auto& list = it->second;
    Connection found;
    while (!list.empty() && !found.stream) {
      Idle candidate = std::move(list.back());
      list.pop_back();
      if (Clock::now() - candidate.since < kIdleTimeout && still_open(*candidate.connection.stream)) {
        found = std::move(candidate.connection);
      } else {
        close_stream(*candidate.connection.stream);
      }
    }
    if (list.empty()) idle_.erase(it);
    return found;
  }

  void give_back(const std::string& target, Connection connection) {
    drop_expired();
    auto& list = idle_[target];
    if (list.size() >= kMaxIdlePerTarget) {
      close_stream(*list.front().connection.stream);
      list.erase(list.begin());
    }
    list.push_back(Idle{std::move(connection), Clock::now()});
  }

  ~ConnectionPool() {
    for (auto& [target, list] : idle_) {
      for (auto& idle : list) close_stream(*idle.connection.stream);
    }
  }

 private:
  struct Idle {
    Connection connection;
    Clock::time_point since;
  };

  /// Targets no longer called would keep their sockets: swept at most every 30 s.
  void drop_expired() {
    auto now = Clock::now();
    if (now - last_sweep_ < std::chrono::seconds(30)) return;
    last_sweep_ = now;
    for (auto it = idle_.begin(); it != idle_.end();) {
      auto& list = it->second;
      while (!list.empty() && now - list.front().since >= kIdleTimeout) {
        close_stream(*list.front().connection.stream);
        list.erase(list.begin());
      }
      it = list.empty() ? idle_.erase(it) : std::next(it);
    }
  }

  std::map<std::string, std::vector<Idle>> idle_;
  Clock::time_point last_sweep_ = Clock::now();
};

class Exchange final : public BackendExchange, public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(net::io_context& io, std::shared_ptr<ConnectionPool> pool, std::string pool_key,
           std::shared_ptr<ssl::context> tls, BackendTarget target, BackendRequest request, BackendTimeouts timeouts,
           BackendHandlers handlers)
      : io_(io),
        pool_(std::move(pool)),
        pool_key_(std::move(pool_key)),
        tls_(std::move(tls)),
        resolver_(io),
        deadline_(io),
        total_deadline_(io),
        target_(std::move(target)),
        timeouts_(timeouts),
        handlers_(std::move(handlers)),
        replayable_(request.replayable) {
    request_.method_string(request.method);
    request_.target(request.target);
    request_.version(11);
    for (auto& [name, value] : request.headers) request_.insert(name, value);
    // Go's client names the port unless it is the scheme's own.
    request_.set(bhttp::field::host,
                 target_.port == "443" ? target_.server_name : target_.server_name + ":" + target_.port);
    request_.body() = std::move(request.body);
    request_.prepare_payload();
    request_.keep_alive(true);
    new_parser();
  }

  void new_parser() {
    parser_.emplace();
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    // The answer to a HEAD has a Content-Length but no body.
    if (request_.method() == bhttp::verb::head) parser_->skip(true);
  }

  void start() {
    if (timeouts_.total) {
      total_deadline_.expires_after(*timeouts_.total);
      total_deadline_.async_wait([weak = weak_from_this()](beast::error_code ec) {
        auto self = weak.lock();
        if (ec || !self || self->ended_) return;
        self->fail_head("context deadline exceeded");
      });
    }
    auto kept = pool_->take(pool_key_);
    if (!kept.stream) return dial();
    stream_ = std::move(kept.stream);
    reused_ = true;
    write();
  }

  void dial() {
    reused_ = false;
    stream_ = std::make_unique<Stream>(io_, *tls_);
    arm(timeouts_.connect, [this] { return fmt::format("dial tcp {}:{}: i/o timeout", target_.host, target_.port); });
    resolver_.async_resolve(target_.host, target_.port,
                            [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
                              self->on_resolve(ec, std::move(results));
                            });
  }

  void cancel() override {
    if (ended_) return;
    ended_ = true;
    close();
  }

  /// The handlers hold the caller, which holds this exchange: dropped once it ended.
  void release_handlers() { handlers_ = BackendHandlers{}; }

 private:
  template <class Message>
  void arm(std::chrono::milliseconds after, Message message) {
    deadline_.expires_after(after);
    deadline_.async_wait([weak = weak_from_this(), message](beast::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->ended_) return;
      self->fail_head(message());
    });
  }

  void on_resolve(beast::error_code ec, tcp::resolver::results_type results) {
    if (ended_) return;
    if (ec) return fail_head(fmt::format("dial tcp: lookup {}: {}", target_.host, go_error(ec)));
    beast::get_lowest_layer(*stream_).async_connect(
        results, [self = shared_from_this()](beast::error_code e, const tcp::endpoint&) { self->on_connect(e); });
  }

  void on_connect(beast::error_code ec) {
    if (ended_) return;
    if (ec) return fail_head(fmt::format("dial tcp {}:{}: connect: {}", target_.host, target_.port, go_error(ec)));
    beast::error_code ignored;
    beast::get_lowest_layer(*stream_).socket().set_option(tcp::no_delay(true), ignored);
    beast::error_code parse_ec;
    net::ip::make_address(target_.server_name, parse_ec);
    if (parse_ec) SSL_set_tlsext_host_name(stream_->native_handle(), target_.server_name.c_str());
    if (target_.insecure_skip_verify) {
      stream_->set_verify_mode(ssl::verify_none);
    } else {
      stream_->set_verify_mode(ssl::verify_peer);
      stream_->set_verify_callback([weak = weak_from_this(), name = target_.server_name](bool preverified,
                                                                                         ssl::verify_context& vc) {
        bool ok = ssl::host_name_verification(name)(preverified, vc);
        if (auto self = weak.lock(); !ok && self && self->verify_error_.empty()) {
          self->verify_error_ = preverified ? fmt::format("x509: certificate is not valid for {}", name)
                                            : x509_problem(X509_STORE_CTX_get_error(vc.native_handle()), name);
        }
        return ok;
      });
    }
    arm(timeouts_.tls_handshake, [] { return std::string("net/http: TLS handshake timeout"); });
    stream_->async_handshake(ssl::stream_base::client,
                            [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  }

  void on_handshake(beast::error_code ec) {
    if (ended_) return;
    deadline_.cancel();
    if (ec) {
      if (!verify_error_.empty()) return fail_head(fmt::format("tls: failed to verify certificate: {}", verify_error_));
      if (ec.category() == net::error::get_ssl_category() &&
          ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_WRONG_VERSION_NUMBER) {
        return fail_head("tls: first record does not look like a TLS handshake");
      }
      if (ec == net::error::eof || ec == ssl::error::stream_truncated) return fail_head("EOF");
      return fail_head(fmt::format("remote error: tls: {}", go_error(ec)));
    }
    write();
  }

  void write() {
    bhttp::async_write(*stream_, request_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_write(e);
    });
  }

  /// A kept-alive connection the peer closed while it was idle fails the first write or
  /// read; a request that may be repeated goes again on a new connection, once.
  bool replay_on_new_connection() {
    if (!reused_ || !replayable_ || buffer_.size() > 0) return false;
    close_stream(*stream_);
    // Kept until the exchange ends: this runs in a completion handler of its operation.
    retired_ = std::move(stream_);
    new_parser();
    dial();
    return true;
  }

  void on_write(beast::error_code ec) {
    if (ended_) return;
    if (ec && replay_on_new_connection()) return;
    if (ec) return fail_head(fmt::format("write tcp {}:{}: {}", target_.host, target_.port, go_error(ec)));
    bhttp::async_read_header(*stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_header(e);
    });
  }

  void on_header(beast::error_code ec) {
    if (ended_) return;
    if (ec && (ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == ssl::error::stream_truncated ||
               ec == net::error::connection_reset) &&
        replay_on_new_connection()) {
      return;
    }
    if (ec) {
      if (ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == ssl::error::stream_truncated) {
        return fail_head("EOF");
      }
      if (ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category()) {
        return fail_head(malformed_answer(ec));
      }
      return fail_head(fmt::format("read tcp {}:{}: {}", target_.host, target_.port, go_error(ec)));
    }
    head_sent_ = true;
    const auto& res = parser_->get();
    BackendResponseHead head;
    head.status = static_cast<int>(res.result_int());
    for (const auto& field : res) head.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    if (auto length = parser_->content_length()) head.content_length = *length;
    auto on_head = std::move(handlers_.head);
    on_head(std::move(head));
    if (ended_) return;
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return finish({});
    auto& body = parser_->get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    bhttp::async_read_some(*stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_body(ec);
    });
  }

  void on_body(beast::error_code ec) {
    if (ended_) return;
    if (ec == bhttp::error::need_buffer) ec = {};
    std::size_t got = chunk_.size() - parser_->get().body().size;
    // A copy: the handler may cancel the exchange, which drops the handlers.
    auto data = handlers_.data;
    if (got > 0 && !data(std::string(chunk_.data(), got))) return cancel();
    if (ended_) return;
    if (ec) {
      if (ec == bhttp::error::partial_message || ec == net::error::eof || ec == ssl::error::stream_truncated) {
        return finish(fail("unexpected EOF"));
      }
      return finish(fail(fmt::format("read tcp {}:{}: {}", target_.host, target_.port, go_error(ec))));
    }
    read_body();
  }

  void fail_head(std::string message) {
    if (ended_) return;
    if (head_sent_) return finish(fail(std::move(message)));
    ended_ = true;
    auto on_head = std::move(handlers_.head);
    close();
    on_head(fail(std::move(message)));
  }

  void finish(Status result) {
    if (ended_) return;
    ended_ = true;
    auto on_end = std::move(handlers_.end);
    if (result && reusable()) {
      release_handlers();
      deadline_.cancel();
      total_deadline_.cancel();
      pool_->give_back(pool_key_, ConnectionPool::Connection{std::move(stream_), tls_});
    } else {
      close();
    }
    on_end(std::move(result));
  }

  /// Whether the connection may carry another exchange: the answer read to its end, both
  /// sides keeping it alive, and nothing more sent after it.
  bool reusable() const {
    return stream_ && parser_->is_done() && parser_->get().keep_alive() && buffer_.size() == 0;
  }

  void close() {
    release_handlers();
    deadline_.cancel();
    total_deadline_.cancel();
    resolver_.cancel();
    if (stream_) close_stream(*stream_);
  }

  net::io_context& io_;
  std::shared_ptr<ConnectionPool> pool_;
  std::string pool_key_;
  std::shared_ptr<ssl::context> tls_;
  tcp::resolver resolver_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Stream> retired_;
  net::steady_timer deadline_;
  net::steady_timer total_deadline_;
  BackendTarget target_;
  BackendTimeouts timeouts_;
  BackendHandlers handlers_;
  bool replayable_ = false;
  bool reused_ = false;
  bhttp::request<bhttp::string_body> request_;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser_;
  beast::flat_buffer buffer_;
  std::array<char, kReadChunk> chunk_{};
  std::string verify_error_;
  bool head_sent_ = false;
  bool ended_ = false;
};

class HttpsBackendTransport final : public BackendTransport {
 public:
  explicit HttpsBackendTransport(net::io_context& io) : io_(io) {}

  std::shared_ptr<BackendExchange> send(const BackendTarget& target, BackendRequest request, BackendTimeouts timeouts,
                                        BackendHandlers handlers) override {
    auto key = trust_key(target);
    auto tls = context_for(target, key);
    if (!tls) {
      net::post(io_, [on_head = std::move(handlers.head), error = tls.error().message] { on_head(fail(error)); });
      return nullptr;
    }
    auto pool_key = fmt::format("{}\n{}\n{}\n{}", target.host, target.port, target.server_name, key);
    auto exchange = std::make_shared<Exchange>(io_, pool_, std::move(pool_key), std::move(*tls), target,
                                               std::move(request), timeouts, std::move(handlers));
    // Started from the io_context, so no callback runs within send().
    net::post(io_, [exchange] { exchange->start(); });
    return exchange;
  }

 private:
  /// TLS client contexts, one per trust and client certificate (loading them costs more
  /// than an exchange).
  static std::string trust_key(const BackendTarget& target) {
    return fmt::format("{}\n{}\n{}", target.insecure_skip_verify, target.ca_pem, target.client_cert_pem);
  }

  Expected<std::shared_ptr<ssl::context>> context_for(const BackendTarget& target, std::string key) {
    if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
    auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    beast::error_code ec;
    if (!target.insecure_skip_verify) {
      if (target.ca_pem.empty()) {
        tls->set_default_verify_paths(ec);
      } else {
        tls->add_certificate_authority(net::buffer(target.ca_pem), ec);
      }
      if (ec) return fail(fmt::format("unable to load root certificates: {}", go_error(ec)));
    }
    if (!target.client_cert_pem.empty()) {
      tls->use_certificate_chain(net::buffer(target.client_cert_pem), ec);
      if (!ec) tls->use_private_key(net::buffer(target.client_key_pem), ssl::context::pem, ec);
      if (ec) return fail(fmt::format("unable to load the front proxy's client certificate: {}", go_error(ec)));
    }
    // An APIService's caBundle changes seldom; old contexts go with a bound.
    if (contexts_.size() >= 64) contexts_.clear();
    contexts_.emplace(std::move(key), tls);
    return tls;
  }

  net::io_context& io_;
  std::map<std::string, std::shared_ptr<ssl::context>> contexts_;
  std::shared_ptr<ConnectionPool> pool_ = std::make_shared<ConnectionPool>();
};

}  // namespace

std::unique_ptr<BackendTransport> make_https_backend_transport(net::io_context& io) {
  return std::make_unique<HttpsBackendTransport>(io);
}

}  // namespace kueuepp::kube::server

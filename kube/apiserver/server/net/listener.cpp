#include "kube/apiserver/server/net/listener.hpp"

#include <charconv>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace kueuepp::kube::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Expected<std::pair<std::string, std::uint16_t>> split_host_port(const std::string& address) {
  std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return fail(fmt::format("listen address \"{}\" is not ADDR:PORT", address));
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  unsigned port = 0;
  std::string_view p(address.data() + colon + 1, address.size() - colon - 1);
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (ec != std::errc() || end != p.data() + p.size() || port > 65535) {
    return fail(fmt::format("listen address \"{}\" has an invalid port", address));
  }
  return std::make_pair(host, static_cast<std::uint16_t>(port));
}

Listener::Listener(net::io_context& io, ApiHandler& handler, SessionLimits limits, SessionRegistry& registry,
                   net::ssl::context* tls)
    : acceptor_(io), handler_(handler), limits_(limits), registry_(registry), tls_(tls) {}

Expected<std::shared_ptr<Listener>> Listener::bind(net::io_context& io, const std::string& address,
                                                   ApiHandler& handler, SessionLimits limits,
                                                   SessionRegistry& registry, net::ssl::context* tls) {
  auto hp = split_host_port(address);
  if (!hp) return unexpected(hp.error());
  boost::system::error_code ec;
  auto ip = net::ip::make_address(hp->first, ec);
  if (ec) return fail(fmt::format("listen address \"{}\": \"{}\" is not an IP address", address, hp->first));
  std::shared_ptr<Listener> l(new Listener(io, handler, limits, registry, tls));
  tcp::endpoint endpoint(ip, hp->second);
  l->acceptor_.open(endpoint.protocol(), ec);
  if (!ec) l->acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) l->acceptor_.bind(endpoint, ec);
  if (!ec) l->acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(fmt::format("cannot listen on {}: {} (is another server using the port? pick another with --listen)",
                            address, ec.message()));
  }
  l->port_ = l->acceptor_.local_endpoint().port();
  l->host_ = hp->first;
  return l;
}

void Listener::start() { accept(); }

void Listener::stop() {
  boost::system::error_code ec;
  acceptor_.close(ec);
}

void Listener::accept() {
  acceptor_.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) return;
    if (ec) {
      spdlog::warn("accepting a connection failed: {}", ec.message());
    } else if (self->tls_ != nullptr) {
      start_tls_session(std::move(socket), *self->tls_, self->handler_, self->limits_, self->registry_);
    } else {
      start_plain_session(std::move(socket), self->handler_, self->limits_, self->registry_);
    }
    self->accept();
  });
}

}  // namespace kueuepp::kube::server

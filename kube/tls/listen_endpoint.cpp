#include "kube/tls/listen_endpoint.hpp"

#include <charconv>
#include <cstdint>
#include <string>

namespace kueuepp::kube::tls {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Expected<tcp::endpoint> parse_listen_endpoint(std::string_view listen) {
  const std::string quoted = "\"" + std::string(listen) + "\"";
  const auto colon = listen.rfind(':');
  if (colon == std::string_view::npos) return fail(quoted + " is not ADDR:PORT");
  std::string_view host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return fail(quoted + ": bad address: " + ec.message());
  const std::string_view digits = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (error != std::errc() || end != digits.data() + digits.size() || port > 65535) return fail(quoted + ": bad port");
  return tcp::endpoint(address, static_cast<std::uint16_t>(port));
}

Status open_listening(tcp::acceptor& acceptor, const tcp::endpoint& endpoint) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail(ec.message());
  return {};
}

}  // namespace kueuepp::kube::tls

#include "kube/client/client_config.hpp"

#include <charconv>

namespace kueuepp::kube::client {

std::string ServerEndpoint::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string h = ipv6 ? "[" + host + "]" : host;
  const bool default_port = (tls && port == 443) || (!tls && port == 80);
  if (!default_port) h += ":" + std::to_string(port);
  return h;
}

Expected<ServerEndpoint> parse_server_url(std::string_view server) {
  ServerEndpoint ep;
  std::string_view rest = server;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    ep.tls = false;
    ep.port = 80;
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    return fail("server URL \"" + std::string(server) +
                "\" has an unsupported scheme; use https:// or http://");
  }
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    ep.path_prefix = std::string(prefix);
  }
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return fail("server URL \"" + std::string(server) + "\" has an unterminated IPv6 address");
    }
    ep.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (after.starts_with(":")) port_text = after.substr(1);
    else if (!after.empty()) return fail("server URL \"" + std::string(server) + "\" is malformed");
  } else {
    const std::size_t colon = authority.rfind(':');
    ep.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (ep.host.empty()) return fail("server URL \"" + std::string(server) + "\" has no host");
  if (!port_text.empty()) {
    unsigned port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
      return fail("server URL \"" + std::string(server) + "\" has an invalid port \"" +
                  std::string(port_text) + "\"");
    }
    ep.port = static_cast<std::uint16_t>(port);
  }
  return ep;
}

}  // namespace kueuepp::kube::client

#pragma once

// Where kueuepp's own servers listen (admission webhooks, the visibility API, probes and
// introspection): an "ADDR:PORT" flag read into an endpoint, and the acceptor opened on
// it. The callers name the flag or server in their errors.

#include <boost/asio/ip/tcp.hpp>

#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::kube::tls {

/// "ADDR:PORT" (an IPv6 address in brackets, "[::1]:8443"; port 0 picks a free one).
/// The error quotes `listen` and says which part is wrong.
Expected<boost::asio::ip::tcp::endpoint> parse_listen_endpoint(std::string_view listen);

/// Opens, binds (reusing the address) and listens; the error is the system's.
Status open_listening(boost::asio::ip::tcp::acceptor& acceptor, const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace kueuepp::kube::tls

#pragma once

// One client connection of the fault proxy: reads its requests (keep-alive), asks the
// decider which faults apply, and either answers itself (Status, reset) or forwards the
// request on the connection's own upstream connection and relays the answer as it
// arrives, re-framing watch streams line by line when a watch fault applies. Runs as a
// coroutine on its socket's strand; nothing in it blocks a thread.

#include <cstdint>

#include <boost/asio/ip/tcp.hpp>

#include "tests/faults/proxy_context.hpp"

namespace kueuepp::faults {

/// Serves an accepted client connection. `client`'s executor must be a strand of the
/// proxy's io_context. When the proxy is already stopping, the connection is closed.
void start_proxy_session(ProxyContext& context, boost::asio::ip::tcp::socket client, std::uint64_t id);

}  // namespace kueuepp::faults

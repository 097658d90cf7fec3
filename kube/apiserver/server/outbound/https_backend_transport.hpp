#pragma once

// BackendTransport over Boost.Beast on the server's io_context: every step (resolve,
// connect, TLS handshake, write, read) is asynchronous and runs on the store thread
// between other requests' handlers, so a backend that hangs holds up only the requests
// sent to it. The body is read as it arrives and handed on piece by piece (a watch
// streams). Connections are kept alive per target and reused (at most 25 idle per target,
// each for at most 90 s, as Kubernetes sets Go's transport), so a hot webhook or
// aggregated API costs one TLS handshake, not one per call.

#include <memory>

#include "kube/apiserver/server/outbound/backend_transport.hpp"

namespace boost::asio {
class io_context;
}

namespace kueuepp::kube::server {

std::unique_ptr<BackendTransport> make_https_backend_transport(boost::asio::io_context& io);

}  // namespace kueuepp::kube::server

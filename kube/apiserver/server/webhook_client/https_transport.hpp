#pragma once

// WebhookTransport over Boost.Beast on the server's io_context: every call is
// asynchronous (resolve, connect, TLS handshake, write, read) and runs on the store
// thread between other requests' handlers, so a webhook that hangs holds up only the
// request waiting for it. A deadline timer cancels a call at the webhook's timeout.
// TLS 1.2 or later, the peer verified against the webhook's caBundle and its host name;
// one connection per call (kube-apiserver keeps connections alive; a pool is not
// worth it at this server's rates, see docs/performance.md).

#include <memory>

#include "kube/apiserver/server/webhook_client/webhook_transport.hpp"

namespace boost::asio {
class io_context;
}

namespace kueuepp::kube::server {

std::unique_ptr<WebhookTransport> make_https_transport(boost::asio::io_context& io);

}  // namespace kueuepp::kube::server

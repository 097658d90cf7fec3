#pragma once

// WebhookTransport over the server's one HTTPS client (https_backend_transport.hpp):
// a review is a replayable POST whose whole exchange is bounded by the webhook's timeout
// and whose answer is read up to the target's limit, on a kept-alive connection when
// one is idle. Errors read as kube-apiserver's: Post "URL": <Go's net/http text>.

#include <memory>

#include "kube/apiserver/server/outbound/backend_transport.hpp"
#include "kube/apiserver/server/outbound/webhook_transport.hpp"

namespace kueuepp::kube::server {

/// `backend` must outlive the transport.
std::unique_ptr<WebhookTransport> make_https_transport(BackendTransport& backend);

}  // namespace kueuepp::kube::server

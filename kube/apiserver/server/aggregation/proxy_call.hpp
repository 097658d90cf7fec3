#pragma once

// One request proxied to an aggregated API server, as kube-aggregator's proxy handler
// forwards it: method, path, query, body and the caller's headers (front-proxy headers
// in place of its credentials, aggregation/front_proxy.hpp) go to the backend; its
// answer comes back with its status, headers and body. An answer of known length is
// passed on whole; one without (a watch, a chunked list) streams as it arrives, and
// stops when the caller goes away. A backend that cannot be reached or answers no HTTP
// gets the caller a 503 with the transport's error (text, as kube-aggregator writes
// it); one that has not answered a request that is not a watch by `timeout` gets it a
// 504 Timeout Status, as kube-apiserver's request timeout does.

#include <chrono>

#include "kube/apiserver/server/outbound/backend_transport.hpp"
#include "kube/apiserver/server/http/http_types.hpp"
#include "kube/apiserver/server/http/scheduler.hpp"

namespace kueuepp::kube::server {

struct ProxyCallOptions {
  bool long_running = false;  ///< a watch: no timeout
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  BackendTimeouts timeouts;
};

void start_proxy_call(Scheduler& scheduler, BackendTransport& transport, const BackendTarget& target,
                      BackendRequest request, ProxyCallOptions options, ResponderPtr responder);

/// kube-aggregator's answer when it cannot proxy: `message` as text/plain (Go's http.Error).
void respond_proxy_error(Responder& responder, int status, std::string_view message);

}  // namespace kueuepp::kube::server

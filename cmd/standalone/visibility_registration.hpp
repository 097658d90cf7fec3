#pragma once

// Standalone registers its visibility API in its own API server as `kubectl apply -k
// deploy/` (its deploy/visibility/) does in a cluster: the Service kueuepp-visibility-server (its
// targetPort the loopback port the controller serves on) and the two APIServices, so an
// API server that proxies APIServices serves `kubectl get --raw
// /apis/visibility.kueue.x-k8s.io/...` by the same path as kube-apiserver.

#include <cstdint>
#include <string>

#include "core/expected.hpp"
#include "kube/client/client.hpp"

namespace kueuepp::cmd {

/// Server-side applies the Namespace `ns`, the Service and the APIServices. An API server
/// that does not serve apiregistration.k8s.io gets the Service only (the error says so).
Status register_visibility(kube::client::Client& client, const std::string& ns, std::uint16_t port);

}  // namespace kueuepp::cmd

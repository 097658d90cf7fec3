#pragma once

// The TLS context of kueuepp's own HTTPS servers (admission webhooks, the visibility API):
// TLS 1.2 or later, forward-secret AEAD suites only, a serving certificate and its key.

#include <memory>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace boost::asio::ssl {
class context;
}

namespace kueuepp::kube::tls {

/// The context for `cert_pem` (with its chain) and `key_pem`. `what` names the server in
/// errors ("the webhook", "the visibility server"): the error says which part did not load.
Expected<std::shared_ptr<boost::asio::ssl::context>> make_server_context(const std::string& cert_pem,
                                                                         const std::string& key_pem,
                                                                         std::string_view what);

}  // namespace kueuepp::kube::tls

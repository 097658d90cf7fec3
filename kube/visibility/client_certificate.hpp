#pragma once

// A TLS client's certificate chain checked against a CA bundle, for the front proxy
// (requestheader-client-ca-file): OpenSSL stays in the .cpp.

#include <string>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::visibility {

/// Verifies `chain_der` (the client's certificate first, then intermediates, DER) against
/// the CAs of `ca_bundle_pem` for client authentication; answers the certificate's CN.
/// The error says why it is not trusted.
Expected<std::string> verify_client_certificate(const std::vector<std::string>& chain_der,
                                                const std::string& ca_bundle_pem);

}  // namespace kueuepp::kube::visibility

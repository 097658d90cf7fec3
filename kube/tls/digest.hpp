#pragma once

// Cryptographic digests, for keys that must not hold a secret themselves (a cache of
// bearer tokens' reviews is keyed by the token's digest, not by the token).

#include <string>
#include <string_view>

namespace kueuepp::kube::tls {

/// SHA-256 of `data`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace kueuepp::kube::tls

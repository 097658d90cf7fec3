#pragma once

// List continue tokens, in kube-apiserver's format: base64url of
// {"v":"meta.k8s.io/v1","rv":N,"start":"<next key>\u0000"}. The resourceVersion pins the
// snapshot every page of one list is served from.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

struct ContinueToken {
  std::uint64_t rv = 0;
  std::string after;  ///< the key of the last object returned
};

std::string encode_continue(const ContinueToken& token);
/// The error reads like kube-apiserver's ("continue key is not valid: ...").
Expected<ContinueToken> decode_continue(std::string_view text);

}  // namespace kueuepp::kube::server

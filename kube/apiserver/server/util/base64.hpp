#pragma once

// Base64 (RFC 4648): the standard alphabet with padding (kubeconfig certificate data)
// and the URL alphabet without padding (continue tokens, as kube-apiserver makes them).

#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::kube::server {

std::string base64_encode(std::string_view data);
std::string base64url_encode(std::string_view data);
/// nullopt on any character outside the alphabet or an impossible length; `bad_at`
/// receives the offset of the first offending byte.
std::optional<std::string> base64url_decode(std::string_view text, std::size_t* bad_at = nullptr);

}  // namespace kueuepp::kube::server

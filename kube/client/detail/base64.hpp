#pragma once

// Standard base64 (RFC 4648, with or without padding, whitespace ignored): kubeconfig
// `*-data` fields carry PEM files this way.

#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::kube::client::detail {

Expected<std::string> base64_decode(std::string_view text);

}  // namespace kueuepp::kube::client::detail

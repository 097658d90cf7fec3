#pragma once

// Go's strconv.Atoi and strconv.ParseBool, with their error texts: Kueue's webhooks put
// those texts in their refusals ("strconv.Atoi: parsing \"ten\": invalid syntax").

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace kueuepp::kube::webhook {

/// The number, or Go's error text.
std::variant<std::int64_t, std::string> go_atoi(std::string_view text);
std::variant<bool, std::string> go_parse_bool(std::string_view text);

}  // namespace kueuepp::kube::webhook

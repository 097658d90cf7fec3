#pragma once

// HTTP header fields as both wings hold them: the API client (kube/client/http_types.hpp,
// requests going out) and the embedded API server (kube/apiserver/server/http/
// http_types.hpp, requests coming in). Plain strings: no Beast types here.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::http {

/// Header fields in order, as (name, value); names compare case-insensitively (see
/// find_header).
using Headers = std::vector<std::pair<std::string, std::string>>;

/// The first value of header `name` (case-insensitive), or nullopt.
std::optional<std::string_view> find_header(const Headers& headers, std::string_view name);

/// Every value of header `name` (case-insensitive), in order.
std::vector<std::string_view> find_headers(const Headers& headers, std::string_view name);

/// ASCII case-insensitive equality (HTTP field names).
bool iequals(std::string_view a, std::string_view b);

}  // namespace kueuepp::http

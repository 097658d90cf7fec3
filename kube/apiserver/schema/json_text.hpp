#pragma once

// std::string_view of Boost.JSON strings and keys. A single overload taking
// `const json::string&` would silently accept a key (boost::json::string_view) by
// converting it to a temporary json::string and return a dangling view: hence both.

#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::schema {

inline std::string_view text(const json::string& s) { return {s.data(), s.size()}; }
inline std::string_view text(boost::json::string_view s) { return {s.data(), s.size()}; }

}  // namespace kueuepp::kube::schema

#pragma once

// The JSON document model used across kube/, config/ and cmd/: Boost.JSON values.
// simdjson is used separately where raw parse speed matters (watch streams).

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::json {

using boost::json::array;
using boost::json::object;
using boost::json::string;
using boost::json::value;

/// Parses one JSON text; the error names the offset and what was wrong.
Expected<value> parse(std::string_view text);

/// Compact serialization.
std::string dump(const value& v);

/// The member `key` of `v` if `v` is an object that has it, else nullptr.
const value* find(const value& v, std::string_view key);
value* find(value& v, std::string_view key);

/// Follows a path of object keys; nullptr when any step is missing or not an object.
const value* find_path(const value& v, std::initializer_list<std::string_view> keys);

/// The string at `key`, or `fallback` when absent or not a string.
std::string_view get_string(const value& v, std::string_view key, std::string_view fallback = {});

}  // namespace kueuepp::json

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
#include <type_traits>

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
/// `text` as a JSON string literal (quoted and escaped as dump writes strings), appended.
void append_quoted(std::string& out, std::string_view text);
std::string dump(const object& o);
std::string dump(const array& a);

/// Equality as Boost.JSON's operator== defines it, faster on the common case of two
/// versions of one document: object members are matched by position first and looked up
/// by key only when the orders differ (Boost.JSON hashes every key).
bool equal(const value& a, const value& b);
bool equal(const object& a, const object& b);
bool equal(const array& a, const array& b);

/// The member `key` of `v` if `v` is an object that has it, else nullptr.
const value* find(const value& v, std::string_view key);
value* find(value& v, std::string_view key);
const value* find(const object& o, std::string_view key);
value* find(object& o, std::string_view key);

/// Follows a path of object keys; nullptr when any step is missing or not an object.
const value* find_path(const value& v, std::initializer_list<std::string_view> keys);

/// The string at `key`, or `fallback` when absent or not a string.
std::string_view get_string(const value& v, std::string_view key, std::string_view fallback = {});
std::string_view get_string(const object& o, std::string_view key, std::string_view fallback = {});

// The overloads for objects and arrays exist because Boost.JSON converts an object to a
// value implicitly by copying it: a call with an object would copy the whole tree, and
// a string_view or pointer into that temporary would dangle. Anything else that is not
// a value is refused at compile time for the same reason.
template <class T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, value> && !std::is_same_v<std::remove_cvref_t<T>, object> &&
           !std::is_same_v<std::remove_cvref_t<T>, array>)
std::string dump(const T&) = delete;
template <class T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, value> && !std::is_same_v<std::remove_cvref_t<T>, object>)
const value* find(const T&, std::string_view) = delete;
template <class T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, value> && !std::is_same_v<std::remove_cvref_t<T>, object>)
std::string_view get_string(const T&, std::string_view, std::string_view = {}) = delete;

}  // namespace kueuepp::json

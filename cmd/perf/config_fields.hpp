#pragma once

// Path-aware reading of the perf test's YAML files (generator.yaml, rangespec.yaml), as
// Kueue's runner and checker read them with sigs.k8s.io/yaml: numbers may carry YAML 1.1
// digit separators (`425_000`), quantities may be written as numbers or strings, and a
// field this code does not know is an error that names its path (so that a typo, or a
// TAS/DRA option kueuepp perf does not implement, is not silently ignored).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "core/quantity.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::cmd::perf {

/// `path.key`, or `key` at the top.
std::string field_path(std::string_view path, std::string_view key);
/// `path[index]`.
std::string field_path(std::string_view path, std::size_t index);

/// The object at `v` (an error naming `path` otherwise; null reads as an empty object).
Expected<const json::object*> read_object(const json::value& v, std::string_view path);
/// The array at `v` (null reads as empty).
Expected<const json::array*> read_array(const json::value& v, std::string_view path);

/// Fails on the first key of `obj` not in `known`; `unsupported` keys get a message that
/// says kueuepp perf does not implement them.
Status check_fields(const json::object& obj, std::string_view path, std::initializer_list<std::string_view> known,
                    std::initializer_list<std::string_view> unsupported = {});

/// An integer: a JSON integer, an integral float, or a string of digits with optional
/// `_` separators and sign.
Expected<std::int64_t> read_integer(const json::value& v, std::string_view path);
/// A number (integer or float, or such a string).
Expected<double> read_number(const json::value& v, std::string_view path);
/// A non-empty string.
Expected<std::string> read_string(const json::value& v, std::string_view path);
/// A Kubernetes quantity written as a string or a number.
Expected<core::Quantity> read_quantity(const json::value& v, std::string_view path);

/// The member `key` of `obj`, or nullptr (also for JSON null).
const json::value* member(const json::object& obj, std::string_view key);

}  // namespace kueuepp::cmd::perf

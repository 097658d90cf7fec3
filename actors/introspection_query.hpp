#pragma once

// The request target of an introspection query (/debug/...?offset=0&limit=100): its
// path, its query parameters, and a page of a list checked against its bounds. Pure.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::actors {

struct IntrospectionTarget {
  std::string path;
  std::map<std::string, std::string, std::less<>> query;  ///< percent-decoded
};

IntrospectionTarget split_target(std::string_view target);

struct Page {
  std::size_t offset = 0;
  std::size_t limit = 0;
};

/// `offset` and `limit` of `query`: non-negative integers, limit at most `max_limit`
/// (`default_limit` when absent). The error says which parameter is wrong and why.
Expected<Page> page_of(const IntrospectionTarget& target, std::size_t default_limit, std::size_t max_limit);

}  // namespace kueuepp::actors

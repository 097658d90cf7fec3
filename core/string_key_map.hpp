#pragma once

// A hash map keyed by strings that is looked up by std::string_view without building a
// std::string: the actors' caches of objects by "namespace/name" take one lookup or more
// per watch event, and the engine looks a head's namespace up in every cycle; ordered maps
// of thousands of such keys (sharing their prefix) spent their time in string comparisons.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kueuepp::core {

/// Hashes keys of either string type alike (lookups by string_view allocate nothing).
struct StringKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const noexcept { return std::hash<std::string_view>{}(key); }
};

template <class Value>
using StringKeyMap = std::unordered_map<std::string, Value, StringKeyHash, std::equal_to<>>;

}  // namespace kueuepp::core

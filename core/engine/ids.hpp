#pragma once

// Dense identifiers for the engine's hot paths: flavors and resources are interned once
// (per engine) so that quota arithmetic works on small integers, not strings.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/quantity.hpp"

namespace kueuepp::core {

using FlavorId = std::uint16_t;
using ResourceId = std::uint16_t;

/// A (flavor, resource) pair: the unit of quota.
struct FlavorResource {
  FlavorId flavor = 0;
  ResourceId resource = 0;

  constexpr std::uint32_t packed() const {
    return (static_cast<std::uint32_t>(flavor) << 16) | resource;
  }
  friend constexpr bool operator==(FlavorResource a, FlavorResource b) {
    return a.packed() == b.packed();
  }
  friend constexpr bool operator<(FlavorResource a, FlavorResource b) {
    return a.packed() < b.packed();
  }
};

/// Quantities per flavor-resource, kept as a small sorted vector (workloads touch one
/// to a handful of pairs, so this beats any map).
class Amounts {
 public:
  using Entry = std::pair<FlavorResource, std::int64_t>;

  std::int64_t get(FlavorResource fr) const {
    auto it = lower(fr);
    return (it != v_.end() && it->first == fr) ? it->second : 0;
  }
  void add(FlavorResource fr, std::int64_t milli) {
    auto it = lower(fr);
    if (it != v_.end() && it->first == fr) {
      it->second = sat_add(it->second, milli);
    } else {
      v_.insert(it, {fr, milli});
    }
  }
  void set(FlavorResource fr, std::int64_t milli) {
    auto it = lower(fr);
    if (it != v_.end() && it->first == fr) {
      it->second = milli;
    } else {
      v_.insert(it, {fr, milli});
    }
  }
  void add_all(const Amounts& other) {
    for (const auto& [fr, v] : other.v_) add(fr, v);
  }
  bool contains(FlavorResource fr) const {
    auto it = lower(fr);
    return it != v_.end() && it->first == fr;
  }
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }
  void clear() { v_.clear(); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  bool operator==(const Amounts&) const = default;

 private:
  std::vector<Entry>::iterator lower(FlavorResource fr) {
    return std::lower_bound(v_.begin(), v_.end(), fr,
                            [](const Entry& e, FlavorResource k) { return e.first < k; });
  }
  std::vector<Entry>::const_iterator lower(FlavorResource fr) const {
    return std::lower_bound(v_.begin(), v_.end(), fr,
                            [](const Entry& e, FlavorResource k) { return e.first < k; });
  }
  std::vector<Entry> v_;
};

/// Interns names to dense ids, stable for the life of the engine.
class SymbolTable {
 public:
  std::uint16_t intern(std::string_view name) {
    auto it = ids_.find(std::string(name));
    if (it != ids_.end()) return it->second;
    auto id = static_cast<std::uint16_t>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(names_.back(), id);
    return id;
  }
  /// -1 when the name was never interned.
  int find(std::string_view name) const {
    auto it = ids_.find(std::string(name));
    return it == ids_.end() ? -1 : it->second;
  }
  const std::string& name(std::uint16_t id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint16_t> ids_;
};

}  // namespace kueuepp::core

// Merging an applied configuration into the live object (structured-merge-diff's Merge).
//
// List elements keep structured-merge-diff's order: the configuration's elements in its
// order, live-only elements staying where they were relative to the shared ones.

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kube/apiserver/patch/typed_ops.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

class Merger {
 public:
  explicit Merger(const ApplySchema& schema) : schema_(schema) {}

  json::value value(const json::value& live, const json::value& config) {
    if (path_.depth > kMaxDepth) return config;
    if (live.is_object() && config.is_object()) {
      const json::object& l = live.get_object();
      const json::object& c = config.get_object();
      if (schema_.atomic_object(path_.schema_path()) || (l.empty() && c.empty())) return config;
      return members(l, c);
    }
    if (live.is_array() && config.is_array()) {
      const json::array& l = live.get_array();
      const json::array& c = config.get_array();
      const ListStrategy strategy = schema_.list(path_.schema_path());
      if (strategy.kind == ListStrategy::Kind::Atomic || (l.empty() && c.empty())) return config;
      return items(l, c, strategy);
    }
    return config;  // scalars, and values whose kind changed
  }

  json::object members(const json::object& live, const json::object& config) {
    json::object out;
    out.reserve(live.size() + config.size());
    for (const auto& m : live) {
      auto it = config.find(m.key());
      if (it == config.end()) {
        out.emplace(m.key(), m.value());
        continue;
      }
      path_.push_field(m.key());
      out.emplace(m.key(), value(m.value(), it->value()));
      path_.pop_field();
    }
    for (const auto& m : config) {
      if (!live.contains(m.key())) out.emplace(m.key(), m.value());
    }
    return out;
  }

 private:
  struct Indexed {
    std::vector<std::string> ids;                      // per element, in order
    std::vector<PathElement> elements;                 // per element
    std::unordered_map<std::string, long> first;       // id -> index, -1 when duplicated
  };

  Indexed index(const json::array& list, const ListStrategy& strategy) const {
    Indexed out;
    out.ids.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto pe = schema_.element(list[i], strategy, /*strict=*/false);
      PathElement element = pe ? std::move(*pe) : PathElement::of_value(list[i]);
      std::string id = element.serialize();
      auto [it, fresh] = out.first.emplace(id, static_cast<long>(i));
      if (!fresh) it->second = -1;  // duplicates in the live list merge with nothing
      out.ids.push_back(std::move(id));
      out.elements.push_back(std::move(element));
    }
    return out;
  }

  json::value item(const json::value* live, const json::value& config, const PathElement& element) {
    if (live == nullptr) return config;
    path_.push_element(element);
    json::value merged = value(*live, config);
    path_.pop_element();
    return merged;
  }

  json::array items(const json::array& live, const json::array& config, const ListStrategy& strategy) {
    const Indexed l = index(live, strategy);
    const Indexed r = index(config, strategy);
    auto live_of = [&](const std::string& id) -> const json::value* {
      auto it = l.first.find(id);
      return it == l.first.end() || it->second < 0 ? nullptr : &live[static_cast<std::size_t>(it->second)];
    };
    // The configuration's elements that are also live, in the configuration's order.
    std::vector<const std::string*> shared;
    for (const auto& id : r.ids) {
      if (l.first.contains(id)) shared.push_back(&id);
    }
    std::size_t next_shared = 0;
    auto advance_shared = [&]() { ++next_shared; };
    auto is_next_shared = [&](const std::string& id) {
      return next_shared < shared.size() && *shared[next_shared] == id;
    };

    json::array out;
    out.reserve(live.size() + config.size());
    std::unordered_set<std::string> emitted;  // configuration elements already placed
    std::size_t li = 0, ri = 0;
    while (li < live.size() || ri < config.size()) {
      if (li < live.size() && ri < config.size()) {
        const std::string& id = l.ids[li];
        if (id == r.ids[ri]) {
          emitted.insert(id);
          out.push_back(item(live_of(id), config[ri], r.elements[ri]));
          ++li;
          ++ri;
          advance_shared();
          continue;
        }
        // A live element the configuration also has, but later: it is placed then.
        if (r.first.contains(id) && next_shared < shared.size() && !is_next_shared(id)) {
          ++li;
          continue;
        }
      }
      if (li < live.size()) {
        const std::string& id = l.ids[li];
        if (!r.first.contains(id)) {
          out.push_back(live[li]);
          ++li;
          continue;
        }
        if (emitted.contains(id)) ++li;
      }
      if (ri < config.size()) {
        const std::string& id = r.ids[ri];
        emitted.insert(id);
        out.push_back(item(live_of(id), config[ri], r.elements[ri]));
        ++ri;
        if (is_next_shared(id)) advance_shared();
      }
    }
    return out;
  }

  const ApplySchema& schema_;
  WalkPath path_;
};

}  // namespace

json::value merge_applied(const json::value& live, const json::value& config, const ApplySchema& schema) {
  Merger merger(schema);
  if (live.is_object() && config.is_object()) return merger.members(live.get_object(), config.get_object());
  return config;
}

}  // namespace kueuepp::kube::patch::detail

// What changed between two objects (structured-merge-diff's Compare), in field-set terms:
// leaves added, modified or removed, plus the objects and list elements that appeared or
// disappeared as a whole. Lenient: stored objects never make it fail.

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "kube/apiserver/patch/typed_ops.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

// Whether a list-map element carries every key field as a string. Two such elements are
// one element exactly when those strings are equal (their path elements serialize alike).
bool has_string_keys(const json::value& item, const std::vector<std::string>& keys) {
  const json::object* o = item.if_object();
  if (o == nullptr) return false;
  for (const std::string& k : keys) {
    const json::value* v = o->if_contains(k);
    if (v == nullptr || !v->is_string()) return false;
  }
  return true;
}

// Both must have string keys (has_string_keys).
bool same_string_keys(const json::value& a, const json::value& b, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (a.get_object().at(k).get_string() != b.get_object().at(k).get_string()) return false;
  }
  return true;
}

// The usual list-map on a write: the same elements (by string keys) at the same places,
// no key twice. Each element then matches the one at its index, as the general matching
// would find, without building a path element for any of them.
bool aligned_by_key(const json::array& before, const json::array& after, const ListStrategy& strategy) {
  if (strategy.kind != ListStrategy::Kind::Map || strategy.keys.empty() || before.size() != after.size()) return false;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (!has_string_keys(before[i], strategy.keys) || !has_string_keys(after[i], strategy.keys) ||
        !same_string_keys(before[i], after[i], strategy.keys)) {
      return false;
    }
    // A key seen twice makes a group, which the general matching compares as a whole.
    for (std::size_t j = 0; j < i; ++j) {
      if (same_string_keys(before[j], before[i], strategy.keys)) return false;
    }
  }
  return true;
}

class Comparer {
 public:
  Comparer(const ApplySchema& schema, bool ignore_managed_fields, std::span<const std::string_view> changeable,
           ChangeSink* sink = nullptr)
      : schema_(schema), ignore_managed_fields_(ignore_managed_fields), changeable_(changeable), sink_(sink) {
    path_.reserve(kUsualDepth);
  }

  // Compares the members of two objects (either may be absent).
  void members(const json::object* before, const json::object* after) {
    std::size_t shared = 0;  // members of `after` also in `before`
    if (before != nullptr) {
      for (const auto& m : *before) {
        if (stopped_) return;
        const json::value* other = nullptr;
        if (after != nullptr) {
          if (auto it = after->find(m.key()); it != after->end()) other = &it->value();
        }
        if (other != nullptr) ++shared;
        if (skipped(m.key())) continue;
        // An unchanged member (most of them on a typical write) has nothing to report:
        // one allocation-free equality check spares building its path. Boost.JSON's
        // equality is stricter than json::json_equal, so this never skips a member the walk
        // would find changed.
        if (other != nullptr && json::equal(m.value(), *other)) continue;
        path_.push_field(m.key());
        node(&m.value(), other, /*known_unequal=*/other != nullptr);
        path_.pop_field();
      }
    }
    // Keys are unique: when all of `after`'s are in `before` (the usual write), it has no
    // member of its own to look for.
    if (after != nullptr && shared < after->size()) {
      for (const auto& m : *after) {
        if (stopped_) return;
        if (skipped(m.key()) || (before != nullptr && before->contains(m.key()))) continue;
        path_.push_field(m.key());
        node(nullptr, &m.value());
        path_.pop_field();
      }
    }
  }

  Comparison take() { return std::move(result_); }
  bool stopped() const { return stopped_; }

 private:
  enum class Shape { Leaf, Object, List };

  // Deep enough for a Workload's status (status.admission.podSetAssignments[].flavors.cpu)
  // and most objects; deeper paths grow the vectors as before.
  static constexpr std::size_t kUsualDepth = 12;

  bool skipped(std::string_view key) const {
    if (path_.depth == 0) return !changeable(key);
    return ignore_managed_fields_ && path_.depth == 1 && key == "managedFields" && path_.fields.size() == 1 &&
           path_.fields[0] == "metadata";
  }

  bool changeable(std::string_view key) const {
    return changeable_.empty() || std::find(changeable_.begin(), changeable_.end(), key) != changeable_.end();
  }

  // How a value is walked: granular objects and lists are descended into, all else is a
  // leaf. Empty containers on both sides are leaves (upstream "emptyPromoteToLeaf").
  // `*list` receives a list's strategy, looked up here once for items() too.
  Shape shape(const json::value* before, const json::value* after, ListStrategy* list) const {
    if (path_.depth > kMaxDepth) return Shape::Leaf;
    const json::value* v = after != nullptr ? after : before;
    if (before != nullptr && after != nullptr && before->kind() != after->kind() &&
        (before->is_object() || before->is_array() || after->is_object() || after->is_array())) {
      return Shape::Leaf;  // the kind changed: a modification of the whole
    }
    auto empty = [](const json::value* x) {
      return x == nullptr || (x->is_object() && x->get_object().empty()) || (x->is_array() && x->get_array().empty());
    };
    if (v->is_object()) {
      if (schema_.atomic_object(path_.schema_path()) || (empty(before) && empty(after))) return Shape::Leaf;
      return Shape::Object;
    }
    if (v->is_array()) {
      *list = schema_.list(path_.schema_path());
      if (list->kind == ListStrategy::Kind::Atomic || (empty(before) && empty(after))) return Shape::Leaf;
      return Shape::List;
    }
    return Shape::Leaf;
  }

  // `known_unequal`: the caller found json::equal false already (members above), so
  // the check below would only scan both values again up to their first difference.
  void node(const json::value* before, const json::value* after, bool known_unequal = false) {
    // An unchanged list element: as for members above.
    if (!known_unequal && before != nullptr && after != nullptr &&
        (before->is_structured() || after->is_structured()) && json::equal(*before, *after)) {
      return;
    }
    ListStrategy list;
    switch (shape(before, after, &list)) {
      case Shape::Leaf:
        if (before == nullptr) {
          report(ChangeSink::Change::Added);
        } else if (after == nullptr) {
          report(ChangeSink::Change::Removed);
        } else if (!json::json_equal(*before, *after)) {
          report(ChangeSink::Change::Modified);
        }
        return;
      case Shape::Object:
        members(before != nullptr ? before->if_object() : nullptr, after != nullptr ? after->if_object() : nullptr);
        break;
      case Shape::List:
        items(before != nullptr ? before->if_array() : nullptr, after != nullptr ? after->if_array() : nullptr, list);
        break;
    }
    // A granular object or list that appeared or disappeared is itself added or removed.
    if (before == nullptr) report(ChangeSink::Change::Added);
    if (after == nullptr) report(ChangeSink::Change::Removed);
  }

  // A change at the current path: to the sink, or into the result's sets.
  void report(ChangeSink::Change change) {
    if (stopped_) return;
    if (sink_ != nullptr) {
      stopped_ = !sink_->on_change(change, path_.elements);
      return;
    }
    switch (change) {
      case ChangeSink::Change::Added: result_.added.insert(path_.elements); break;
      case ChangeSink::Change::Modified: result_.modified.insert(path_.elements); break;
      case ChangeSink::Change::Removed: result_.removed.insert(path_.elements); break;
    }
  }

  static constexpr std::size_t kFewItems = 16;

  // Whether two list elements serialize alike, where that is plain without serializing:
  // different kinds never do; keys whose values are all strings (sorted by name on both
  // sides) and string values do exactly when equal. nullopt: serialize to tell.
  static std::optional<bool> same_element(const PathElement& a, const PathElement& b) {
    if (a.type != b.type) return false;
    if (a.type == PathElement::Type::Value) {
      if (a.value.is_string() && b.value.is_string()) return a.value.get_string() == b.value.get_string();
      return std::nullopt;
    }
    if (a.type != PathElement::Type::Key) return std::nullopt;
    const json::object* x = a.value.if_object();
    const json::object* y = b.value.if_object();
    if (x == nullptr || y == nullptr) return std::nullopt;
    for (const auto& m : *x) {
      if (!m.value().is_string()) return std::nullopt;
    }
    for (const auto& m : *y) {
      if (!m.value().is_string()) return std::nullopt;
    }
    if (x->size() != y->size()) return false;
    auto j = y->begin();
    for (const auto& m : *x) {
      if (m.key() != j->key() || m.value().get_string() != j->value().get_string()) return false;
      ++j;
    }
    return true;
  }

  struct Occurrences {
    PathElement element;
    std::vector<const json::value*> before, after;
  };

  // List elements are matched by key (or value); duplicated keys are compared as groups,
  // like upstream.
  void items(const json::array* before, const json::array* after, const ListStrategy& strategy) {
    // Pairing by index checks every pair of elements for a repeated key: only for the
    // few-element lists where the general matching scans pairs too, never a quadratic
    // walk over a long list the hashed matching below handles in one pass.
    if (before != nullptr && after != nullptr && before->size() + after->size() <= kFewItems &&
        aligned_by_key(*before, *after, strategy)) {
      aligned_items(*before, *after, strategy);
      return;
    }
    std::vector<Occurrences> all;
    const std::size_t total = (before != nullptr ? before->size() : 0) + (after != nullptr ? after->size() : 0);
    if (total <= kFewItems) {
      // Few elements (the usual list): matched by scanning, most without serializing.
      std::vector<std::string> ids;  // serialized, filled in only where needed
      auto collect = [&](const json::array* list, bool is_after) {
        if (list == nullptr) return;
        for (const auto& item : *list) {
          auto pe = schema_.element(item, strategy, /*strict=*/false);
          if (!pe) continue;  // lenient mode never fails
          std::size_t at = 0;
          std::string id;
          for (; at < all.size(); ++at) {
            std::optional<bool> same = same_element(all[at].element, *pe);
            if (!same) {
              if (id.empty()) id = pe->serialize();
              if (ids[at].empty()) ids[at] = all[at].element.serialize();
              same = ids[at] == id;
            }
            if (*same) break;
          }
          if (at == all.size()) {
            all.push_back(Occurrences{std::move(*pe), {}, {}});
            ids.push_back(std::move(id));
          }
          (is_after ? all[at].after : all[at].before).push_back(&item);
        }
      };
      collect(before, false);
      collect(after, true);
    } else {
      std::unordered_map<std::string, std::size_t> index;
      auto collect = [&](const json::array* list, bool is_after) {
        if (list == nullptr) return;
        for (const auto& item : *list) {
          auto pe = schema_.element(item, strategy, /*strict=*/false);
          if (!pe) continue;  // lenient mode never fails
          const std::string id = pe->serialize();
          auto [it, fresh] = index.emplace(id, all.size());
          if (fresh) all.push_back(Occurrences{std::move(*pe), {}, {}});
          (is_after ? all[it->second].after : all[it->second].before).push_back(&item);
        }
      };
      collect(before, false);
      collect(after, true);
    }

    for (auto& o : all) {
      if (stopped_) return;
      path_.push_element(o.element);
      const std::size_t nb = o.before.size(), na = o.after.size();
      if (nb <= 1 && na <= 1) {
        node(nb == 1 ? o.before[0] : nullptr, na == 1 ? o.after[0] : nullptr);
      } else if (nb >= 2 && na >= 2) {
        bool same = nb == na;
        for (std::size_t i = 0; same && i < nb; ++i) same = json::json_equal(*o.before[i], *o.after[i]);
        if (!same) report(ChangeSink::Change::Modified);
      } else if (nb >= 2) {
        if (na == 1) node(nullptr, o.after[0]);
        report(ChangeSink::Change::Removed);
      } else {
        if (nb == 1) node(o.before[0], nullptr);
        report(ChangeSink::Change::Added);
      }
      path_.pop_element();
    }
  }

  // Elements paired by index (aligned_by_key): only a pair that differs needs its path.
  void aligned_items(const json::array& before, const json::array& after, const ListStrategy& strategy) {
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (stopped_) return;
      if (json::equal(before[i], after[i])) continue;
      auto pe = schema_.element(after[i], strategy, /*strict=*/false);
      if (!pe) continue;  // lenient mode never fails
      path_.push_element(std::move(*pe));
      node(&before[i], &after[i], /*known_unequal=*/true);
      path_.pop_element();
    }
  }

  const ApplySchema& schema_;
  const bool ignore_managed_fields_;
  // Top-level members the caller knows may differ (empty: all): the others are skipped.
  const std::span<const std::string_view> changeable_;
  ChangeSink* const sink_;  // null: changes go into result_
  bool stopped_ = false;
  WalkPath path_;
  Comparison result_;
};

}  // namespace

Comparison compare_objects(const json::value& before, const json::value& after, const ApplySchema& schema,
                           bool ignore_managed_fields, std::span<const std::string_view> changeable) {
  Comparer comparer(schema, ignore_managed_fields, changeable);
  comparer.members(before.if_object(), after.if_object());
  return comparer.take();
}

bool compare_objects(const json::value& before, const json::value& after, const ApplySchema& schema,
                     ChangeSink& sink, bool ignore_managed_fields, std::span<const std::string_view> changeable) {
  Comparer comparer(schema, ignore_managed_fields, changeable, &sink);
  comparer.members(before.if_object(), after.if_object());
  return !comparer.stopped();
}

}  // namespace kueuepp::kube::patch::detail

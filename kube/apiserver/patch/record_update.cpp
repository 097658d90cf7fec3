// managedFields for ordinary writes (create, update, patch): kube-apiserver's
// FieldManager.Update pipeline over structured-merge-diff's Updater.Update.
//   - which managedFields count: the stored ones, or those the request sent (main resource
//     only; `[]` clears them);
//   - an existing object nobody tracks stays untracked;
//   - the write's changes (added and modified fields) go to `manager`'s Update entry and
//     are taken from everybody else; removed fields are taken from everybody;
//   - meta fields are nobody's; at most 10 Update entries.

#include <algorithm>
#include <string>
#include <utility>

#include "kube/apiserver/patch/managed_fields.hpp"
#include "kube/apiserver/patch/managed_fields_kept.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/patch/typed_ops.hpp"

namespace kueuepp::kube::patch {
namespace {

using detail::FieldSet;
using detail::ManagedEntries;
using detail::ManagedEntry;
using detail::PathElement;

bool exists(const json::value* previous) { return previous != nullptr && previous->is_object(); }

// previous's metadata.managedFields, wherever the caller keeps them (null: none).
const json::value* stored_list(const json::value* previous, detail::HeldApart held_apart) {
  if (held_apart) return *held_apart;
  return exists(previous) ? json::find_path(*previous, {"metadata", "managedFields"}) : nullptr;
}

// upstream decodeLiveOrNew: a subresource write always keeps the stored managedFields; a
// main-resource write may bring its own (or clear them with `[]`). Undecodable entries
// count as none.
ManagedEntries current_entries(const json::value& object, const json::value* previous,
                               const json::value* stored_managed_fields, std::string_view subresource) {
  auto stored = [previous, stored_managed_fields]() {
    if (!exists(previous)) return ManagedEntries{};
    auto decoded = detail::decode_managed_field_list(stored_managed_fields);
    return decoded ? std::move(*decoded) : ManagedEntries{};
  };
  if (!subresource.empty()) return stored();
  const json::value* sent = json::find_path(object, {"metadata", "managedFields"});
  if (sent != nullptr && detail::is_reset_request(*sent)) return {};
  auto decoded = detail::decode_managed_fields(object);
  if (decoded && !decoded->empty()) return std::move(*decoded);
  return stored();
}

// --- The in-place path -------------------------------------------------------------
// Most writes (a controller's status update, a label change) only touch fields their
// manager already owns and nobody else does. Then the stored entries stay as they are
// but for the writer's timestamp, and decoding every entry into field sets and encoding
// them back (most of the cost of a write) is not needed: the checks below walk the
// changed paths through the stored FieldsV1 objects instead. Anything else takes the
// general path, which gives the same result.

// Whether `set` has any of the top-level fields of the meta fields (apiVersion, kind,
// metadata). When it has none, set.minus(meta_fields()) is `set` itself.
bool touches_meta_fields(const FieldSet& set) {
  for (const auto& c : detail::meta_fields().children()) {
    if (set.touches(std::span<const PathElement>(&c.element, 1))) return true;
  }
  return false;
}

bool is_member_node(const json::object& node) { return node.empty() || node.contains("."); }

const json::object* child_node(const json::object& node, const PathElement& element) {
  // Most elements are field names: their FieldsV1 key is made in a reused buffer rather
  // than a new string each time (these lookups run for every entry on every write).
  thread_local std::string field_key;
  std::string_view key;
  std::string other_key;
  if (element.type == PathElement::Type::Field) {
    field_key.assign("f:");
    field_key.append(element.field);
    key = field_key;
  } else {
    other_key = element.serialize();
    key = other_key;
  }
  auto it = node.find(key);
  if (it == node.end()) return nullptr;
  return it->value().if_object();
}

// Whether `path` is a member of the FieldsV1 object `fields`.
bool member_at(const json::object& fields, std::span<const PathElement> path) {
  const json::object* node = &fields;
  for (const PathElement& element : path) {
    node = child_node(*node, element);
    if (node == nullptr) return false;
  }
  return is_member_node(*node);
}

bool is_update_entry_of(const json::object& e, std::string_view manager, std::string_view api_version,
                        std::string_view subresource) {
  return json::get_string(e, "operation") == "Update" && json::get_string(e, "manager") == manager &&
         json::get_string(e, "apiVersion") == api_version && json::get_string(e, "subresource") == subresource;
}

// encode_managed_fields' order: operation, time, manager, apiVersion, subresource.
bool entry_before(const json::value& p, const json::value& q) {
  for (std::string_view key : {"operation", "time", "manager", "apiVersion", "subresource"}) {
    const std::string_view a = json::get_string(p, key);
    const std::string_view b = json::get_string(q, key);
    if (a != b) return a < b;
  }
  return false;
}

// The stored entries when they are the ones that count for this write (see
// current_entries) and the server wrote them (so they are valid and in canonical form).
const json::array* stored_entries_that_count(const json::value& object, const json::value* stored,
                                             std::string_view subresource) {
  if (stored == nullptr || !stored->is_array() || stored->get_array().empty()) return nullptr;
  if (subresource.empty()) {
    const json::value* sent = json::find_path(object, {"metadata", "managedFields"});
    if (sent != nullptr && !sent->is_null() && !json::equal(*sent, *stored)) return nullptr;
  }
  return &stored->get_array();
}

// Whether the entry's time is `timestamp` (absent when that is empty).
bool has_time(const json::object& entry, std::string_view timestamp) {
  if (timestamp.empty()) return !entry.contains("time");
  const json::value* t = entry.if_contains("time");
  return t != nullptr && t->is_string() && t->get_string() == timestamp;
}

// What the in-place path needs to know of a write, found while the objects are compared
// (detail::ChangeSink), without building field sets: each changed path is looked up in
// the stored entries as it comes. A write changes only its own fields when every path it
// removed is nobody's, and every path it added or modified is the writer's (the meta
// fields: nobody's) and nobody else's; the first path that is not ends the walk.
class InPlaceCheck final : public detail::ChangeSink {
 public:
  InPlaceCheck(const json::array& stored, std::string_view manager, std::string_view api_version,
               std::string_view subresource)
      : self_(stored.size()) {
    fields_.reserve(stored.size());
    writer_.reserve(stored.size());
    for (std::size_t i = 0; i < stored.size() && usable_; ++i) {
      const json::object* e = stored[i].if_object();
      const json::value* fields = e != nullptr ? e->if_contains("fieldsV1") : nullptr;
      usable_ = fields != nullptr && fields->is_object();
      if (!usable_) break;
      fields_.push_back(&fields->get_object());
      writer_.push_back(is_update_entry_of(*e, manager, api_version, subresource));
      if (writer_.back()) self_ = i;
      if (json::get_string(*e, "operation") == "Update") ++updaters_;
    }
  }

  /// Whether the entries can be checked at all (objects with FieldsV1 objects).
  bool usable() const { return usable_; }

  bool on_change(Change change, std::span<const PathElement> path) override {
    const bool meta = change != Change::Removed && detail::meta_fields().has(path);
    const bool writers = change != Change::Removed && !meta;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const bool owned = member_at(*fields_[i], path);
      if ((writers && writer_[i]) ? !owned : owned) return owns_all_ = false;
    }
    if (writers) {
      changes_own_ = true;
      // A new entry for the writer is made from its fields: only then are they kept.
      if (self_ == fields_.size()) mine_.insert(path);
    }
    return true;
  }

  /// After the walk: whether every change is the writer's own (see above).
  bool owns_all() const { return owns_all_; }
  /// Whether the write changed fields of its own (not only meta fields or removals).
  bool changes_own() const { return changes_own_; }
  /// The writer's (last) entry; the number of entries when it has none.
  std::size_t self() const { return self_; }
  std::size_t updaters() const { return updaters_; }
  /// The writer's fields, when it has no entry.
  const FieldSet& mine() const { return mine_; }

 private:
  std::vector<const json::object*> fields_;  ///< each entry's FieldsV1
  std::vector<bool> writer_;                 ///< each entry: the writer's own Update entry
  std::size_t self_;
  std::size_t updaters_ = 0;
  bool usable_ = true;
  bool owns_all_ = true;
  bool changes_own_ = false;
  FieldSet mine_;
};

// Records the write without decoding the entries, `check` having found it changes only
// its writer's own fields; false when the general path must do it after all. `object`
// is changed only when this returns true; then `*kept` tells whether its entries came
// out exactly as stored: a copy of them, or with `stand_in`, a null in their place (the
// caller shares the stored ones).
bool record_in_place(json::value& object, const json::array* stored, const InPlaceCheck& check,
                     std::string_view manager, std::string_view api_version, std::string_view timestamp,
                     std::string_view subresource, bool stand_in, bool& kept) {
  // A write that left metadata out (or made it something else) has no map to keep the
  // entries in; the general path makes one.
  json::value* metadata = json::find(object, "metadata");
  if (metadata == nullptr || !metadata->is_object()) return false;
  const std::size_t self = check.self();
  const bool add_self = self == stored->size() && check.changes_own();
  if (add_self && check.updaters() + 1 > 10) return false;  // the general path folds old entries

  if (self != stored->size() && check.changes_own() && !timestamp.empty() &&
      !(*stored)[self].get_object().contains("time")) {
    return false;  // the general path puts the new member where the encoder does
  }

  // The entries go last in metadata, as the encoder puts them: the ones the request
  // carried are moved there (they equal the stored ones), or the stored ones copied.
  json::object& meta = metadata->as_object();
  json::value entries = nullptr;
  if (auto it = meta.find("managedFields"); it != meta.end()) {
    // On a main-resource write a sent list was checked equal to the stored one; a
    // status write ignores what it sent.
    if (it->value().is_array() && (subresource.empty() || json::equal(it->value().get_array(), *stored))) {
      entries = std::move(it->value());
    }
    meta.stable_erase(it);
  }
  // Only the stored list itself is known to serialize as stored (a sent list may order
  // members otherwise); it stays so unless the writer's entry moves or they need sorting.
  const bool self_unchanged =
      self == stored->size() || !check.changes_own() || has_time((*stored)[self].get_object(), timestamp);
  kept = !entries.is_array() && !add_self && self_unchanged &&
         std::is_sorted(stored->begin(), stored->end(), entry_before);
  if (kept && stand_in) {
    meta["managedFields"] = nullptr;
    return true;
  }
  if (!entries.is_array()) entries = *stored;
  json::array& list = entries.get_array();
  if (add_self) {
    json::object entry;
    entry["manager"] = manager;
    entry["operation"] = "Update";
    entry["apiVersion"] = api_version;
    if (!timestamp.empty()) entry["time"] = timestamp;
    entry["fieldsType"] = "FieldsV1";
    entry["fieldsV1"] = check.mine().to_fields_v1();
    if (!subresource.empty()) entry["subresource"] = subresource;
    list.push_back(std::move(entry));
  } else if (self != stored->size() && check.changes_own()) {
    // Within the same second the writer's entry stays as it was.
    json::object& e = list[self].as_object();
    if (timestamp.empty()) {
      e.erase("time");
    } else {
      e["time"] = timestamp;
    }
  }
  if (!std::is_sorted(list.begin(), list.end(), entry_before)) std::stable_sort(list.begin(), list.end(), entry_before);
  meta["managedFields"] = std::move(entries);
  return true;
}

}  // namespace

namespace detail {

bool record_update_via(RecordPath path, json::value& object, const json::value* previous, std::string_view manager,
                       std::string_view api_version, std::string_view timestamp, std::string_view subresource,
                       const ListStrategyResolver& lists, const AtomicObjectResolver& atomic_objects,
                       bool* kept_as_stored, ChangeableMembers changeable, HeldApart held_apart) {
  bool kept = false;
  if (kept_as_stored != nullptr) *kept_as_stored = false;
  if (!object.is_object()) return false;
  static const json::value no_object = json::object();
  const json::value& before = exists(previous) ? *previous : no_object;
  const ApplySchema schema(object, lists, atomic_objects);
  const json::value* stored = stored_list(previous, held_apart);
  if (path == RecordPath::Any && exists(previous)) {
    if (const json::array* entries = stored_entries_that_count(object, stored, subresource)) {
      InPlaceCheck check(*entries, manager, api_version, subresource);
      if (check.usable() &&
          compare_objects(before, object, schema, check, /*ignore_managed_fields=*/true, changeable) &&
          record_in_place(object, entries, check, manager, api_version, timestamp, subresource,
                          held_apart.has_value(), kept)) {
        if (kept_as_stored != nullptr) *kept_as_stored = kept;
        return true;
      }
    }
  }

  const Comparison change = compare_objects(before, object, schema, /*ignore_managed_fields=*/true, changeable);
  ManagedEntries entries = current_entries(object, previous, stored, subresource);
  if (json::value* meta = json::find(object, "metadata"); meta != nullptr && meta->is_object()) {
    meta->get_object().stable_erase("managedFields");
  }
  if (entries.empty() && exists(previous)) return false;  // untracked objects stay untracked

  const FieldSet changed = change.added.united(change.modified);
  for (auto& e : entries) e.fields = e.fields.minus(changed).minus(change.removed);
  detail::drop_empty(entries);

  FieldSet mine = touches_meta_fields(changed) ? changed.minus(detail::meta_fields()) : changed;
  if (!mine.empty()) {
    ManagedEntry self{std::string(manager), "Update", std::string(api_version), std::string(timestamp),
                      std::string(subresource), {}};
    if (ManagedEntry* existing = detail::find_entry(entries, self.identity())) {
      existing->fields = mine.united(existing->fields);
      existing->time = std::string(timestamp);
    } else {
      self.fields = std::move(mine);
      entries.push_back(std::move(self));
    }
  }
  detail::cap_update_managers(entries);
  detail::encode_managed_fields(object, std::move(entries));
  return false;
}

}  // namespace detail

void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp, std::string_view subresource,
                   const ListStrategyResolver& lists, const AtomicObjectResolver& atomic_objects) {
  detail::record_update_via(detail::RecordPath::Any, object, previous, manager, api_version, timestamp, subresource,
                            lists, atomic_objects);
}

bool record_update_keeping(json::value& object, const json::value* previous, const json::value* stored_managed_fields,
                           std::string_view manager, std::string_view api_version, std::string_view timestamp,
                           std::string_view subresource, const ListStrategyResolver& lists,
                           const AtomicObjectResolver& atomic_objects, ChangeableMembers changeable) {
  bool kept = false;
  detail::record_update_via(detail::RecordPath::Any, object, previous, manager, api_version, timestamp, subresource,
                            lists, atomic_objects, &kept, changeable, stored_managed_fields);
  return kept;
}

void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp, std::string_view subresource) {
  record_update(object, previous, manager, api_version, timestamp, subresource, ListStrategyResolver(),
                AtomicObjectResolver());
}

}  // namespace kueuepp::kube::patch

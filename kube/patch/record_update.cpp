// managedFields for ordinary writes (create, update, patch): kube-apiserver's
// FieldManager.Update pipeline over structured-merge-diff's Updater.Update.
//   - which managedFields count: the stored ones, or those the request sent (main resource
//     only; `[]` clears them);
//   - an existing object nobody tracks stays untracked;
//   - the write's changes (added and modified fields) go to `manager`'s Update entry and
//     are taken from everybody else; removed fields are taken from everybody;
//   - meta fields are nobody's; at most 10 Update entries.

#include <string>
#include <utility>

#include "kube/patch/managed_fields.hpp"
#include "kube/patch/patch.hpp"
#include "kube/patch/typed_ops.hpp"

namespace kueuepp::kube::patch {
namespace {

using detail::FieldSet;
using detail::ManagedEntries;
using detail::ManagedEntry;

bool exists(const json::value* previous) { return previous != nullptr && previous->is_object(); }

// upstream decodeLiveOrNew: a subresource write always keeps the stored managedFields; a
// main-resource write may bring its own (or clear them with `[]`). Undecodable entries
// count as none.
ManagedEntries current_entries(const json::value& object, const json::value* previous, std::string_view subresource) {
  auto stored = [previous]() {
    if (!exists(previous)) return ManagedEntries{};
    auto decoded = detail::decode_managed_fields(*previous);
    return decoded ? std::move(*decoded) : ManagedEntries{};
  };
  if (!subresource.empty()) return stored();
  const json::value* sent = json::find_path(object, {"metadata", "managedFields"});
  if (sent != nullptr && detail::is_reset_request(*sent)) return {};
  auto decoded = detail::decode_managed_fields(object);
  if (decoded && !decoded->empty()) return std::move(*decoded);
  return stored();
}

}  // namespace

void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp, std::string_view subresource,
                   const ListStrategyResolver& lists, const AtomicObjectResolver& atomic_objects) {
  if (!object.is_object()) return;
  ManagedEntries entries = current_entries(object, previous, subresource);
  json::value after = detail::without_managed_fields(object);
  if (entries.empty() && exists(previous)) {  // untracked objects stay untracked
    object = std::move(after);
    return;
  }
  const json::value before = exists(previous) ? detail::without_managed_fields(*previous) : json::value(json::object());
  const detail::ApplySchema schema(after, lists, atomic_objects);
  const detail::Comparison change = detail::compare_objects(before, after, schema);

  const FieldSet changed = change.added.united(change.modified);
  for (auto& e : entries) e.fields = e.fields.minus(changed).minus(change.removed);
  detail::drop_empty(entries);

  FieldSet mine = changed.minus(detail::meta_fields());
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
  object = std::move(after);
  detail::encode_managed_fields(object, std::move(entries));
}

void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp, std::string_view subresource) {
  record_update(object, previous, manager, api_version, timestamp, subresource, ListStrategyResolver(),
                AtomicObjectResolver());
}

}  // namespace kueuepp::kube::patch

// Server-side apply (kube-apiserver's FieldManager.Apply over structured-merge-diff's
// Updater.Apply):
//   1. an object without managedFields first gets a "before-first-apply" Update entry
//      owning what is already there;
//   2. the configuration is merged into the live object;
//   3. the applier's entry becomes exactly the configuration's field set;
//   4. fields it applied last time and nobody holds any more are removed (prune);
//   5. fields other managers own whose value changes are conflicts: 409, or with force
//      they change owner; everybody loses the fields that were removed;
//   6. meta fields (name, uid, ...) are owned by nobody.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/json_order.hpp"
#include "kube/apiserver/patch/managed_fields.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/patch/typed_ops.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch {
namespace {

using detail::ApplySchema;
using detail::FieldSet;
using detail::ManagedEntries;
using detail::ManagedEntry;

constexpr std::string_view kBeforeFirstApply = "before-first-apply";

struct Conflict {
  const ManagedEntry* owner;
  detail::Path path;
};

// kube-apiserver's message: one conflict on one line, several grouped by manager.
PatchError conflict_error(std::vector<Conflict> conflicts) {
  std::stable_sort(conflicts.begin(), conflicts.end(), [](const Conflict& a, const Conflict& b) {
    return a.owner->display() < b.owner->display();
  });
  PatchError e;
  e.kind = PatchError::Kind::Conflict;
  e.cause = PatchError::Cause::ManagerConflict;
  for (const auto& c : conflicts) {
    const std::string field = detail::display_path(c.path);
    const std::string owner = c.owner->display();
    e.conflicts.push_back("conflict with " + owner + ": " + field);
    e.conflict_causes.push_back(FieldConflict{field, c.owner->manager, "conflict with " + owner});
  }
  if (conflicts.size() == 1) {
    e.message = "Apply failed with 1 conflict: " + e.conflicts.front();
    e.path = e.conflict_causes.front().field;
    return e;
  }
  e.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
  std::string current;
  for (std::size_t i = 0; i < conflicts.size(); ++i) {
    const std::string owner = conflicts[i].owner->display();
    if (owner != current) {
      e.message += (i == 0 ? "" : "\n") + ("conflicts with " + owner + ":");
      current = owner;
    }
    e.message += "\n- " + e.conflict_causes[i].field;
  }
  return e;
}

// Step 1: existing objects that nobody tracks yet get an owner for what they hold.
void adopt_untracked(ManagedEntries& entries, const json::value& live, const ApplySchema& schema,
                     const ApplyRequest& request) {
  if (!entries.empty() || !live.is_object() || live.get_object().empty()) return;
  const detail::Comparison c = detail::compare_objects(json::object(), live, schema);
  FieldSet owned = c.added.united(c.modified).minus(detail::meta_fields());
  if (owned.empty()) return;
  entries.push_back(ManagedEntry{std::string(kBeforeFirstApply), "Update", std::string(request.api_version),
                                 std::string(request.timestamp), {}, std::move(owned)});
}

// Step 5: the conflicts, or (force / none) the other managers' sets without the fields
// that changed hands or went away.
Expected<void, PatchError> settle_ownership(ManagedEntries& entries, const std::string& applier,
                                            const detail::Comparison& change, bool force) {
  const FieldSet changed = change.modified.united(change.added);
  std::vector<Conflict> conflicts;
  std::vector<FieldSet> lost(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].identity() == applier) continue;
    lost[i] = entries[i].fields.intersected(changed);
    lost[i].for_each_member([&](const detail::Path& p) { conflicts.push_back(Conflict{&entries[i], p}); });
  }
  if (!conflicts.empty() && !force) return unexpected(conflict_error(std::move(conflicts)));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].identity() == applier) continue;
    entries[i].fields = entries[i].fields.minus(lost[i]).minus(change.removed);
  }
  return {};
}

Expected<void, PatchError> check_request(const ApplyRequest& request) {
  if (request.applied == nullptr || !request.applied->is_object()) {
    return detail::bad_request("", std::string("server-side apply: the applied configuration must be a JSON object, got ") +
                                       (request.applied == nullptr ? "nothing" : detail::kind_name(*request.applied)));
  }
  if (request.live != nullptr && !request.live->is_null() && !request.live->is_object()) {
    return detail::invalid("", "server-side apply: the live object must be a JSON object",
                           PatchError::Cause::Malformed);
  }
  if (const json::value* mf = json::find_path(*request.applied, {"metadata", "managedFields"});
      mf != nullptr && !mf->is_null()) {
    return detail::bad_request(".metadata.managedFields", "metadata.managedFields must be nil");
  }
  return {};
}

}  // namespace

Expected<json::value, PatchError> server_side_apply(const ApplyRequest& request) {
  if (auto ok = check_request(request); !ok) return unexpected(std::move(ok).error());
  const json::value config = detail::without_nulls(*request.applied);
  const bool creating = request.live == nullptr || request.live->is_null();
  const json::value live = creating ? json::value(json::object()) : detail::without_managed_fields(*request.live);
  const ApplySchema schema(config, request.lists, request.atomic_objects);

  auto decoded = creating ? Expected<ManagedEntries>(ManagedEntries{}) : detail::decode_managed_fields(*request.live);
  if (!decoded) {
    return detail::invalid(".metadata.managedFields", "failed to decode managed fields: " + decoded.error().message,
                           PatchError::Cause::Malformed);
  }
  ManagedEntries entries = std::move(*decoded);
  adopt_untracked(entries, live, schema, request);

  auto applied_set = detail::applied_field_set(config, schema);
  if (!applied_set) return unexpected(std::move(applied_set).error());

  // Steps 2-4.
  json::value merged = detail::merge_applied(live, config, schema);
  ManagedEntry self{std::string(request.manager), "Apply", std::string(request.api_version), {},
                    std::string(request.subresource), std::move(*applied_set)};
  const std::string applier = self.identity();
  FieldSet last;
  if (ManagedEntry* previous = detail::find_entry(entries, applier)) {
    last = std::move(previous->fields);
    self.time = previous->time;
    *previous = std::move(self);
  } else {
    entries.push_back(std::move(self));
  }
  if (!last.empty()) {
    FieldSet everybody;
    for (const auto& e : entries) everybody = everybody.united(e.fields);
    detail::prune_unowned(merged, last, everybody, schema);
  }

  // Steps 5-6.
  const detail::Comparison change = detail::compare_objects(live, merged, schema);
  if (auto settled = settle_ownership(entries, applier, change, request.force); !settled) {
    return unexpected(std::move(settled).error());
  }
  ManagedEntry* mine = detail::find_entry(entries, applier);
  mine->fields = mine->fields.minus(detail::meta_fields());
  // The applier's time moves only when the object changes (upstream: no-op applies keep it).
  if (!json::json_equal(live, merged)) mine->time = std::string(request.timestamp);
  detail::drop_empty(entries);

  detail::encode_managed_fields(merged, std::move(entries));
  return merged;
}

}  // namespace kueuepp::kube::patch

#include "kube/apiserver/server/api/field_manager.hpp"

#include "kube/apiserver/patch/managed_fields_kept.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

bool track_write(json::value& obj, const StoredObject* old, const ResourceType& view, std::string_view manager,
                 bool status_subresource) {
  std::string now = now_rfc3339();
  std::string api_version = view.api_version();
  std::string_view subresource = status_subresource ? "status" : "";
  // A status write leaves all but status and metadata as stored (Strategy::
  // prepare_for_update): the comparison need not confirm it member by member.
  static constexpr std::string_view kStatusWrite[] = {"metadata", "status"};
  patch::ChangeableMembers changeable;
  if (status_subresource && view.status_subresource) changeable = kStatusWrite;
  const json::value* previous = old != nullptr ? &old->doc : nullptr;
  const json::value* stored_managed_fields = old != nullptr ? old->managed_fields.get() : nullptr;
  return patch::record_update_keeping(obj, previous, stored_managed_fields, manager, api_version, now, subresource,
                                      view.strategy->apply_lists(), view.strategy->apply_atomic_objects(),
                                      changeable);
}

}  // namespace kueuepp::kube::server

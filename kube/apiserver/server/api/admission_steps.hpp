#pragma once

// The admission steps of the write handlers: build the admission request of a write,
// run a phase, and carry on with the (possibly mutated) object, or answer the error.
// With no webhook configured a step carries on at once; otherwise it carries on once the
// webhooks answered, and a write whose stored object changed meanwhile is handled again
// on the new version (as kube-apiserver's update loop does; a few times, then 409).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/admission.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"

namespace kueuepp::kube::server {

enum class AdmissionPhase { Mutating, Validating };

/// The admission request of a write of `object` (null for DELETE) over `old` (null for
/// CREATE) through `r`; `name` overrides the request's (a collection's items).
AdmissionRequestPtr make_admission_request(const ResourceRequest& r, AdmissionOperation operation, json::value object,
                                           const ObjectPtr& old,
                                           const std::shared_ptr<std::vector<std::string>>& warnings,
                                           std::string_view name = {});

/// Runs `phase` for a write of `object` (null for DELETE) over `old` (null for CREATE),
/// then `next` with the object admission leaves and whether a webhook changed it.
/// Webhooks' warnings go to `warnings`.
void admit(const RequestPtr& r, AdmissionPhase phase, AdmissionOperation operation, json::value object,
           const ObjectPtr& old, const std::shared_ptr<std::vector<std::string>>& warnings,
           std::function<void(json::value, bool)> next);

}  // namespace kueuepp::kube::server

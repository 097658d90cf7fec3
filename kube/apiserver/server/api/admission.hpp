#pragma once

// Admission as the write handlers see it: kube-apiserver's mutating and validating
// admission phases, around the strategy's preparation and validation:
//
//   decode -> mutate (may change the object) -> prepare, validate -> validate (webhooks)
//   -> store
//
// The interface is free of networking: kube/apiserver/server/admission/ implements it with
// webhook calls over HTTPS. Calls answer through a callback, at once when no webhook
// applies and later (on the store thread) when one is called, so a slow webhook never
// holds up other requests. Store thread only.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/request_user.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

enum class AdmissionOperation { Create, Update, Delete, Connect };

/// "CREATE", "UPDATE", "DELETE", "CONNECT" (admission.k8s.io's Operation).
std::string_view operation_name(AdmissionOperation op);

/// One request as admission sees it (kube-apiserver's admission.Attributes).
struct AdmissionRequest {
  AdmissionOperation operation = AdmissionOperation::Create;
  /// The resource the request came through (its group, version, plural and kind).
  ResourceTypePtr view;
  std::string subresource;  ///< "status" or empty
  std::string name;
  std::string ns;           ///< for a Namespace itself: its name, as kube-apiserver reports it
  /// The new object in storage form (null for DELETE); mutation changes it in place.
  json::value object;
  /// The stored version (null for CREATE).
  ObjectPtr old_object;
  bool dry_run = false;
  /// CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1) as sent to webhooks.
  json::value options;
  /// Set by the mutating phase when a webhook's patch changed the object.
  bool mutated = false;
  /// Where webhooks' warnings go (the answer's Warning headers).
  std::shared_ptr<std::vector<std::string>> warnings;
  /// Who asked (empty name: the server itself).
  RequestUser user;
};
using AdmissionRequestPtr = std::shared_ptr<AdmissionRequest>;

class Admission {
 public:
  virtual ~Admission() = default;
  /// False when no webhook is configured at all: callers may then skip building a
  /// request (admission would let everything through unchanged).
  virtual bool active() = 0;
  /// The mutating phase: `done` gets success (request->object possibly changed) or the
  /// error to answer with.
  virtual void mutate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) = 0;
  /// The validating phase, on the object as it will be stored.
  virtual void validate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) = 0;
};

}  // namespace kueuepp::kube::server

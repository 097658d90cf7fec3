#pragma once

// The admission.k8s.io AdmissionReview a webhook is sent and the answer it gives back,
// checked as kube-apiserver checks it (VerifyAdmissionResponse), and the answers the API
// server then gives: kube-apiserver's words for a webhook that could not be called
// ("failed calling webhook ..."), for a denial ("admission webhook ... denied the
// request: ...") and for a dry run the webhook cannot take.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/api/request_user.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

/// What goes into AdmissionReview.request.
struct ReviewRequest {
  std::string uid;
  std::string review_version;      ///< "v1" or "v1beta1"
  const ResourceType* resource = nullptr;  ///< what the webhook is called for (kind, resource)
  const ResourceType* requested = nullptr; ///< what the request came through
  std::string_view subresource;
  std::string_view name;
  std::string_view ns;
  std::string_view operation;
  const json::value* object = nullptr;      ///< null: JSON null
  const json::value* old_object = nullptr;
  bool dry_run = false;
  const json::value* options = nullptr;
  const RequestUser* user = nullptr;  ///< null or nameless: the server itself
};

/// The AdmissionReview document sent to a webhook.
json::value make_admission_review(const ReviewRequest& request);

/// A webhook's verified answer.
struct ReviewResponse {
  bool allowed = false;
  std::string patch;       ///< the JSON patch document (decoded), empty when none
  json::value result;      ///< response.status (a metav1.Status), null when absent
  std::vector<std::string> warnings;
};

/// Parses and verifies a webhook's answer body; the error is kube-apiserver's reason
/// ("expected response.uid=..."), which the caller words as a failed call.
Expected<ReviewResponse> read_admission_response(std::string_view body, std::string_view uid,
                                                 std::string_view review_version, bool mutating);

/// 500 "Internal error occurred: failed calling webhook "name": <reason>".
ApiError webhook_call_failed(std::string_view webhook, std::string_view reason);
/// The webhook's denial: its Status, code 400 at least, the message prefixed with
/// "admission webhook "name" denied the request".
ApiError webhook_denied(std::string_view webhook, const json::value& result);
/// 400 "admission webhook "name" does not support dry run".
ApiError webhook_no_dry_run(std::string_view webhook);

}  // namespace kueuepp::kube::server

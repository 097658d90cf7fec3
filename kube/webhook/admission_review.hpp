#pragma once

// admission.k8s.io/v1 AdmissionReview, as kube-apiserver sends it to a webhook and reads
// the answer: the request decoded into what Kueue's webhooks look at, and the response
// (the request's uid echoed, allowed or refused with a status, a JSONPatch, warnings)
// encoded. Decoding never throws: anything malformed is an error that says what.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::webhook {

enum class Operation : std::uint8_t { Create, Update, Delete, Connect };

std::string_view to_string(Operation op);

struct AdmissionRequest {
  std::string uid;
  std::string group;     ///< request.kind.group ("" for the core group)
  std::string version;   ///< request.kind.version
  std::string kind;      ///< request.kind.kind
  std::string resource;  ///< request.resource.resource ("jobs")
  std::string sub_resource;
  std::string name;
  std::string ns;
  Operation operation = Operation::Create;
  /// request.object / request.oldObject; null when absent (DELETE has no object).
  json::value object;
  json::value old_object;
  bool dry_run = false;
};

/// Kubernetes' metav1.Status as a webhook's refusal carries it.
struct AdmissionStatus {
  int code = 403;
  std::string reason;  ///< "Forbidden", "BadRequest", "InternalError"
  std::string message;
};

struct AdmissionResponse {
  std::string uid;
  bool allowed = true;
  std::optional<AdmissionStatus> status;
  /// RFC 6902 operations; sent (base64, patchType JSONPatch) only when not empty.
  json::array patch;
  std::vector<std::string> warnings;
};

/// Decodes an AdmissionReview body (apiVersion admission.k8s.io/v1, a request with a uid
/// and an operation); the error says what is missing or malformed.
Expected<AdmissionRequest> decode_admission_review(std::string_view body);

/// The AdmissionReview answer kube-apiserver expects: apiVersion, kind, response.
std::string encode_admission_review(const AdmissionResponse& response);

AdmissionResponse allowed(std::string uid);
/// A refusal: controller-runtime answers a validator's error with 403 Forbidden.
AdmissionResponse denied(std::string uid, std::string message, int code = 403, std::string reason = "Forbidden");

/// The uid of a body that may not decode as a whole (to echo it in an error answer), or "".
std::string uid_of(std::string_view body);

}  // namespace kueuepp::kube::webhook

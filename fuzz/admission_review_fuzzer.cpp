// Fuzzes the admission webhook server's side of an AdmissionReview (kube/webhook): the
// body kube-apiserver (or anyone who reaches the webhook port) sends, decoded, then
// decided by every webhook kueuepp serves (the path only picks which; any body can reach
// any of them), and the answer encoded. Besides "no crash, no sanitizer report":
// - the answer echoes the request's uid and is an AdmissionReview kube-apiserver reads
//   (JSON, response.allowed a bool, a refusal with a status code);
// - a mutating webhook's JSON patch applies to the object it reviewed: kube-apiserver
//   refuses the request when it does not, so such a patch would block every such create.
// The cluster's facts (a default LocalQueue, a default priority class, namespace labels)
// and the policy (manageJobsWithoutQueueName) come from the input's size, so that each
// branch of the Job defaulting is reached.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base64.hpp"
#include "core/model/labels.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/json.hpp"
#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/cluster_facts.hpp"
#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "kube/webhook/webhook_dispatch.hpp"

namespace {

namespace json = kueuepp::json;
namespace core = kueuepp::core;
namespace webhook = kueuepp::kube::webhook;
namespace patch = kueuepp::kube::patch;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

class Facts final : public webhook::ClusterFacts {
 public:
  explicit Facts(std::size_t bits) : bits_(bits) { labels_["kubernetes.io/metadata.name"] = "team"; }
  bool default_local_queue_exists(std::string_view) const override { return (bits_ & 1U) != 0; }
  bool default_priority_class_exists() const override { return (bits_ & 2U) != 0; }
  const core::Labels* namespace_labels(std::string_view) const override {
    return (bits_ & 4U) != 0 ? &labels_ : nullptr;
  }

 private:
  std::size_t bits_;
  core::Labels labels_;
};

webhook::JobWebhookPolicy policy_for(std::size_t bits) {
  webhook::JobWebhookPolicy policy;
  policy.manage_jobs_without_queue_name = (bits & 8U) != 0;
  policy.workload_priority_class_defaulting = (bits & 16U) == 0;
  if ((bits & 32U) != 0) policy.managed_jobs_namespace_selector = webhook::default_managed_jobs_namespace_selector("kueue-system");
  policy.frameworks = {"batch/job",           "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob",
                       "kubeflow.org/tfjob",  "kubeflow.org/mpijob",    "kubeflow.org/xgboostjob",
                       "kubeflow.org/jaxjob", "kubeflow.org/paddlejob", "ray.io/rayjob",
                       "ray.io/raycluster"};
  return policy;
}

void check_answer(const webhook::AdmissionRequest& request, const webhook::AdmissionResponse& response) {
  check(response.uid == request.uid);
  if (!response.allowed) check(response.status.has_value() && response.status->code >= 400);
  const std::string body = webhook::encode_admission_review(response);
  auto doc = json::parse(body);
  check(doc.has_value() && doc->is_object());
  check(json::get_string(*doc, "apiVersion") == "admission.k8s.io/v1");
  const json::value* answer = json::find(*doc, "response");
  check(answer != nullptr && answer->is_object());
  check(json::get_string(*answer, "uid") == request.uid);
  const json::value* allowed = json::find(*answer, "allowed");
  check(allowed != nullptr && allowed->is_bool() && allowed->get_bool() == response.allowed);
  if (response.patch.empty()) return;

  check(json::get_string(*answer, "patchType") == "JSONPatch");
  auto ops_text = core::base64_decode(json::get_string(*answer, "patch"));
  check(ops_text.has_value());
  auto ops = json::parse(*ops_text);
  check(ops.has_value() && ops->is_array());
  if (request.object.is_object()) {
    auto patched = patch::json_patch(request.object, *ops);
    check(patched.has_value());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)webhook::uid_of(body);
  auto request = webhook::decode_admission_review(body);
  if (!request) {
    check(!request.error().message.empty());
    return 0;
  }
  const Facts facts(size);
  const webhook::JobWebhookPolicy policy = policy_for(size);
  for (const webhook::WebhookSpec& spec : webhook::webhook_catalog()) {
    check_answer(*request, webhook::decide(spec.kind, *request, policy, facts));
  }
  return 0;
}

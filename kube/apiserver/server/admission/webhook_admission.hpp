#pragma once

// Admission by the webhooks of the stored MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations, as kube-apiserver runs them:
//
// - the configurations are read again after any of them changes, and their webhooks
//   ordered by configuration name, then by their order in the configuration;
// - mutating webhooks are called one after the other, each on the object as the ones
//   before it left it (a JSON patch answer is applied, in the version the webhook was
//   called in, and the result decoded back, defaults and all); the write path then
//   validates the result as any write;
// - validating webhooks are called all at once on the object as it will be stored;
// - failurePolicy decides whether a webhook that cannot be called (timeout, refused
//   connection, certificate not verified, an answer that is not a 2xx AdmissionReview
//   with the request's uid) lets the request through (Ignore) or fails it (Fail: 500
//   "failed calling webhook"); a denial always fails it with the webhook's status; a
//   patch that does not apply always fails it (500), as in kube-apiserver;
// - a dry run fails at a webhook whose sideEffects are not None or NoneOnDryRun.
//
// Admission configurations themselves are never sent to webhooks (so a broken webhook
// can always be removed). A service reference is called at the address
// `service_host` and the Service's targetPort for the port named (the Service's port
// when it names none), its certificate verified for <service>.<namespace>.svc.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kube/apiserver/server/admission/webhook.hpp"
#include "kube/apiserver/server/outbound/webhook_transport.hpp"
#include "kube/apiserver/server/api/admission.hpp"
#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

struct WebhookAdmissionOptions {
  /// Where webhooks named by a Service reference listen (ApiServerOptions).
  std::string service_host = "127.0.0.1";
};

class WebhookAdmission final : public Admission {
 public:
  WebhookAdmission(ServerContext& ctx, WebhookTransport& transport, WebhookAdmissionOptions options);

  /// Told about every committed change: a configuration change is read on the next request.
  void observe(const Change& change);

  bool active() override;
  void mutate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) override;
  void validate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) override;

  using Webhooks = std::vector<Webhook>;

 private:
  struct Invocation;
  struct MutationRun;
  struct CallResult;

  void refresh();
  /// Whether `hook` is called for the request, and in which version; an error when the
  /// request cannot be matched (its namespace does not exist).
  ApiResult<std::shared_ptr<Invocation>> select(const Webhook& hook, const AdmissionRequest& request);
  void run_mutating(const std::shared_ptr<MutationRun>& run);
  /// Calls one webhook; `done` gets what it answered or why the call failed.
  void call(const Webhook& hook, const Invocation& invocation, const AdmissionRequest& request,
            std::function<void(CallResult)> done);
  /// The call itself, with the object (and old object) in the webhook's version.
  void post(const Webhook& hook, const Invocation& invocation, const AdmissionRequest& request, WebhookTarget target,
            json::value object, json::value old, std::function<void(CallResult)> done);
  /// Where to call the webhook; the error is why it cannot be called (failurePolicy decides).
  Expected<WebhookTarget> target_for(const Webhook& hook);

  ServerContext& ctx_;
  WebhookTransport& transport_;
  WebhookAdmissionOptions options_;
  BucketId mutating_bucket_;
  BucketId validating_bucket_;
  BucketId namespaces_bucket_;
  BucketId services_bucket_;
  bool dirty_ = true;
  std::shared_ptr<const Webhooks> mutating_;
  std::shared_ptr<const Webhooks> validating_;
};

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/admission/webhook_admission.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/server/admission/admission_review.hpp"
#include "kube/apiserver/server/admission/rule_matching.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"
#include "kube/apiserver/server/util/ids.hpp"

namespace kueuepp::kube::server {

struct WebhookAdmission::Invocation {
  ResourceTypePtr resource;  ///< the version the webhook is called in
};

struct WebhookAdmission::MutationRun {
  AdmissionRequestPtr request;
  std::shared_ptr<const Webhooks> hooks;
  std::size_t next = 0;
  std::function<void(ApiStatus)> done;
};

/// One call's outcome: the verified answer, or why the call failed (`call_failure`,
/// which failurePolicy decides about), or an error that fails the request whatever the
/// policy (`error`).
struct WebhookAdmission::CallResult {
  std::optional<ReviewResponse> response;
  std::string call_failure;
  std::optional<ApiError> error;
  /// The object the webhook saw (mutating: what its patch applies to).
  std::shared_ptr<json::value> sent_object;
};

std::string_view operation_name(AdmissionOperation op) {
  switch (op) {
    case AdmissionOperation::Create: return "CREATE";
    case AdmissionOperation::Update: return "UPDATE";
    case AdmissionOperation::Delete: return "DELETE";
    case AdmissionOperation::Connect: return "CONNECT";
  }
  return "";
}

namespace {

constexpr std::string_view kAdmissionGroup = "admissionregistration.k8s.io";

bool is_admission_configuration(const ResourceType& t) {
  return t.group == kAdmissionGroup &&
         (t.kind == "MutatingWebhookConfiguration" || t.kind == "ValidatingWebhookConfiguration");
}

const json::value* labels_of(const json::value& doc) {
  const json::value* meta = doc.is_object() ? json::find(doc, "metadata") : nullptr;
  return meta != nullptr && meta->is_object() ? json::find(*meta, "labels") : nullptr;
}

}  // namespace

WebhookAdmission::WebhookAdmission(ServerContext& ctx, WebhookTransport& transport, WebhookAdmissionOptions options)
    : ctx_(ctx),
      transport_(transport),
      options_(std::move(options)),
      mutating_bucket_(ctx.store.bucket(std::string(kAdmissionGroup) + "/mutatingwebhookconfigurations")),
      validating_bucket_(ctx.store.bucket(std::string(kAdmissionGroup) + "/validatingwebhookconfigurations")),
      namespaces_bucket_(ctx.store.bucket("/namespaces")),
      services_bucket_(ctx.store.bucket("/services")),
      mutating_(std::make_shared<Webhooks>()),
      validating_(std::make_shared<Webhooks>()) {}

void WebhookAdmission::observe(const Change& change) {
  if (change.bucket == mutating_bucket_ || change.bucket == validating_bucket_) dirty_ = true;
}

void WebhookAdmission::refresh() {
  if (!dirty_) return;
  dirty_ = false;
  auto read = [this](BucketId bucket, bool mutating) {
    std::vector<std::pair<std::string, Webhooks>> configs;
    ctx_.store.scan(bucket, "", "", 0, [&](const ObjectPtr& o) {
      configs.emplace_back(o->name, read_webhooks(o->doc.as_object(), mutating));
      return true;
    });
    std::stable_sort(configs.begin(), configs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto hooks = std::make_shared<Webhooks>();
    for (auto& [name, list] : configs) {
      for (auto& h : list) hooks->push_back(std::move(h));
    }
    return hooks;
  };
  mutating_ = read(mutating_bucket_, true);
  validating_ = read(validating_bucket_, false);
  spdlog::info("admission webhooks: {} mutating, {} validating", mutating_->size(), validating_->size());
}

bool WebhookAdmission::active() {
  refresh();
  return !mutating_->empty() || !validating_->empty();
}

ApiResult<std::shared_ptr<WebhookAdmission::Invocation>> WebhookAdmission::select(const Webhook& hook,
                                                                                  const AdmissionRequest& request) {
  const ResourceType& view = *request.view;
  if (is_admission_configuration(view)) return nullptr;
  RequestResource rr{view.group, view.version, view.plural, request.subresource, operation_name(request.operation),
                     request.ns};
  const json::value* new_labels = request.object.is_null() ? nullptr : labels_of(request.object);
  auto ns_labels = [this](std::string_view ns) -> std::optional<const json::value*> {
    ObjectPtr nso = ctx_.store.get(namespaces_bucket_, ns);
    if (!nso) return std::nullopt;
    return labels_of(nso->doc);
  };
  std::optional<bool> ns_match = namespace_selector_matches(hook.namespace_selector, rr, new_labels, ns_labels);
  if (ns_match && !*ns_match) return nullptr;
  if (!object_selector_matches(hook.object_selector, request.object.is_null() ? nullptr : &request.object,
                               request.old_object ? &request.old_object->doc : nullptr)) {
    return nullptr;
  }
  std::vector<ResourceTypePtr> equivalents;
  if (!hook.exact) equivalents = ctx_.registry.sharing_bucket(view.bucket);
  ResourceTypePtr resource = matching_resource(hook, rr, request.view, equivalents);
  if (!resource) return nullptr;
  if (!ns_match) return api_fail(not_found(ErrorSubject{"", "namespaces", request.ns}));
  auto inv = std::make_shared<Invocation>();
  inv->resource = std::move(resource);
  return inv;
}

Expected<WebhookTarget> WebhookAdmission::target_for(const Webhook& hook) {
  ServiceLookup services = [this](std::string_view ns, std::string_view name) -> std::optional<json::value> {
    ObjectPtr svc = ctx_.store.get(services_bucket_, std::string(ns) + "/" + std::string(name));
    if (!svc) return std::nullopt;
    return svc->doc;
  };
  auto target = resolve_webhook_target(hook.client, fmt::format("timeout={}s", hook.timeout_seconds), services,
                                        options_.service_host);
  // A missing Service is a failed call (client-go's words); a bad URL is not even that.
  if (!target && hook.client.url.empty()) return fail("failed to call webhook: " + target.error().message);
  return target;
}

void WebhookAdmission::call(const Webhook& hook, const Invocation& invocation, const AdmissionRequest& request,
                            std::function<void(CallResult)> done) {
  CallResult early;
  auto target = target_for(hook);
  if (!target) {
    early.call_failure = target.error().message;
    ctx_.scheduler.post([done = std::move(done), early = std::move(early)]() mutable { done(std::move(early)); });
    return;
  }
  const ResourceType& view = *invocation.resource;
  json::value object;
  if (!request.object.is_null()) {
    object = view.strategy->converts(view) ? view.strategy->encode(request.object, view) : request.object;
  }
  json::value old;
  if (request.old_object) old = object_value(*request.old_object, view);
  // A custom resource whose CRD converts by webhook reaches a webhook registered for
  // another of its versions converted by that webhook, as kube-apiserver converts the
  // versioned attributes (relabelling, as above, is strategy None's conversion only).
  const bool convert = view.custom && view.converter && view.converter->calls_webhook() &&
                       ((!request.object.is_null() && json::get_string(request.object, "apiVersion") != view.api_version()) ||
                        (request.old_object && json::get_string(request.old_object->doc, "apiVersion") != view.api_version()));
  if (!convert) {
    post(hook, invocation, request, std::move(*target), std::move(object), std::move(old), std::move(done));
    return;
  }
  std::vector<json::value> docs;
  const bool has_object = !object.is_null();
  if (has_object) docs.push_back(request.object);
  if (request.old_object) docs.push_back(request.old_object->doc);
  // The Invocation is held by value: a validating caller's copy is gone once it has
  // sent every call, before the conversion answers (the webhook and the request are kept
  // alive by the callers' own captures).
  view.converter->convert(std::move(docs), view.version,
                          [this, &hook, invocation, &request, has_object, target = std::move(*target),
                           done = std::move(done)](Expected<std::vector<json::value>> converted) mutable {
                            if (!converted) {
                              CallResult failed;
                              failed.error = conversion_failed(converted.error().message);
                              return done(std::move(failed));
                            }
                            auto& out = *converted;
                            json::value converted_object = has_object ? std::move(out.front()) : json::value();
                            json::value converted_old = request.old_object ? std::move(out.back()) : json::value();
                            post(hook, invocation, request, std::move(target), std::move(converted_object),
                                 std::move(converted_old), std::move(done));
                          });
}

void WebhookAdmission::post(const Webhook& hook, const Invocation& invocation, const AdmissionRequest& request,
                            WebhookTarget target, json::value object, json::value old,
                            std::function<void(CallResult)> done) {
  const ResourceType& view = *invocation.resource;
  auto sent = std::make_shared<json::value>(std::move(object));
  ReviewRequest rr;
  std::string uid = new_uid();
  rr.uid = uid;
  rr.review_version = hook.review_version.empty() ? "v1" : hook.review_version;
  rr.resource = &view;
  rr.requested = request.view.get();
  rr.subresource = request.subresource;
  rr.name = request.name;
  rr.ns = request.ns;
  rr.operation = operation_name(request.operation);
  rr.object = sent->is_null() ? nullptr : sent.get();
  rr.old_object = request.old_object ? &old : nullptr;
  rr.user = &request.user;
  rr.dry_run = request.dry_run;
  rr.options = &request.options;
  std::string body = json::dump(make_admission_review(rr));
  transport_.post(target, std::move(body), std::chrono::seconds(hook.timeout_seconds),
                  [uid, version = rr.review_version, mutating = hook.mutating, sent,
                   done = std::move(done)](Expected<WebhookReply> reply) {
                    CallResult result;
                    result.sent_object = sent;
                    if (!reply) {
                      result.call_failure = "failed to call webhook: " + reply.error().message;
                    } else if (reply->status < 200 || reply->status > 299) {
                      result.call_failure = "failed to call webhook: " + unsuccessful_answer(*reply);
                    } else if (auto response = read_admission_response(reply->body, uid, version, mutating); !response) {
                      result.call_failure = response.error().message;
                    } else {
                      result.response = std::move(*response);
                    }
                    done(std::move(result));
                  });
}

void WebhookAdmission::mutate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) {
  refresh();
  auto run = std::make_shared<MutationRun>();
  run->request = request;
  run->hooks = mutating_;
  run->done = std::move(done);
  run_mutating(run);
}

void WebhookAdmission::run_mutating(const std::shared_ptr<MutationRun>& run) {
  AdmissionRequest& request = *run->request;
  while (run->next < run->hooks->size()) {
    const Webhook& hook = (*run->hooks)[run->next++];
    auto inv = select(hook, request);
    if (!inv) return run->done(unexpected(inv.error()));
    if (!*inv) continue;
    if (request.dry_run && hook.side_effects != "None" && hook.side_effects != "NoneOnDryRun") {
      return run->done(api_fail(webhook_no_dry_run(hook.name)));
    }
    std::shared_ptr<Invocation> invocation = *inv;
    call(hook, *invocation, request, [this, run, &hook, invocation](CallResult result) {
      AdmissionRequest& req = *run->request;
      if (result.error) return run->done(api_fail(std::move(*result.error)));
      if (!result.response) {
        if (hook.fail_closed) return run->done(api_fail(webhook_call_failed(hook.name, result.call_failure)));
        spdlog::warn("Failed calling webhook, failing open {}: failed calling webhook \"{}\": {}", hook.name, hook.name,
                     result.call_failure);
        return run_mutating(run);
      }
      ReviewResponse& response = *result.response;
      if (req.warnings) {
        for (auto& w : response.warnings) req.warnings->push_back(std::move(w));
      }
      if (!response.allowed) return run->done(api_fail(webhook_denied(hook.name, response.result)));
      if (response.patch.empty()) return run_mutating(run);
      auto ops = json::parse(response.patch);
      if (!ops || !ops->is_array()) {
        std::string why = ops ? "json: cannot unmarshal object into Go value of type jsonpatch.Patch" : ops.error().message;
        std::string failure = fmt::format("received undecodable patch in webhook response: {}", why);
        if (hook.fail_closed) return run->done(api_fail(webhook_call_failed(hook.name, failure)));
        spdlog::warn("Failed calling webhook, failing open {}: {}", hook.name, failure);
        return run_mutating(run);
      }
      if (ops->as_array().empty()) return run_mutating(run);
      if (req.object.is_null()) {
        return run->done(api_fail(internal_error(fmt::format(
            "admission webhook \"{}\" attempted to modify the object, which is not supported for this operation",
            hook.name))));
      }
      auto patched = patch::json_patch(*result.sent_object, *ops);
      if (!patched) return run->done(api_fail(internal_error(patched.error().message)));
      if (!patched->is_object()) {
        return run->done(api_fail(internal_error("the patched object is not a JSON object")));
      }
      const ResourceType& view = *invocation->resource;
      WriteContext w;
      w.view = &view;
      w.field_validation = FieldValidation::Ignore;
      w.status = req.subresource == "status";
      auto decoded = view.strategy->decode(std::move(*patched), w);
      if (!decoded) return run->done(api_fail(internal_error(decoded.error().message)));
      // The webhook saw the object converted to its version; the request goes on in its
      // own, so the patched object is converted back by the CRD's webhook, as
      // kube-apiserver converts the versioned attributes back.
      const ResourceType& requested = *req.view;
      if (view.custom && view.converter && view.converter->calls_webhook() &&
          json::get_string(*decoded, "apiVersion") != requested.api_version()) {
        std::vector<json::value> docs;
        docs.push_back(std::move(*decoded));
        view.converter->convert(std::move(docs), requested.version,
                                [this, run](Expected<std::vector<json::value>> back) {
                                  if (!back) return run->done(api_fail(conversion_failed(back.error().message)));
                                  run->request->object = std::move(back->front());
                                  run->request->mutated = true;
                                  run_mutating(run);
                                });
        return;
      }
      req.object = std::move(*decoded);
      req.mutated = true;
      run_mutating(run);
    });
    return;
  }
  run->done({});
}

void WebhookAdmission::validate(const AdmissionRequestPtr& request, std::function<void(ApiStatus)> done) {
  refresh();
  struct Pending {
    const Webhook* hook;
    std::shared_ptr<Invocation> invocation;
  };
  std::shared_ptr<const Webhooks> hooks = validating_;
  std::vector<Pending> calls;
  for (const auto& hook : *hooks) {
    auto inv = select(hook, *request);
    if (!inv) return done(unexpected(inv.error()));
    if (!*inv) continue;
    if (request->dry_run && hook.side_effects != "None" && hook.side_effects != "NoneOnDryRun") {
      return done(api_fail(webhook_no_dry_run(hook.name)));
    }
    calls.push_back({&hook, *inv});
  }
  if (calls.empty()) return done({});
  // Called all at once; the answer is the first failure in webhook order.
  struct Join {
    std::vector<std::optional<ApiError>> errors;
    std::size_t pending = 0;
    std::function<void(ApiStatus)> done;
    std::shared_ptr<const Webhooks> hooks;  // keeps the webhooks alive while calls run
  };
  auto join = std::make_shared<Join>();
  join->errors.resize(calls.size());
  join->pending = calls.size();
  join->done = std::move(done);
  join->hooks = hooks;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Webhook& hook = *calls[i].hook;
    call(hook, *calls[i].invocation, *request, [join, i, &hook, request](CallResult result) {
      if (result.error) {
        join->errors[i] = std::move(*result.error);
      } else if (!result.response) {
        if (hook.fail_closed) {
          join->errors[i] = webhook_call_failed(hook.name, result.call_failure);
        } else {
          spdlog::warn("Failed calling webhook, failing open {}: failed calling webhook \"{}\": {}", hook.name,
                       hook.name, result.call_failure);
        }
      } else {
        if (request->warnings) {
          for (auto& w : result.response->warnings) request->warnings->push_back(std::move(w));
        }
        if (!result.response->allowed) join->errors[i] = webhook_denied(hook.name, result.response->result);
      }
      if (--join->pending != 0) return;
      for (auto& e : join->errors) {
        if (e) return join->done(api_fail(std::move(*e)));
      }
      join->done({});
    });
  }
}

}  // namespace kueuepp::kube::server

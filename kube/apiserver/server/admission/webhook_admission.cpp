#include "kube/apiserver/server/admission/webhook_admission.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/server/admission/admission_review.hpp"
#include "kube/apiserver/server/admission/rule_matching.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
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

/// client-go's words for a non-2xx answer that is not a Status.
std::string unsuccessful_answer(const WebhookReply& reply) {
  if (auto doc = json::parse(reply.body); doc && doc->is_object() && json::get_string(*doc, "kind") == "Status") {
    std::string_view message = json::get_string(*doc, "message");
    if (!message.empty()) return std::string(message);
  }
  switch (reply.status) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "Unauthorized";
    case 403: return "forbidden";
    case 404: return "the server could not find the requested resource";
    case 409: return "the server reported a conflict";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504: return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default: break;
  }
  if (reply.status >= 500) {
    std::string body = reply.body.substr(0, 256);
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
    return fmt::format("an error on the server (\"{}\") has prevented the request from succeeding", body);
  }
  return fmt::format("the server responded with the status code {} but did not return more information", reply.status);
}

/// https://host[:port][/path] split for the transport.
struct UrlParts {
  std::string host;
  std::string port = "443";
  std::string path = "/";
};

std::optional<UrlParts> split_url(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  std::string_view rest = url.substr(kScheme.size());
  std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  UrlParts out;
  if (slash != std::string_view::npos) out.path = std::string(rest.substr(slash));
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = std::string(authority.substr(close + 2));
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    out.host = std::string(authority.substr(0, colon));
    out.port = std::string(authority.substr(colon + 1));
  } else {
    out.host = std::string(authority);
  }
  if (out.host.empty()) return std::nullopt;
  return out;
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
  std::string timeout = fmt::format("timeout={}s", hook.timeout_seconds);
  WebhookTarget t;
  t.ca_pem = hook.ca_bundle_pem;
  if (!hook.url.empty()) {
    auto parts = split_url(hook.url);
    if (!parts) return fail(fmt::format("could not get REST client: invalid URL \"{}\"", hook.url));
    t.host = parts->host;
    t.port = parts->port;
    t.path = parts->path + (parts->path.find('?') == std::string::npos ? "?" : "&") + timeout;
    t.server_name = parts->host;
    t.display_url = hook.url + "?" + timeout;
    return t;
  }
  std::string path = hook.service_path.empty() ? "/" : hook.service_path;
  t.server_name = fmt::format("{}.{}.svc", hook.service_name, hook.service_namespace);
  t.display_url = fmt::format("https://{}:{}{}?{}", t.server_name, hook.service_port, path, timeout);
  t.path = path + "?" + timeout;
  ObjectPtr svc = ctx_.store.get(services_bucket_, hook.service_namespace + "/" + hook.service_name);
  if (!svc) {
    return fail(fmt::format("failed to call webhook: Post \"{}\": service \"{}\" not found", t.display_url,
                            hook.service_name));
  }
  int port = hook.service_port;
  if (const json::value* ports = json::find(svc->doc, "spec") ? json::find(*json::find(svc->doc, "spec"), "ports") : nullptr;
      ports != nullptr && ports->is_array()) {
    for (const auto& p : ports->as_array()) {
      const json::value* number = json::find(p, "port");
      if (number == nullptr || !number->is_int64() || number->get_int64() != hook.service_port) continue;
      const json::value* target = json::find(p, "targetPort");
      if (target != nullptr && target->is_int64()) port = static_cast<int>(target->get_int64());
      break;
    }
  }
  t.host = options_.service_host;
  t.port = std::to_string(port);
  return t;
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
  auto sent = std::make_shared<json::value>();
  if (!request.object.is_null()) {
    *sent = view.strategy->converts(view) ? view.strategy->encode(request.object, view) : request.object;
  }
  json::value old;
  if (request.old_object) old = object_value(*request.old_object, view);
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
  rr.dry_run = request.dry_run;
  rr.options = &request.options;
  std::string body = json::dump(make_admission_review(rr));
  transport_.post(*target, std::move(body), std::chrono::seconds(hook.timeout_seconds),
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

// DELETE of one object and of a collection (deletecollection).

#include <fmt/format.h>

#include <optional>

#include "kube/apiserver/server/api/admission_steps.hpp"
#include "kube/apiserver/server/api/deletion.hpp"
#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/list_options.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

namespace {

json::object deleted_details(const ResourceType& type, const StoredObject& obj) {
  json::object d;
  d["name"] = obj.name;
  if (!type.group.empty()) d["group"] = type.group;
  d["kind"] = type.plural;
  d["uid"] = obj.uid;
  return d;
}

/// The deletion itself, once admission let it through.
void delete_admitted(const RequestPtr& r, const DeleteOptions& options, const ObjectPtr& current,
                     const std::vector<std::string>& warnings) {
  // The answer depends on the outcome, which is known when delete_object returns; the
  // durable callback runs later (or at once), so the outcome is shared with it.
  auto outcome = std::make_shared<DeleteOutcome>();
  auto ready = std::make_shared<bool>(false);
  auto answer = [r, outcome, warnings] {
    if (outcome->removed) {
      respond_value(*r, 200, success_status(deleted_details(r->view(), *outcome->object)), warnings);
    } else {
      respond_object(*r, 200, outcome->object, warnings);
    }
  };
  auto result = delete_object(r->ctx, r->view(), current, options, [ready, answer] {
    if (*ready) {
      answer();
    } else {
      *ready = true;  // durable before delete_object returned: answer below
    }
  });
  if (!result) return respond_error(*r->responder, result.error(), r->rep);
  *outcome = std::move(*result);
  if (*ready) {
    answer();
  } else {
    *ready = true;
  }
}

}  // namespace

void handle_delete(const RequestPtr& r) {
  auto options = parse_delete_options(r->query, r->http.body);
  if (!options) return respond_error(*r->responder, options.error(), r->rep);
  std::vector<std::string> warnings = r->view().strategy->delete_warnings(options->propagation_policy);
  ObjectPtr current = r->ctx.store.get(r->bucket, r->key());
  if (!current) {
    ApiError e = not_found(r->subject());
    for (auto& h : warning_headers(warnings)) e.headers.push_back(std::move(h));
    return respond_error(*r->responder, e, r->rep);
  }
  if (r->ctx.admission == nullptr || !r->ctx.admission->active()) {
    return delete_admitted(r, *options, current, warnings);
  }
  // DELETE goes through both phases, the object as the old one and no new one.
  auto all_warnings = std::make_shared<std::vector<std::string>>(std::move(warnings));
  admit(r, AdmissionPhase::Mutating, AdmissionOperation::Delete, nullptr, current, all_warnings,
        [r, opts = *options, current, all_warnings](json::value, bool) {
          admit(r, AdmissionPhase::Validating, AdmissionOperation::Delete, nullptr, current, all_warnings,
                [r, opts, current, all_warnings](json::value, bool) { delete_admitted(r, opts, current, *all_warnings); });
        });
}

void handle_delete_collection(const RequestPtr& r) {
  auto options = parse_delete_options(r->query, r->http.body);
  if (!options) return respond_error(*r->responder, options.error(), r->rep);
  auto filter = filter_of(*r);
  if (!filter) return respond_error(*r->responder, filter.error(), r->rep);
  std::vector<ObjectPtr> targets;
  r->ctx.store.scan(r->bucket, scan_prefix(r->view(), *filter), "", 0, [&](const ObjectPtr& o) {
    if (filter->matches(*o)) targets.push_back(o);
    return true;
  });
  auto items = std::make_shared<std::vector<ObjectPtr>>();
  auto pending = std::make_shared<std::size_t>(targets.size() + 1);
  // The first refusal by an admission webhook; it is the answer, given (as kube-apiserver
  // does) only once every item has been handled, so no admission call outlives the request.
  auto refusal = std::make_shared<std::optional<ApiError>>();
  auto finish = [r, items, pending, refusal] {
    if (--*pending != 0) return;
    if (*refusal) return respond_error(*r->responder, **refusal, r->rep);
    std::string body = fmt::format(R"({{"kind":"{}","apiVersion":"{}","metadata":{{"resourceVersion":"{}"}},"items":[)",
                                   r->view().list_kind, r->view().api_version(), r->ctx.store.current_rv());
    for (std::size_t i = 0; i < items->size(); ++i) {
      if (i > 0) body.push_back(',');
      body += object_json(*(*items)[i], r->view());
    }
    body += "]}";
    HttpResponse res;
    res.body = std::move(body);
    r->responder->respond(std::move(res));
  };
  auto delete_one = [r, items, finish, opts = *options](const ObjectPtr& target) {
    auto result = delete_object(r->ctx, r->view(), target, opts, finish);
    if (result) {
      items->push_back(result->object);
    } else {
      finish();  // nothing was written for this one
    }
  };
  Admission* admission = r->ctx.admission;
  if (admission != nullptr && admission->active() && !targets.empty()) {
    // As kube-apiserver: each item passes the validating webhooks as a DELETE of it; items
    // admitted are deleted even when another was refused, and the first refusal is the answer.
    auto warnings = std::make_shared<std::vector<std::string>>();
    for (const auto& target : targets) {
      auto request = make_admission_request(*r, AdmissionOperation::Delete, nullptr, target, warnings, target->name);
      admission->validate(request, [r, target, refusal, delete_one, finish](ApiStatus status) {
        if (!status) {
          if (!*refusal) *refusal = status.error();
          return finish();
        }
        ObjectPtr now = r->ctx.store.get(r->bucket, target->key);
        if (now) return delete_one(now);
        finish();  // gone meanwhile
      });
    }
    finish();  // the scan's own share of `pending`
    return;
  }
  for (const auto& target : targets) {
    delete_one(target);
  }
  finish();
}

}  // namespace kueuepp::kube::server

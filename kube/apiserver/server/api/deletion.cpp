#include "kube/apiserver/server/api/deletion.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kube/apiserver/server/api/list_options.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";

std::vector<std::string> finalizers_of(const json::object& obj) {
  std::vector<std::string> out;
  const json::object* meta = metadata_of(obj);
  if (meta == nullptr) return out;
  const json::value* f = meta->if_contains("finalizers");
  if (f == nullptr || !f->is_array()) return out;
  for (const auto& v : f->as_array()) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

bool should_orphan(const Strategy& strategy, const std::vector<std::string>& finalizers, const DeleteOptions& o) {
  if (o.orphan_dependents) return *o.orphan_dependents;
  if (o.propagation_policy == "Orphan") return true;
  if (o.propagation_policy == "Background" || o.propagation_policy == "Foreground") return false;
  for (const auto& f : finalizers) {
    if (f == kOrphan) return true;
    if (f == kForeground) return false;
  }
  return strategy.orphan_dependents_by_default();
}

bool should_delete_in_foreground(const std::vector<std::string>& finalizers, const DeleteOptions& o) {
  if (o.orphan_dependents) return false;
  if (o.propagation_policy == "Foreground") return true;
  if (!o.propagation_policy.empty()) return false;
  return std::find(finalizers.begin(), finalizers.end(), kForeground) != finalizers.end();
}

}  // namespace

ApiResult<DeleteOptions> parse_delete_options(const Query& query, std::string_view body) {
  if (auto st = check_integer_params(query, {"gracePeriodSeconds"}); !st) return unexpected(st.error());
  DeleteOptions o;
  o.propagation_policy = std::string(query.get_or("propagationPolicy", ""));
  o.dry_run = query.get_or("dryRun", "") == "All";
  if (auto v = query.get("orphanDependents")) o.orphan_dependents = *v == "true";
  bool blank = std::all_of(body.begin(), body.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  if (!blank) {
    auto doc = json::parse(body);
    if (!doc || !doc->is_object()) {
      return api_fail(bad_request("the body of the request is not a valid DeleteOptions object"));
    }
    const json::object& d = doc->as_object();
    if (auto p = json::get_string(*doc, "propagationPolicy"); !p.empty()) o.propagation_policy = std::string(p);
    if (const json::value* v = d.if_contains("orphanDependents"); v != nullptr && v->is_bool()) o.orphan_dependents = v->get_bool();
    if (const json::value* pre = d.if_contains("preconditions"); pre != nullptr && pre->is_object()) {
      if (auto uid = json::get_string(*pre, "uid"); !uid.empty()) o.precondition_uid = std::string(uid);
      if (auto rv = json::get_string(*pre, "resourceVersion"); !rv.empty()) o.precondition_rv = std::string(rv);
    }
    if (const json::value* dr = d.if_contains("dryRun"); dr != nullptr && dr->is_array()) {
      for (const auto& v : dr->as_array()) o.dry_run = o.dry_run || (v.is_string() && v.get_string() == "All");
    }
  }
  const std::string& p = o.propagation_policy;
  if (!p.empty() && p != "Orphan" && p != "Background" && p != "Foreground") {
    FieldErrors errs{not_supported_error("propagationPolicy", json::value(p), {"Foreground", "Background", "Orphan", "nil"})};
    return api_fail(invalid("meta.k8s.io", "DeleteOptions", "", errs));
  }
  if (o.orphan_dependents && !p.empty()) {
    FieldErrors errs{invalid_error("propagationPolicy", json::value(p), "orphanDependents and deletionPropagation cannot be both set")};
    return api_fail(invalid("meta.k8s.io", "DeleteOptions", "", errs));
  }
  return o;
}

ApiResult<DeleteOutcome> delete_object(ServerContext& ctx, const ResourceType& type, const ObjectPtr& current,
                                       const DeleteOptions& options, std::function<void()> done) {
  // kube-apiserver's delete preconditions name the object by kind, not by resource.
  ErrorSubject subject{type.group, type.kind, current->name};
  if (options.precondition_uid && *options.precondition_uid != current->uid) {
    return api_fail(conflict(subject, fmt::format("the UID in the precondition ({}) does not match the UID in record ({}). "
                                                  "The object might have been deleted and then recreated",
                                                  *options.precondition_uid, current->uid)));
  }
  if (options.precondition_rv && *options.precondition_rv != std::to_string(current->rv)) {
    return api_fail(conflict(subject, fmt::format("the ResourceVersion in the precondition ({}) does not match the "
                                                  "ResourceVersion in record ({}). The object might have been modified",
                                                  *options.precondition_rv, current->rv)));
  }
  const Strategy& strategy = *type.strategy;
  const json::object& obj = current->doc.as_object();
  std::vector<std::string> finalizers = finalizers_of(obj);
  std::vector<std::string> wanted;
  for (const auto& f : finalizers) {
    if (f != kOrphan && f != kForeground) wanted.push_back(f);
  }
  if (should_orphan(strategy, finalizers, options)) wanted.emplace_back(kOrphan);
  if (should_delete_in_foreground(finalizers, options)) wanted.emplace_back(kForeground);
  bool finalizers_change = !std::is_permutation(wanted.begin(), wanted.end(), finalizers.begin(), finalizers.end());
  bool deleting = !meta_string(obj, "deletionTimestamp").empty();

  json::value next = current->document();
  json::object& n = next.as_object();
  json::object& meta = metadata_of(n);
  if (finalizers_change) {
    json::array list;
    for (const auto& f : wanted) list.emplace_back(f);
    if (list.empty()) {
      meta.erase("finalizers");
    } else {
      meta["finalizers"] = std::move(list);
    }
  }
  if (deleting) {
    // Already waiting for finalizers: only a change of the GC finalizers is written.
    if (!finalizers_change || options.dry_run) {
      if (done) done();
      return DeleteOutcome{false, current};
    }
  } else if (strategy.holds_deletion(n)) {
    meta["deletionTimestamp"] = now_rfc3339();
    meta["deletionGracePeriodSeconds"] = 0;
    if (const json::value* g = meta.if_contains("generation"); g != nullptr && g->is_int64() && g->get_int64() > 0) {
      meta["generation"] = g->get_int64() + 1;
    }
    strategy.prepare_for_delete(n);
    order_metadata(n);
  }
  BucketId bucket = ctx.bucket_of(type);
  if (!strategy.holds_deletion(n)) {
    if (options.dry_run) {
      if (done) done();
      return DeleteOutcome{true, current};
    }
    const Change& change = ctx.store.remove(bucket, current->key);
    ObjectPtr last = change.object;
    ctx.commit(change, std::move(done));
    return DeleteOutcome{true, last};
  }
  if (options.dry_run) {
    if (done) done();
    return DeleteOutcome{false, make_stored(std::move(next), current->rv)};
  }
  const Change& change = ctx.store.put(bucket, std::move(next));
  ObjectPtr stored = change.object;
  ctx.commit(change, std::move(done));
  return DeleteOutcome{false, stored};
}

}  // namespace kueuepp::kube::server

// batch/v1 Job: kube-apiserver 1.28's defaulting (parallelism, completions,
// backoffLimit, completionMode, suspend, pod template), the generated selector and
// controller-uid/job-name labels, validation, and the update rules (completions and the
// pod template immutable, except scheduling directives while suspended and not started).

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/pod_spec.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kControllerUid = "batch.kubernetes.io/controller-uid";
constexpr std::string_view kJobName = "batch.kubernetes.io/job-name";
constexpr std::string_view kLegacyControllerUid = "controller-uid";
constexpr std::string_view kLegacyJobName = "job-name";

bool bool_at(const json::object& obj, std::initializer_list<std::string_view> path) {
  const json::value* v = at(obj, path);
  return v != nullptr && v->is_bool() && v->get_bool();
}

void non_negative(const json::object& spec, std::string_view field, FieldErrors& errs) {
  const json::value* v = spec.if_contains(field);
  if (v == nullptr || v->is_null()) return;
  if (!v->is_int64() && !v->is_uint64()) {
    errs.push_back(invalid_error(fmt::format("spec.{}", field), *v, "must be an integer"));
  } else if (v->is_int64() && v->get_int64() < 0) {
    errs.push_back(invalid_error(fmt::format("spec.{}", field), *v, "must be greater than or equal to 0"));
  }
}

/// Whether every matchLabels entry of the selector is among the template's labels.
bool selector_matches(const json::object& spec) {
  const json::value* match = at(spec, {"selector", "matchLabels"});
  const json::value* labels = at(spec, {"template", "metadata", "labels"});
  if (match == nullptr || !match->is_object()) return true;
  for (const auto& [k, v] : match->as_object()) {
    const json::value* have = labels != nullptr ? json::find(*labels, k) : nullptr;
    if (have == nullptr || *have != v) return false;
  }
  return true;
}

/// The template without the fields a suspended, not yet started Job may change.
json::value without_scheduling_directives(const json::value& tmpl) {
  json::value copy = tmpl;
  if (json::object* t = copy.if_object()) {
    if (json::value* meta = t->if_contains("metadata"); meta != nullptr && meta->is_object()) {
      meta->as_object().erase("labels");
      meta->as_object().erase("annotations");
    }
    if (json::value* spec = t->if_contains("spec"); spec != nullptr && spec->is_object()) {
      for (std::string_view k : {"nodeSelector", "tolerations", "affinity", "schedulingGates"}) spec->as_object().erase(k);
    }
  }
  return copy;
}

/// The JobSpec and JobStatus fields whose JSON types the decoder checks (the pod
/// template's spec is checked as a PodSpec).
constexpr std::array kJobFields{
    TypedField{"spec", FieldType::Object},
    TypedField{"spec.parallelism", FieldType::Integer},
    TypedField{"spec.completions", FieldType::Integer},
    TypedField{"spec.activeDeadlineSeconds", FieldType::Integer},
    TypedField{"spec.backoffLimit", FieldType::Integer},
    TypedField{"spec.backoffLimitPerIndex", FieldType::Integer},
    TypedField{"spec.maxFailedIndexes", FieldType::Integer},
    TypedField{"spec.ttlSecondsAfterFinished", FieldType::Integer},
    TypedField{"spec.suspend", FieldType::Bool},
    TypedField{"spec.manualSelector", FieldType::Bool},
    TypedField{"spec.completionMode", FieldType::String},
    TypedField{"spec.podReplacementPolicy", FieldType::String},
    TypedField{"spec.selector", FieldType::Object},
    TypedField{"spec.selector.matchLabels", FieldType::StringMap},
    TypedField{"spec.podFailurePolicy", FieldType::Object},
    TypedField{"spec.template", FieldType::Object},
    TypedField{"spec.template.metadata", FieldType::Object},
    TypedField{"spec.template.metadata.labels", FieldType::StringMap},
    TypedField{"spec.template.metadata.annotations", FieldType::StringMap},
    TypedField{"spec.template.spec", FieldType::Object},
    TypedField{"status", FieldType::Object},
    TypedField{"status.active", FieldType::Integer},
    TypedField{"status.succeeded", FieldType::Integer},
    TypedField{"status.failed", FieldType::Integer},
    TypedField{"status.ready", FieldType::Integer},
    TypedField{"status.conditions", FieldType::ObjectList},
    TypedField{"status.startTime", FieldType::String},
    TypedField{"status.completionTime", FieldType::String},
};

class JobStrategy final : public BuiltinStrategy {
 public:
  JobStrategy() : BuiltinStrategy("batch", "Job") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kJobFields); !st) return unexpected(st.error());
    if (auto st = check_field_types(body.as_object(), ctx, "spec.template.spec", pod_spec_fields()); !st) {
      return unexpected(st.error());
    }
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    apply_defaults(decoded->as_object());
    return decoded;
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    obj["status"] = json::object{};
    json::object& spec = object_member(obj, "spec");
    if (!bool_at(spec, {"manualSelector"})) generate_selector(obj, spec);
    json::object& meta = metadata_of(obj);
    const json::value* labels = meta.if_contains("labels");
    if (labels == nullptr || !labels->is_object() || labels->as_object().empty()) {
      // kube-apiserver aliases the template's labels (a Go map shared with the Job).
      if (const json::value* tl = at(spec, {"template", "metadata", "labels"})) meta["labels"] = *tl;
    }
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (ctx.status) return validate_status(obj);
    return validate_spec(obj);
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    if (ctx.status) return validate_status(obj);
    // As kube-apiserver: ValidateJob, then ValidateJobUpdate, which validates the spec again.
    FieldErrors errs = validate_spec(obj);
    for (auto& e : validate_spec(obj)) errs.push_back(std::move(e));
    const json::object* spec = obj.if_contains("spec") ? obj.at("spec").if_object() : nullptr;
    const json::object* old_spec = old.if_contains("spec") ? old.at("spec").if_object() : nullptr;
    if (spec == nullptr || old_spec == nullptr) return errs;
    immutable(*spec, *old_spec, "selector", errs);
    immutable(*spec, *old_spec, "completionMode", errs);
    immutable(*spec, *old_spec, "podFailurePolicy", errs);
    immutable(*spec, *old_spec, "backoffLimitPerIndex", errs);
    bool elastic = json::get_string(json::value(*spec), "completionMode") == "Indexed" &&
                   int_at(*spec, {"completions"}) == int_at(*spec, {"parallelism"});
    if (!elastic) immutable(*spec, *old_spec, "completions", errs);
    const json::value* tmpl = spec->if_contains("template");
    const json::value* old_tmpl = old_spec->if_contains("template");
    if (tmpl != nullptr && old_tmpl != nullptr && *tmpl != *old_tmpl) {
      bool suspended_not_started = bool_at(*old_spec, {"suspend"}) && at(old, {"status", "startTime"}) == nullptr;
      bool allowed = suspended_not_started &&
                     without_scheduling_directives(*tmpl) == without_scheduling_directives(*old_tmpl);
      if (!allowed) errs.push_back(invalid_error("spec.template", *tmpl, "field is immutable"));
    }
    return errs;
  }

  bool tracks_generation() const override { return true; }
  bool generation_changes(const json::object& obj, const json::object& old, const WriteContext&) const override {
    const json::value* a = obj.if_contains("spec");
    const json::value* b = old.if_contains("spec");
    if (a == nullptr || b == nullptr) return a != b;
    return *a != *b;
  }
  bool orphan_dependents_by_default() const override { return true; }
  std::vector<std::string> delete_warnings(std::string_view policy) const override {
    if (!policy.empty()) return {};
    return {"child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove "
            "them or set propagationPolicy=Orphan to suppress this warning"};
  }
  std::vector<std::string> selectable_fields() const override { return {"status.successful"}; }
  std::optional<std::string> field_value(const json::object& obj, std::string_view field) const override {
    if (field == "status.successful") return std::to_string(int_at(obj, {"status", "succeeded"}).value_or(0));
    return std::nullopt;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Completions", "string", "", "The desired number of successfully finished pods the job should be run with.", 0, ""},
            {"Duration", "string", "", "Time required to complete the job.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""},
            {"Containers", "string", "", "Names of each container in the template.", 1, ""},
            {"Images", "string", "", "Images referenced by each container in the template.", 1, ""},
            {"Selector", "string", "", "A label query over pods that should match the pod count.", 1, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    auto completions = int_at(obj, {"spec", "completions"});
    auto parallelism = int_at(obj, {"spec", "parallelism"});
    std::int64_t succeeded = int_at(obj, {"status", "succeeded"}).value_or(0);
    std::string comp = completions ? fmt::format("{}/{}", succeeded, *completions)
                                   : fmt::format("{}/1 of {}", succeeded, parallelism.value_or(1));
    std::string duration;
    const json::value* start = at(obj, {"status", "startTime"});
    if (start != nullptr && start->is_string()) {
      auto s = parse_rfc3339(std::string_view(start->get_string()));
      const json::value* end = at(obj, {"status", "completionTime"});
      auto e = end != nullptr && end->is_string() ? parse_rfc3339(std::string_view(end->get_string()))
                                                  : std::optional(std::chrono::system_clock::now());
      if (s && e) duration = human_duration(std::chrono::duration_cast<std::chrono::seconds>(*e - *s));
    }
    std::string names;
    std::string images;
    if (const json::value* cs = at(obj, {"spec", "template", "spec", "containers"}); cs != nullptr && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (!names.empty()) names += ",", images += ",";
        names += json::get_string(c, "name");
        images += json::get_string(c, "image");
      }
    }
    std::string selector;
    if (const json::value* m = at(obj, {"spec", "selector", "matchLabels"}); m != nullptr && m->is_object()) {
      for (const auto& [k, v] : m->as_object()) {
        if (!selector.empty()) selector += ",";
        selector += fmt::format("{}={}", std::string_view(k), v.is_string() ? std::string_view(v.get_string()) : "");
      }
    }
    return json::array{json::value(comp), json::value(duration), json::value(age_of(obj)), json::value(names),
                       json::value(images), json::value(selector)};
  }

 private:
  static void apply_defaults(json::object& obj) {
    json::object& spec = object_member(obj, "spec");
    bool has_completions = spec.contains("completions") && !spec.at("completions").is_null();
    bool has_parallelism = spec.contains("parallelism") && !spec.at("parallelism").is_null();
    if (!has_completions && !has_parallelism) {
      spec["completions"] = 1;
      spec["parallelism"] = 1;
    } else if (!has_parallelism) {
      spec["parallelism"] = 1;
    }
    if (!spec.contains("backoffLimit") || spec.at("backoffLimit").is_null()) spec["backoffLimit"] = 6;
    if (!spec.contains("completionMode") || spec.at("completionMode").is_null()) spec["completionMode"] = "NonIndexed";
    if (!spec.contains("suspend") || spec.at("suspend").is_null()) spec["suspend"] = false;
    json::value& tmpl = spec["template"];
    if (!tmpl.is_object()) tmpl = json::object{};
    default_pod_template(tmpl.as_object());
    // Kept in kube-apiserver's field order for readable output.
    static constexpr std::string_view kOrder[] = {"parallelism", "completions", "activeDeadlineSeconds",
                                                  "podFailurePolicy", "backoffLimit", "backoffLimitPerIndex",
                                                  "maxFailedIndexes", "selector", "manualSelector", "template",
                                                  "ttlSecondsAfterFinished", "completionMode", "suspend",
                                                  "podReplacementPolicy"};
    json::object ordered;
    for (std::string_view k : kOrder) {
      if (auto* v = spec.if_contains(k)) ordered[k] = std::move(*v);
    }
    for (auto& kv : spec) {
      if (!ordered.contains(kv.key())) ordered[kv.key()] = std::move(kv.value());
    }
    spec = std::move(ordered);
  }

  static void generate_selector(const json::object& obj, json::object& spec) {
    std::string uid(meta_string(obj, "uid"));
    std::string name(meta_string(obj, "name"));
    json::object& tmpl = object_member(spec, "template");
    json::object& labels = object_member(object_member(tmpl, "metadata"), "labels");
    labels[kControllerUid] = uid;
    labels[kJobName] = name;
    labels[kLegacyControllerUid] = uid;
    labels[kLegacyJobName] = name;
    if (!spec.contains("selector") || spec.at("selector").is_null()) {
      spec["selector"] = json::object{{"matchLabels", json::object{{kControllerUid, uid}}}};
    }
  }

  static void immutable(const json::object& spec, const json::object& old, std::string_view field, FieldErrors& errs) {
    const json::value* a = spec.if_contains(field);
    const json::value* b = old.if_contains(field);
    bool same = (a == nullptr || a->is_null()) ? (b == nullptr || b->is_null()) : (b != nullptr && *a == *b);
    if (!same) errs.push_back(invalid_error(fmt::format("spec.{}", field), a != nullptr ? *a : json::value(nullptr), "field is immutable"));
  }

  static FieldErrors validate_spec(const json::object& obj) {
    FieldErrors errs;
    const json::value* spec_v = obj.if_contains("spec");
    if (spec_v == nullptr || !spec_v->is_object()) {
      errs.push_back(required_error("spec.template"));
      return errs;
    }
    const json::object& spec = spec_v->as_object();
    for (std::string_view f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"}) {
      non_negative(spec, f, errs);
    }
    std::string_view mode = json::get_string(*spec_v, "completionMode");
    if (mode != "NonIndexed" && mode != "Indexed") {
      errs.push_back(not_supported_error("spec.completionMode", json::value(mode), {"NonIndexed", "Indexed"}));
    }
    if (mode == "Indexed" && !int_at(spec, {"completions"})) {
      errs.push_back(required_error("spec.completions", "when completion mode is Indexed"));
    }
    if (at(spec, {"selector"}) == nullptr) {
      errs.push_back(required_error("spec.selector"));
    } else if (!selector_matches(spec)) {
      const json::value* labels = at(spec, {"template", "metadata", "labels"});
      errs.push_back(invalid_error("spec.template.metadata.labels", labels != nullptr ? *labels : json::value(nullptr),
                                   "`selector` does not match template `labels`"));
    }
    const json::value* pod_spec = at(spec, {"template", "spec"});
    for (auto& e : validate_pod_spec(pod_spec, "spec.template.spec")) errs.push_back(std::move(e));
    std::string_view restart = pod_spec != nullptr ? json::get_string(*pod_spec, "restartPolicy") : "";
    if (restart != "OnFailure" && restart != "Never") {
      errs.push_back(required_error("spec.template.spec.restartPolicy", "valid values: \"OnFailure\", \"Never\""));
    }
    return errs;
  }

  static FieldErrors validate_status(const json::object& obj) {
    FieldErrors errs;
    const json::value* status = obj.if_contains("status");
    if (status == nullptr || !status->is_object()) return errs;
    for (std::string_view f : {"active", "succeeded", "failed", "ready"}) {
      if (auto v = int_at(status->as_object(), {f}); v && *v < 0) {
        errs.push_back(invalid_error(fmt::format("status.{}", f), json::value(*v), "must be greater than or equal to 0"));
      }
    }
    return errs;
  }
};

}  // namespace

StrategyPtr make_job_strategy() { return std::make_shared<JobStrategy>(); }

}  // namespace kueuepp::kube::server

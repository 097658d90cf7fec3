#include "kube/jobs/job_pod_sets.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <vector>

#include "kube/jobs/constants.hpp"

namespace kueuepp::kube::jobs {

namespace {

/// Labels the batch Job controller puts on pod templates: Kueue drops them from the pod set
/// (all but batch.kubernetes.io/job-name, which it keeps).
constexpr std::array<std::string_view, 3> kDroppedManagedLabels = {"job-name", "controller-uid",
                                                                   "batch.kubernetes.io/controller-uid"};

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // Go's Atoi accepts a sign
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

/// Kueue's sanitizeContainer: one env var per name, the last definition winning, in the
/// order names first appear.
void dedupe_env(json::value& container) {
  json::value* env = json::find(container, "env");
  if (env == nullptr || !env->is_array()) return;
  std::vector<std::string> order;
  std::vector<json::value> last;
  for (const json::value& var : env->get_array()) {
    std::string name(json::get_string(var, "name"));
    auto it = std::find(order.begin(), order.end(), name);
    if (it == order.end()) {
      order.push_back(name);
      last.push_back(var);
    } else {
      last[static_cast<std::size_t>(it - order.begin())] = var;
    }
  }
  json::array out;
  for (auto& v : last) out.push_back(std::move(v));
  *env = std::move(out);
}

}  // namespace

void sanitize_containers(json::value& spec) {
  for (const char* field : {"containers", "initContainers"}) {
    json::value* list = json::find(spec, field);
    if (list == nullptr || !list->is_array()) continue;
    for (json::value& c : list->get_array()) dedupe_env(c);
  }
}

namespace {

json::object template_metadata(const json::value& tmpl) {
  json::object meta;
  const json::value* src = json::find(tmpl, "metadata");
  if (src == nullptr) return meta;
  if (const json::value* labels = json::find(*src, "labels"); labels && labels->is_object()) {
    json::object kept = labels->get_object();
    for (auto key : kDroppedManagedLabels) kept.erase(key);
    if (!kept.empty()) meta["labels"] = std::move(kept);
  }
  if (const json::value* ann = json::find(*src, "annotations"); ann && ann->is_object() && !ann->get_object().empty()) {
    meta["annotations"] = *ann;
  }
  return meta;
}

}  // namespace

Expected<json::object> topology_request(const client::Object& job, const json::value& tmpl) {
  client::StringMap ann;
  if (const json::value* a = json::find_path(tmpl, {"metadata", "annotations"}); a && a->is_object()) {
    for (const auto& [k, v] : a->get_object()) {
      if (v.is_string()) ann.emplace(std::string(k), std::string(v.get_string()));
    }
  }
  auto get = [&](std::string_view key) -> const std::string* {
    auto it = ann.find(std::string(key));
    return it == ann.end() ? nullptr : &it->second;
  };
  json::object req;
  const std::string* required = get(kRequiredTopologyAnnotation);
  const std::string* preferred = get(kPreferredTopologyAnnotation);
  if (required) {
    req["required"] = *required;
  } else if (preferred) {
    req["preferred"] = *preferred;
  } else if (const std::string* unconstrained = get(kUnconstrainedTopologyAnnotation)) {
    auto b = parse_go_bool(*unconstrained);
    if (!b) {
      return fail("Job " + job.key() + ": annotation " + std::string(kUnconstrainedTopologyAnnotation) + "=\"" +
                  *unconstrained + "\" is not a boolean");
    }
    req["unconstrained"] = *b;
  }
  const std::string* slice_topology = get(kSliceRequiredTopologyAnnotation);
  const std::string* slice_size = get(kSliceSizeAnnotation);
  if (slice_topology && slice_size) {
    auto size = parse_int(*slice_size);
    if (!size || *size < INT32_MIN || *size > INT32_MAX) {
      return fail("Job " + job.key() + ": annotation " + std::string(kSliceSizeAnnotation) + "=\"" + *slice_size +
                  "\" is not an integer");
    }
    req["podSetSliceRequiredTopology"] = *slice_topology;
    req["podSetSliceSize"] = *size;
  }
  req["podIndexLabel"] = kJobCompletionIndexLabel;
  if (const std::string* group = get(kPodSetGroupNameAnnotation); group && (required || preferred)) {
    req["podSetGroupName"] = *group;
  }
  return req;
}

std::optional<bool> parse_go_bool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

std::int64_t job_pods_count(const client::Object& job) {
  std::int64_t count = job.int_at({"spec", "parallelism"}).value_or(1);
  if (auto completions = job.int_at({"spec", "completions"}); completions && *completions < count) {
    count = *completions;
  }
  return count;
}

std::optional<std::int64_t> job_min_pods_count(const client::Object& job) {
  auto text = job.annotation(kMinParallelismAnnotation);
  if (!text) return std::nullopt;
  return parse_int(*text);
}

bool job_completions_follow_parallelism(const client::Object& job) {
  auto text = job.annotation(kCompletionsEqualParallelismAnnotation);
  return text && parse_go_bool(*text).value_or(false);
}

Expected<json::array> job_pod_sets(const client::Object& job, const PodSetOptions& options) {
  const json::value* tmpl = job.find({"spec", "template"});
  if (tmpl == nullptr || !tmpl->is_object()) {
    return fail("Job " + job.key() + " has no spec.template; Kueue cannot queue it");
  }
  json::object pod_set;
  pod_set["name"] = kMainPodSet;
  json::object template_copy;
  template_copy["metadata"] = template_metadata(*tmpl);
  json::value spec = json::object{};
  if (const json::value* s = json::find(*tmpl, "spec"); s && s->is_object()) spec = *s;
  sanitize_containers(spec);
  template_copy["spec"] = std::move(spec);
  pod_set["template"] = std::move(template_copy);
  pod_set["count"] = job_pods_count(job);
  if (options.partial_admission) {
    if (auto min = job_min_pods_count(job)) pod_set["minCount"] = *min;
  }
  if (options.topology_aware_scheduling) {
    auto req = topology_request(job, *tmpl);
    if (!req) return unexpected(req.error());
    pod_set["topologyRequest"] = std::move(*req);
  }
  return json::array{std::move(pod_set)};
}

}  // namespace kueuepp::kube::jobs

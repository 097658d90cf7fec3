#include "actors/job_reconciler.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "actors/workload_status_writes.hpp"
#include "core/jobs/job_workload.hpp"
#include "kube/client/conditions.hpp"

namespace kueuepp::actors {

using kube::client::Condition;
using kube::client::Object;
using messages::ObjectKind;

namespace {

constexpr std::size_t kHashLength = 5;
constexpr std::size_t kMaxNameLength = 253;

std::string sha1_hex(const std::string& data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  std::string hex;
  char buf[3];
  for (unsigned char b : digest) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex;
}

std::int64_t pod_count(const Object& job) {
  std::int64_t parallelism = job.int_at({"spec", "parallelism"}).value_or(1);
  if (auto completions = job.int_at({"spec", "completions"})) parallelism = std::min(parallelism, *completions);
  return std::max<std::int64_t>(parallelism, 0);
}

bool suspended(const Object& job) { return job.bool_at({"spec", "suspend"}).value_or(false); }

bool job_finished(const Object& job, std::string& reason, std::string& message) {
  if (job.condition_true("Complete")) {
    reason = "Succeeded";
    message = "Job finished successfully";
    return true;
  }
  if (auto failed = job.condition("Failed"); failed && failed->status == "True") {
    reason = "Failed";
    message = failed->message.empty() ? "Job failed" : failed->message;
    return true;
  }
  return false;
}

/// The pod template's scheduling fields as the Workload recorded them at creation (the
/// Job's original, before any flavor was injected).
const json::value* original_template_spec(const Object& wl) {
  const auto* sets = wl.find({"spec", "podSets"});
  if (sets == nullptr || !sets->is_array() || sets->as_array().empty()) return nullptr;
  return json::find_path(sets->as_array()[0], {"template", "spec"});
}

std::int64_t original_count(const Object& wl, std::int64_t fallback) {
  const auto* sets = wl.find({"spec", "podSets"});
  if (sets == nullptr || !sets->is_array() || sets->as_array().empty()) return fallback;
  const auto* count = json::find(sets->as_array()[0], "count");
  return count && count->is_int64() ? count->as_int64() : fallback;
}

/// Admission -> (flavors used by pod set "main", admitted count).
void admitted_flavors(const Object& wl, std::vector<std::string>& flavors, std::optional<std::int64_t>& count) {
  const auto* sets = wl.find({"status", "admission", "podSetAssignments"});
  if (sets == nullptr || !sets->is_array() || sets->as_array().empty()) return;
  const auto& psa = sets->as_array()[0];
  if (const auto* f = json::find(psa, "flavors"); f && f->is_object()) {
    for (const auto& [res, flavor] : f->as_object()) {
      if (!flavor.is_string()) continue;
      std::string name(flavor.as_string());
      if (std::find(flavors.begin(), flavors.end(), name) == flavors.end()) flavors.push_back(name);
    }
  }
  if (const auto* c = json::find(psa, "count"); c && c->is_int64()) count = c->as_int64();
}

JobWrite job_patch(const Object& job, json::value spec, std::string what) {
  return JobWrite{ObjectKind::Job, JobWrite::Verb::MergePatch, std::string(job.namespace_name()),
                  std::string(job.name()), json::object{{"spec", std::move(spec)}}, "", std::move(what)};
}

JobWrite workload_status(const Object& wl, json::object status, std::string what) {
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatchStatus, std::string(wl.namespace_name()),
                  std::string(wl.name()), json::object{{"status", std::move(status)}}, "", std::move(what)};
}

/// Start: inject the flavors' node labels and tolerations, apply the admitted count,
/// unsuspend (Kueue's RunWithPodSetsInfo), in one write.
JobWrite start_job(const Object& job, const Object& wl, const JobContext& ctx) {
  std::vector<std::string> flavors;
  std::optional<std::int64_t> count;
  admitted_flavors(wl, flavors, count);
  json::object node_selector;
  json::array tolerations;
  if (const auto* t = job.find({"spec", "template", "spec", "tolerations"}); t && t->is_array()) tolerations = t->as_array();
  for (const auto& name : flavors) {
    const Object* flavor = ctx.flavor ? ctx.flavor(name) : nullptr;
    if (flavor == nullptr) continue;
    if (const auto* labels = flavor->find({"spec", "nodeLabels"}); labels && labels->is_object()) {
      for (const auto& [k, v] : labels->as_object()) node_selector[k] = v;
    }
    if (const auto* ft = flavor->find({"spec", "tolerations"}); ft && ft->is_array()) {
      for (const auto& tol : ft->as_array()) {
        if (std::find(tolerations.begin(), tolerations.end(), tol) == tolerations.end()) tolerations.push_back(tol);
      }
    }
  }
  json::object spec;
  spec["suspend"] = false;
  std::int64_t admitted = count.value_or(pod_count(job));
  if (admitted != job.int_at({"spec", "parallelism"}).value_or(1)) spec["parallelism"] = admitted;
  json::object template_spec;
  if (!node_selector.empty()) template_spec["nodeSelector"] = std::move(node_selector);
  if (!tolerations.empty()) template_spec["tolerations"] = std::move(tolerations);
  if (!template_spec.empty()) spec["template"] = json::object{{"spec", std::move(template_spec)}};
  return job_patch(job, std::move(spec), "started");
}

/// Stop: suspend and restore the template and parallelism the Workload recorded
/// (Kueue's RestorePodSetsInfo).
JobWrite stop_job(const Object& job, const Object* wl, const std::string& why) {
  json::object spec;
  spec["suspend"] = true;
  if (wl != nullptr) {
    const json::value* original = original_template_spec(*wl);
    json::object template_spec;
    // nodeSelector: drop injected keys, restore original values.
    json::object selector;
    if (const auto* current = job.find({"spec", "template", "spec", "nodeSelector"}); current && current->is_object()) {
      for (const auto& [k, v] : current->as_object()) selector[k] = nullptr;
    }
    const json::value* orig_sel = original ? json::find(*original, "nodeSelector") : nullptr;
    if (orig_sel && orig_sel->is_object()) {
      for (const auto& [k, v] : orig_sel->as_object()) selector[k] = v;
    }
    bool selector_changed = false;
    const auto* current = job.find({"spec", "template", "spec", "nodeSelector"});
    if (current && current->is_object()) {
      for (const auto& [k, v] : selector) {
        const auto* cur = current->as_object().if_contains(k);
        if (cur == nullptr || *cur != v) selector_changed = true;
      }
    }
    if (selector_changed) template_spec["nodeSelector"] = std::move(selector);
    const json::value* orig_tol = original ? json::find(*original, "tolerations") : nullptr;
    const json::value* cur_tol = job.find({"spec", "template", "spec", "tolerations"});
    json::value want_tol = orig_tol ? *orig_tol : json::value(nullptr);
    json::value have_tol = cur_tol ? *cur_tol : json::value(nullptr);
    if (want_tol != have_tol) template_spec["tolerations"] = want_tol;
    if (!template_spec.empty()) spec["template"] = json::object{{"spec", std::move(template_spec)}};
    std::int64_t count = original_count(*wl, pod_count(job));
    if (job.int_at({"spec", "parallelism"}).value_or(1) != count) spec["parallelism"] = count;
  }
  return job_patch(job, std::move(spec), "stopped: " + why);
}

bool is_admitted(const Object& wl) {
  return wl.find({"status", "admission"}) != nullptr && !wl.find({"status", "admission"})->is_null() &&
         wl.condition_true("QuotaReserved") && wl.condition_true("Admitted");
}

bool holds_reservation(const Object& wl) {
  const auto* a = wl.find({"status", "admission"});
  return a != nullptr && !a->is_null();
}

}  // namespace

std::string workload_name_for_job(const std::string& job_name, const std::string& job_uid) {
  std::string prefix = "job-" + job_name;
  const std::size_t max_prefix = kMaxNameLength - 1 - kHashLength;
  if (prefix.size() > max_prefix) prefix.resize(max_prefix);
  // Kueue hashes kind, group, owner name and uid, one per line.
  std::string hash = sha1_hex(std::string("Job\nbatch\n") + job_name + "\n" + job_uid);
  return prefix + "-" + hash.substr(0, kHashLength);
}

std::optional<std::string> managed_queue(const Object& job, const JobContext& ctx) {
  if (auto q = job.label(core::kQueueNameLabel); q && !q->empty()) return std::string(*q);
  if (ctx.options.manage_jobs_without_queue_name && ctx.local_queue_exists &&
      ctx.local_queue_exists(std::string(job.namespace_name()), "default")) {
    return std::string("default");
  }
  return std::nullopt;
}

Expected<Object> build_workload(const Object& job, const std::string& queue, const JobContext& ctx) {
  const json::value* tmpl = job.find({"spec", "template"});
  if (tmpl == nullptr || !tmpl->is_object()) {
    return fail("Job " + job.key() + " has no spec.template; it cannot be queued");
  }
  Object wl;
  wl.set_type("kueue.x-k8s.io/v1beta2", "Workload");
  wl.set_name(workload_name_for_job(std::string(job.name()), std::string(job.uid())));
  wl.set_namespace(job.namespace_name());
  wl.set_label(core::kJobUidLabel, job.uid());
  kube::client::OwnerReference owner;
  owner.api_version = "batch/v1";
  owner.kind = "Job";
  owner.name = std::string(job.name());
  owner.uid = std::string(job.uid());
  owner.controller = true;
  owner.block_owner_deletion = true;
  wl.set_owner_reference(owner);

  json::object pod_set;
  pod_set["name"] = "main";
  pod_set["count"] = pod_count(job);
  if (auto min = job.annotation(core::kMinParallelismAnnotation)) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(min->data(), min->data() + min->size(), value);
    if (ec != std::errc() || ptr != min->data() + min->size() || value < 1 || value > pod_count(job)) {
      return fail("Job " + job.key() + ": annotation " + std::string(core::kMinParallelismAnnotation) + "=\"" +
                  std::string(*min) + "\" must be an integer between 1 and the Job's parallelism");
    }
    if (value < pod_count(job)) pod_set["minCount"] = value;
  }
  json::object template_copy;
  if (const auto* meta = json::find(*tmpl, "metadata"); meta && meta->is_object()) {
    json::object m;
    for (const char* field : {"labels", "annotations"}) {
      if (const auto* f = json::find(*meta, field)) m[field] = *f;
    }
    if (!m.empty()) template_copy["metadata"] = std::move(m);
  }
  if (const auto* spec = json::find(*tmpl, "spec")) template_copy["spec"] = *spec;
  pod_set["template"] = std::move(template_copy);

  json::object spec;
  spec["queueName"] = queue;
  spec["podSets"] = json::array{std::move(pod_set)};
  if (auto wpc = job.label(core::kPriorityClassLabel); wpc && !wpc->empty()) {
    std::string name(*wpc);
    auto value = ctx.workload_priority_class ? ctx.workload_priority_class(name) : std::nullopt;
    if (!value) {
      return fail("Job " + job.key() + ": WorkloadPriorityClass \"" + name +
                  "\" does not exist; create it or fix the kueue.x-k8s.io/priority-class label");
    }
    spec["priority"] = *value;
    spec["priorityClassRef"] =
        json::object{{"group", "kueue.x-k8s.io"}, {"kind", "WorkloadPriorityClass"}, {"name", name}};
  } else if (auto pc = job.string_at({"spec", "template", "spec", "priorityClassName"}); !pc.empty()) {
    std::string name(pc);
    auto value = ctx.priority_class ? ctx.priority_class(name) : std::nullopt;
    if (value) {
      spec["priority"] = *value;
      spec["priorityClassRef"] = json::object{{"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", name}};
    }
  }
  wl.json().as_object()["spec"] = std::move(spec);
  return wl;
}

std::vector<JobWrite> reconcile_job(const Object& job, const Object* wl, const JobContext& ctx) {
  std::vector<JobWrite> writes;
  auto queue = managed_queue(job, ctx);
  if (!queue || job.being_deleted()) return writes;
  std::string finish_reason;
  std::string finish_message;
  bool finished = job_finished(job, finish_reason, finish_message);

  if (wl == nullptr) {
    if (finished) return writes;
    if (!suspended(job)) writes.push_back(stop_job(job, nullptr, "not admitted yet"));
    auto built = build_workload(job, *queue, ctx);
    if (built) {
      writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::Create, std::string(job.namespace_name()),
                                std::string(built->name()), std::move(*built).release(), "", "created workload"});
    } else {
      writes.push_back(JobWrite{ObjectKind::Job, JobWrite::Verb::MergePatch, "", "", json::value(), "",
                                "error: " + built.error().message});
    }
    return writes;
  }
  if (wl->condition_true("Finished")) return writes;
  if (finished) {
    json::object status;
    status["conditions"] =
        conditions_after(*wl, {Condition{"Finished", "True", finish_reason, finish_message, "", {}}}, ctx.now);
    writes.push_back(workload_status(*wl, std::move(status), "finished workload"));
    return writes;
  }
  bool evicted = wl->condition_true("Evicted");
  if (is_admitted(*wl) && !evicted) {
    if (suspended(job)) writes.push_back(start_job(job, *wl, ctx));
    return writes;
  }
  if (holds_reservation(*wl) && evicted) {
    if (!suspended(job)) {
      writes.push_back(stop_job(job, wl, wl->condition("Evicted")->reason));
    } else if (job.int_at({"status", "active"}).value_or(0) == 0) {
      // Stopped: release the quota (Kueue clears the reservation and requeues).
      auto ev = *wl->condition("Evicted");
      json::object status;
      status["admission"] = nullptr;
      status["conditions"] = conditions_after(
          *wl,
          {Condition{"QuotaReserved", "False", "Pending", ev.message, "", {}},
           Condition{"Admitted", "False", "NoReservation", "The workload has no reservation", "", {}},
           Condition{"Requeued", "True", ev.reason, ev.message, "", {}}},
          ctx.now);
      writes.push_back(workload_status(*wl, std::move(status), "released quota after eviction"));
    }
    return writes;
  }
  if (!holds_reservation(*wl) && !suspended(job)) writes.push_back(stop_job(job, wl, "not admitted"));
  return writes;
}

}  // namespace kueuepp::actors

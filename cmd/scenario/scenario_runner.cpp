#include "cmd/scenario/scenario_runner.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "config/kueue_configuration.hpp"
#include "core/engine/engine.hpp"
#include "core/jobs/job_workload.hpp"
#include "kube/json/yaml.hpp"
#include "kube/objects/decoders.hpp"
#include "kube/objects/field_reader.hpp"

namespace kueuepp::scenario {
namespace {

using json::value;

constexpr std::int64_t kFileEpoch = 1767225600;  // 2026-01-01T00:00:00Z

struct ExpectedAdmission {
  std::string cluster_queue;
  std::map<std::string, core::Labels> pod_sets;  // podset -> res -> flavor
  std::map<std::string, std::int64_t> counts;
  bool has_pod_sets = false;
};

class Runner {
 public:
  explicit Runner(std::string name) : name_(std::move(name)) {}

  Result run(std::string_view yaml) {
    auto docs = json::parse_yaml_documents(yaml);
    if (!docs) return failed("cannot read the file: " + docs.error().message);
    std::size_t index = 0;
    for (const value& doc : *docs) {
      ++index;
      if (doc.is_null()) continue;
      Status s = apply_document(doc, index);
      if (!s) return failed(s.error().message);
    }
    if (expects_ == 0) return failed("the scenario has no Expect document");
    Result r;
    r.passed = true;
    r.cycles = cycles_;
    return r;
  }

 private:
  Result failed(std::string why) const {
    Result r;
    r.failure = std::move(why);
    r.cycles = cycles_;
    return r;
  }

  static std::string doc_label(std::size_t index, std::string_view kind) {
    return "document " + std::to_string(index) + " (" + std::string(kind.empty() ? "no kind" : kind) + ")";
  }

  Status apply_document(const value& doc, std::size_t index) {
    if (!doc.is_object()) return fail("document " + std::to_string(index) + ": expected a YAML mapping");
    std::string api = std::string(json::get_string(doc, "apiVersion"));
    std::string kind = std::string(json::get_string(doc, "kind"));
    std::string label = doc_label(index, kind);
    if (api.empty() || kind.empty()) return fail(label + ": apiVersion and kind are required");
    auto group = api.substr(0, api.find('/'));

    if (group == "scenarios.kueuepp.dev") {
      if (kind == "Expect") return expect(doc, label);
      if (kind == "Finish") return finish(doc, label);
      if (kind == "Delete") return remove(doc, label);
      return fail(label + ": unknown scenario kind (expected Expect, Finish or Delete)");
    }
    if (group == "config.kueue.x-k8s.io" && kind == "Configuration") {
      auto cfg = config::decode_configuration(doc);
      if (!cfg) return fail(label + ": " + cfg.error().message);
      engine_.set_config(cfg->engine);
      config_ = *cfg;
      return {};
    }
    value object = doc;
    stamp(object, index);
    if (group == "kueue.x-k8s.io") return apply_kueue(object, kind, label);
    if (api == "v1" && kind == "Namespace") return applied(label, kube::decode_namespace(object), [&](auto& ns) {
      engine_.apply(ns);
    });
    if (group == "scheduling.k8s.io" && kind == "PriorityClass") {
      return applied(label, kube::decode_priority_class(object), [&](auto& pc) { engine_.apply(pc); });
    }
    if (group == "batch" && kind == "Job") return apply_job(object, label);
    return fail(label + ": unsupported kind " + api + "/" + kind);
  }

  template <class T, class F>
  static Status applied(const std::string& label, Expected<T> decoded, F&& apply) {
    if (!decoded) return fail(label + ": " + decoded.error().message);
    apply(*decoded);
    return {};
  }

  // Objects without a creation time get one: the file epoch plus one second per document;
  // without a uid, one that orders like the document.
  static void stamp(value& object, std::size_t index) {
    if (!object.is_object()) return;
    auto& o = object.as_object();
    if (!o.contains("metadata") || !o["metadata"].is_object()) o["metadata"] = json::object{};
    auto& meta = o["metadata"].as_object();
    if (!meta.contains("creationTimestamp") || meta["creationTimestamp"].is_null()) {
      meta["creationTimestamp"] = core::format_rfc3339(core::time_from_seconds(kFileEpoch + static_cast<std::int64_t>(index) - 1));
    }
    if (!meta.contains("uid")) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "uid-%08zu", index);
      meta["uid"] = buf;
    }
  }

  Status apply_kueue(const value& object, const std::string& kind, const std::string& label) {
    if (kind == "ResourceFlavor") return applied(label, kube::decode_resource_flavor(object), [&](auto& x) { engine_.apply(x); });
    if (kind == "ClusterQueue") return applied(label, kube::decode_cluster_queue(object), [&](auto& x) { engine_.apply(x); });
    if (kind == "Cohort") return applied(label, kube::decode_cohort(object), [&](auto& x) { engine_.apply(x); });
    if (kind == "LocalQueue") return applied(label, kube::decode_local_queue(object), [&](auto& x) { engine_.apply(x); });
    if (kind == "WorkloadPriorityClass") {
      return applied(label, kube::decode_workload_priority_class(object), [&](auto& x) { engine_.apply(x); });
    }
    if (kind == "AdmissionCheck") return applied(label, kube::decode_admission_check(object), [&](auto& x) { engine_.apply(x); });
    if (kind == "Workload") {
      auto wl = kube::decode_workload(object);
      if (!wl) return fail(label + ": " + wl.error().message);
      Status s = engine_.apply(*wl);
      if (!s) return fail(label + ": " + s.error().message);
      workloads_.insert(wl->key());
      return {};
    }
    return fail(label + ": unsupported kind kueue.x-k8s.io/" + kind);
  }

  Status apply_job(const value& object, const std::string& label) {
    auto job = kube::decode_job(object);
    if (!job) return fail(label + ": " + job.error().message);
    core::JobWorkloadOptions options;
    options.workload_name = job->name;
    options.partial_admission = config_.engine.partial_admission;
    if (config_.manage_jobs_without_queue_name) options.default_queue = "default";
    bool has_queue = job->labels.contains(core::kQueueNameLabel) || !options.default_queue.empty();
    if (!has_queue) return {};  // not managed by Kueue
    // A priority-class label naming a missing WorkloadPriorityClass gets no Workload.
    auto wl = core::workload_for_job(*job, options);
    if (!wl) return fail(label + ": " + wl.error().message);
    Status s = engine_.apply(*wl);
    if (!s) return fail(label + ": " + s.error().message);
    workloads_.insert(wl->key());
    return {};
  }

  // -- actions ----------------------------------------------------------------------------

  void settle_evictions() {
    core::Decisions d = engine_.take_decisions();
    carry_out_checks(d);
    for (const auto& e : d.evictions) {
      if (e.reason == "Preempted") preempted_.insert(e.workload);
      (void)engine_.complete_eviction(e.workload);
    }
  }

  // A Rejected admission check deactivates its workload (Kueue's Workload controller:
  // DeactivationTarget, then spec.active=false, then the eviction, completed below). The
  // other check decisions only write what the engine already holds.
  void carry_out_checks(const core::Decisions& d) {
    for (const auto& c : d.checks) {
      if (c.kind == core::AdmissionCheckDecision::Kind::Deactivate) {
        (void)engine_.deactivate(c.workload, "AdmissionCheck", c.message);
      }
    }
  }

  std::size_t run_to_quiescence() {
    settle_evictions();
    std::size_t idle = 0;
    const std::size_t idle_limit = 34;  // > flavors a resource group may list (16) * 2
    std::size_t run = 0;
    for (; run < 200000; ++run) {
      core::CycleSummary s = engine_.run_cycle(now_);
      now_ += std::chrono::seconds(1);
      ++cycles_;
      core::Decisions d = engine_.take_decisions();
      carry_out_checks(d);
      if (!d.checks.empty()) {
        // A deactivation evicts now: its eviction completes with the others.
        core::Decisions more = engine_.take_decisions();
        d.evictions.insert(d.evictions.end(), more.evictions.begin(), more.evictions.end());
      }
      for (const auto& e : d.evictions) {
        if (e.reason == "Preempted") preempted_.insert(e.workload);
        (void)engine_.complete_eviction(e.workload);
      }
      if (s.heads == 0 && d.evictions.empty()) break;
      if (s.changed || !d.evictions.empty()) {
        idle = 0;
      } else if (++idle >= idle_limit) {
        break;
      }
    }
    return run;
  }

  Status expect(const value& doc, const std::string& label) {
    ++expects_;
    run_to_quiescence();
    kube::FieldReader r(label);
    std::map<std::string, ExpectedAdmission> admitted;
    const kube::FieldPath admitted_path = "admitted";
    if (const json::object* adm = r.object(kube::FieldReader::get(&doc, "admitted"), admitted_path)) {
      for (const auto& kv : *adm) {
        std::string key(kv.key());
        const kube::FieldPath p = kube::sub(admitted_path, key);
        ExpectedAdmission e;
        e.cluster_queue = r.string(kube::FieldReader::get(&kv.value(), "clusterQueue"), kube::sub(p, "clusterQueue"));
        const kube::FieldPath pod_sets_path = kube::sub(p, "podSets");
        if (const json::object* ps = r.object(kube::FieldReader::get(&kv.value(), "podSets"), pod_sets_path)) {
          e.has_pod_sets = true;
          for (const auto& pkv : *ps) {
            e.pod_sets[std::string(pkv.key())] = r.string_map(&pkv.value(), kube::sub(pod_sets_path, pkv.key()));
          }
        }
        const kube::FieldPath counts_path = kube::sub(p, "counts");
        if (const json::object* counts = r.object(kube::FieldReader::get(&kv.value(), "counts"), counts_path)) {
          for (const auto& ckv : *counts) {
            e.counts[std::string(ckv.key())] = r.integer(&ckv.value(), kube::sub(counts_path, ckv.key())).value_or(-1);
          }
        }
        admitted[key] = std::move(e);
      }
    }
    std::set<std::string> pending;
    for (auto& k : r.strings(kube::FieldReader::get(&doc, "pending"), "pending")) pending.insert(k);
    std::optional<std::set<std::string>> preempted;
    if (kube::FieldReader::get(&doc, "preempted") != nullptr) {
      preempted.emplace();
      for (auto& k : r.strings(kube::FieldReader::get(&doc, "preempted"), "preempted")) preempted->insert(k);
    }
    std::optional<std::set<std::string>> inactive;
    if (kube::FieldReader::get(&doc, "inactive") != nullptr) {
      inactive.emplace();
      for (auto& k : r.strings(kube::FieldReader::get(&doc, "inactive"), "inactive")) inactive->insert(k);
    }
    if (r.failed()) return fail(r.error().message);

    std::vector<std::string> diffs;
    std::set<std::string> seen;
    for (const auto& key : workloads_) {
      auto view = engine_.workload(key);
      if (!view || view->finished) continue;
      seen.insert(key);
      bool want_admitted = admitted.contains(key);
      bool want_pending = pending.contains(key);
      if (view->reserved) {
        if (!want_admitted) {
          diffs.push_back(key + ": expected " + (want_pending ? "pending" : "not listed") + ", got admitted " +
                          describe(*view->admission));
          continue;
        }
        compare_admission(key, admitted[key], *view->admission, diffs);
      } else {
        if (!want_pending) {
          diffs.push_back(key + ": expected " + (want_admitted ? "admitted in " + admitted[key].cluster_queue : "not listed") +
                          ", got pending" + (view->pending.message.empty() ? "" : " (" + view->pending.reason + ": " + view->pending.message + ")"));
        }
      }
    }
    for (const auto& [key, e] : admitted) {
      if (!seen.contains(key)) diffs.push_back(key + ": expected admitted, but no such unfinished workload exists");
    }
    for (const auto& key : pending) {
      if (!seen.contains(key)) diffs.push_back(key + ": expected pending, but no such unfinished workload exists");
    }
    if (preempted && *preempted != preempted_) {
      diffs.push_back("preempted: expected " + join(*preempted) + ", got " + join(preempted_));
    }
    if (inactive) {
      std::set<std::string> got;
      for (const auto& name : engine_.cluster_queue_names()) {
        auto cq = engine_.cluster_queue(name);
        if (cq && !cq->active) got.insert(name);
      }
      if (got != *inactive) diffs.push_back("inactive: expected " + join(*inactive) + ", got " + join(got));
    }
    if (!diffs.empty()) {
      std::string msg = label + ": ";
      for (std::size_t i = 0; i < diffs.size(); ++i) msg += (i ? "; " : "") + diffs[i];
      return fail(msg);
    }
    return {};
  }

  static std::string join(const std::set<std::string>& s) {
    std::string out = "[";
    for (const auto& k : s) out += (out.size() > 1 ? ", " : "") + k;
    return out + "]";
  }

  static std::string describe(const core::Admission& a) {
    std::string out = "in " + a.cluster_queue + " (";
    for (std::size_t i = 0; i < a.pod_set_assignments.size(); ++i) {
      const auto& ps = a.pod_set_assignments[i];
      out += (i ? "; " : "") + ps.name + ":";
      for (const auto& [res, flv] : ps.flavors) out += " " + res + "=" + flv;
      if (ps.count) out += " count=" + std::to_string(*ps.count);
    }
    return out + ")";
  }

  void compare_admission(const std::string& key, const ExpectedAdmission& want, const core::Admission& got,
                         std::vector<std::string>& diffs) {
    if (got.cluster_queue != want.cluster_queue) {
      diffs.push_back(key + ": expected admission in " + want.cluster_queue + ", got " + describe(got));
      return;
    }
    auto view = engine_.workload(key);
    auto full_count = [&](const std::string& ps) -> std::optional<std::int32_t> {
      if (!view) return std::nullopt;
      for (const auto& [name, count] : view->pod_set_counts) {
        if (name == ps) return count;
      }
      return std::nullopt;
    };
    for (const auto& ps : got.pod_set_assignments) {
      core::Labels flavors;
      for (const auto& [res, flv] : ps.flavors) {
        auto usage = ps.resource_usage.find(res);
        if (usage != ps.resource_usage.end() && usage->second.milli() == 0) continue;
        flavors[res] = flv;
      }
      if (want.has_pod_sets) {
        auto it = want.pod_sets.find(ps.name);
        if (it == want.pod_sets.end()) {
          diffs.push_back(key + ": pod set " + ps.name + " admitted but not expected: " + describe(got));
        } else if (it->second != flavors) {
          std::string w;
          for (const auto& [r, f] : it->second) w += (w.empty() ? "" : " ") + r + "=" + f;
          diffs.push_back(key + ": pod set " + ps.name + ": expected flavors {" + w + "}, got " + describe(got));
        }
      }
      auto count_it = want.counts.find(ps.name);
      if (count_it != want.counts.end()) {
        if (!ps.count || *ps.count != count_it->second) {
          diffs.push_back(key + ": pod set " + ps.name + ": expected count " + std::to_string(count_it->second) +
                          ", got " + (ps.count ? std::to_string(*ps.count) : std::string("none")));
        }
      } else if (auto full = full_count(ps.name); ps.count && full && *full != *ps.count) {
        diffs.push_back(key + ": pod set " + ps.name + ": admitted with count " + std::to_string(*ps.count) +
                        ", expected the full count");
      }
    }
    if (want.has_pod_sets) {
      for (const auto& want_pod_set : want.pod_sets) {
        const std::string& name = want_pod_set.first;
        bool found = std::any_of(got.pod_set_assignments.begin(), got.pod_set_assignments.end(),
                                 [&](const auto& ps) { return ps.name == name; });
        if (!found) diffs.push_back(key + ": expected pod set " + name + " in the admission, got " + describe(got));
      }
    }
  }

  Status finish(const value& doc, const std::string& label) {
    run_to_quiescence();
    kube::FieldReader r(label);
    auto keys = r.strings(kube::FieldReader::get(&doc, "workloads"), "workloads");
    if (r.failed()) return fail(r.error().message);
    for (const auto& key : keys) {
      auto view = engine_.workload(key);
      if (!view) return fail(label + ": workload " + key + " does not exist");
      if (!view->reserved) return fail(label + ": workload " + key + " is not admitted, so it cannot finish");
      Status s = engine_.finish_workload(key);
      if (!s) return fail(label + ": " + s.error().message);
    }
    return {};
  }

  Status remove(const value& doc, const std::string& label) {
    kube::FieldReader r(label);
    const kube::FieldPath objects_path = "objects";
    const json::array* objects = r.array(kube::FieldReader::get(&doc, "objects"), objects_path);
    if (r.failed()) return fail(r.error().message);
    if (objects == nullptr) return fail(label + ": objects: Required value");
    for (std::size_t i = 0; i < objects->size(); ++i) {
      const value& o = (*objects)[i];
      const kube::FieldPath p = kube::sub(objects_path, i);
      std::string kind = r.string(kube::FieldReader::get(&o, "kind"), kube::sub(p, "kind"));
      std::string name = r.string(kube::FieldReader::get(&o, "name"), kube::sub(p, "name"));
      std::string ns = r.string(kube::FieldReader::get(&o, "namespace"), kube::sub(p, "namespace"), "default");
      if (r.failed()) return fail(r.error().message);
      if (kind == "Workload" || kind == "Job") {
        engine_.remove_workload(ns + "/" + name);
        workloads_.erase(ns + "/" + name);
      } else if (kind == "ClusterQueue") {
        engine_.remove_cluster_queue(name);
      } else if (kind == "LocalQueue") {
        engine_.remove_local_queue(ns, name);
      } else if (kind == "ResourceFlavor") {
        engine_.remove_resource_flavor(name);
      } else if (kind == "Cohort") {
        engine_.remove_cohort(name);
      } else if (kind == "WorkloadPriorityClass") {
        engine_.remove_workload_priority_class(name);
      } else if (kind == "PriorityClass") {
        engine_.remove_priority_class(name);
      } else if (kind == "Namespace") {
        engine_.remove_namespace(name);
      } else if (kind == "AdmissionCheck") {
        engine_.remove_admission_check(name);
      } else {
        return fail(label + ": " + p.str() + ".kind: unsupported kind \"" + kind + "\"");
      }
    }
    return {};
  }

  std::string name_;
  core::Engine engine_;
  config::KueueConfiguration config_;
  std::set<std::string> workloads_;
  std::set<std::string> preempted_;
  core::Time now_ = core::time_from_seconds(kFileEpoch + 100000);
  std::size_t expects_ = 0;
  std::size_t cycles_ = 0;
};

}  // namespace

Result run_scenario(std::string_view name, std::string_view yaml) {
  Runner runner{std::string(name)};
  return runner.run(yaml);
}

}  // namespace kueuepp::scenario

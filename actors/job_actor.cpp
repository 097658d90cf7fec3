#include "actors/job_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <map>
#include <set>

#include "actors/job_reconciler.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

using Table = std::map<std::string, ObjectPtr, std::less<>>;

struct JobState {
  JobIntegrationOptions options;
  JobLinks links;
  std::function<core::Time()> clock;
  Table jobs;
  Table workloads;
  Table flavors;
  Table local_queues;
  Table wpcs;
  Table pcs;
  std::map<std::string, std::string> workload_of_job;  ///< job uid -> workload key
  std::map<std::string, int> in_flight;                ///< job key -> writes outstanding
  std::set<std::string> again;                         ///< changed while writes were in flight
  std::set<std::string> retry;
  bool retry_scheduled = false;
  std::uint64_t handled = 0;
  std::uint64_t writes = 0;
  std::uint64_t failures = 0;
};

using Self = job_actor::stateful_pointer<JobState>;

core::Time now_of(const JobState& st) {
  return st.clock ? st.clock()
                  : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

Table* table_for(JobState& st, ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Job: return &st.jobs;
    case ObjectKind::Workload: return &st.workloads;
    case ObjectKind::ResourceFlavor: return &st.flavors;
    case ObjectKind::LocalQueue: return &st.local_queues;
    case ObjectKind::WorkloadPriorityClass: return &st.wpcs;
    case ObjectKind::PriorityClass: return &st.pcs;
    default: return nullptr;
  }
}

/// The Job that owns a Workload, as ns/name.
std::optional<std::string> owner_job_key(const kube::client::Object& wl) {
  auto ref = wl.controller_reference();
  if (!ref || ref->kind != "Job") return std::nullopt;
  return std::string(wl.namespace_name()) + "/" + ref->name;
}

void index_workload(JobState& st, const ObjectPtr& wl, bool deleted) {
  auto ref = wl->controller_reference();
  if (!ref || ref->kind != "Job") return;
  if (deleted) {
    auto it = st.workload_of_job.find(ref->uid);
    if (it != st.workload_of_job.end() && it->second == wl->key()) st.workload_of_job.erase(it);
  } else {
    st.workload_of_job[ref->uid] = wl->key();
  }
}

JobContext context(Self self) {
  auto& st = self->state;
  JobContext ctx;
  ctx.options = st.options;
  ctx.now = now_of(st);
  ctx.flavor = [self](const std::string& name) -> const kube::client::Object* {
    auto it = self->state.flavors.find(name);
    return it == self->state.flavors.end() ? nullptr : it->second.get();
  };
  auto value_of = [](const Table& t, const std::string& name) -> std::optional<std::int32_t> {
    auto it = t.find(name);
    if (it == t.end()) return std::nullopt;
    return static_cast<std::int32_t>(it->second->int_at({"value"}).value_or(0));
  };
  ctx.workload_priority_class = [self, value_of](const std::string& n) { return value_of(self->state.wpcs, n); };
  ctx.priority_class = [self, value_of](const std::string& n) { return value_of(self->state.pcs, n); };
  ctx.local_queue_exists = [self](const std::string& ns, const std::string& name) {
    return self->state.local_queues.count(ns + "/" + name) != 0;
  };
  return ctx;
}

void reconcile(Self self, const std::string& job_key);

void schedule_retry(Self self, const std::string& job_key) {
  auto& st = self->state;
  st.retry.insert(job_key);
  if (st.retry_scheduled) return;
  st.retry_scheduled = true;
  self->delayed_send(self, std::chrono::seconds(1), JobTick{});
}

WriteRequest to_request(JobWrite& w) {
  WriteRequest req;
  req.kind = w.kind;
  req.ns = w.ns;
  req.name = w.name;
  req.verb = w.verb == JobWrite::Verb::Create       ? WriteVerb::Create
             : w.verb == JobWrite::Verb::MergePatch ? WriteVerb::MergePatch
                                                     : WriteVerb::MergePatchStatus;
  req.body = std::make_shared<const json::value>(std::move(w.body));
  req.precondition_rv = w.precondition_rv;
  req.urgent = true;
  return req;
}

void on_write_done(Self self, const std::string& job_key, ObjectKind kind, const std::string& what,
                   const WriteOutcome& o) {
  auto& st = self->state;
  if (o.ok && o.object) {
    // Our own write is the freshest state we know: do not act on the stale cache.
    if (Table* t = table_for(st, kind)) (*t)[o.object->key()] = o.object;
    if (kind == ObjectKind::Workload) index_workload(st, o.object, false);
    spdlog::info("job {}: {}", job_key, what);
  } else if (!o.ok && !o.superseded) {
    ++st.failures;
    bool race = o.http_status == 409 || o.http_status == 404;
    if (!race) {
      spdlog::warn("job {}: {} failed: {} {} {}; retrying", job_key, what, o.http_status, o.reason, o.message);
      schedule_retry(self, job_key);
    }
  }
  auto it = st.in_flight.find(job_key);
  if (it != st.in_flight.end() && --it->second <= 0) {
    st.in_flight.erase(it);
    if (st.again.erase(job_key) != 0) reconcile(self, job_key);
  }
}

void reconcile(Self self, const std::string& job_key) {
  auto& st = self->state;
  if (st.in_flight.count(job_key) != 0) {
    st.again.insert(job_key);
    return;
  }
  auto job = st.jobs.find(job_key);
  if (job == st.jobs.end()) return;
  const kube::client::Object* wl = nullptr;
  auto wl_key = st.workload_of_job.find(std::string(job->second->uid()));
  if (wl_key != st.workload_of_job.end()) {
    auto it = st.workloads.find(wl_key->second);
    if (it != st.workloads.end()) wl = it->second.get();
  }
  auto writes = reconcile_job(*job->second, wl, context(self));
  for (auto& w : writes) {
    if (w.name.empty()) {
      // The reconciler could not compose the Workload: say why, on the Job.
      spdlog::error("job {}: {}", job_key, w.what);
      continue;
    }
    ++st.writes;
    ++st.in_flight[job_key];
    ObjectKind kind = w.kind;
    std::string what = w.what;
    self->request(st.links.writer, caf::infinite, to_request(w))
        .then([self, job_key, kind, what](WriteOutcome& o) { on_write_done(self, job_key, kind, what, o); },
              [self, job_key, kind, what](caf::error& err) {
                WriteOutcome o;
                o.message = caf::to_string(err);
                on_write_done(self, job_key, kind, what, o);
              });
  }
}

void on_change(Self self, ObjectKind kind, const ObjectPtr& object, bool deleted) {
  auto& st = self->state;
  Table* t = table_for(st, kind);
  if (t == nullptr || !object) return;
  std::string key = object->key();
  if (deleted) {
    t->erase(key);
  } else {
    (*t)[key] = object;
  }
  if (kind == ObjectKind::Workload) {
    index_workload(st, object, deleted);
    if (auto job = owner_job_key(*object)) reconcile(self, *job);
  } else if (kind == ObjectKind::Job) {
    if (!deleted) reconcile(self, key);
  } else if (kind == ObjectKind::LocalQueue && st.options.manage_jobs_without_queue_name && !deleted) {
    // A new "default" LocalQueue picks up the namespace's unlabelled Jobs.
    for (const auto& [job_key, job] : st.jobs) {
      if (job->namespace_name() == object->namespace_name()) reconcile(self, job_key);
    }
  }
}

void on_relist(Self self, ObjectsRelisted& event) {
  auto& st = self->state;
  Table* t = table_for(st, event.kind);
  if (t == nullptr || !event.items) return;
  t->clear();
  if (event.kind == ObjectKind::Workload) st.workload_of_job.clear();
  for (const auto& object : *event.items) {
    (*t)[object->key()] = object;
    if (event.kind == ObjectKind::Workload) index_workload(st, object, false);
  }
  if (event.kind == ObjectKind::Job || event.kind == ObjectKind::Workload) {
    std::vector<std::string> keys;
    for (const auto& [key, job] : st.jobs) keys.push_back(key);
    for (const auto& key : keys) reconcile(self, key);
  }
}

}  // namespace

messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock) {
  return system.spawn([options, links, clock](Self self) -> job_actor::behavior_type {
    self->state.options = options;
    self->state.links = links;
    self->state.clock = clock;
    self->send(links.introspection,
               ActorRegistered{"job", "job", self->address(), caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](ObjectsRelisted& event) {
          ++self->state.handled;
          on_relist(self, event);
        },
        [self](ObjectChanged& event) {
          ++self->state.handled;
          on_change(self, event.kind, event.object, event.deleted);
        },
        [self](JobTick) {
          auto& st = self->state;
          ++st.handled;
          st.retry_scheduled = false;
          auto keys = std::move(st.retry);
          st.retry.clear();
          for (const auto& key : keys) reconcile(self, key);
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          json::object o;
          o["jobs"] = st.jobs.size();
          o["workloads"] = st.workloads.size();
          o["writesInFlight"] = st.in_flight.size();
          o["writes"] = st.writes;
          o["failures"] = st.failures;
          return ActorInfo{"job", "job", self->mailbox().size(), st.handled, json::dump(o)};
        },
    };
  });
}

}  // namespace kueuepp::actors

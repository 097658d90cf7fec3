#include "cmd/perf/generator.hpp"

#include <chrono>
#include <mutex>
#include <vector>

#include "cmd/perf/api_gate.hpp"
#include "cmd/perf/object_builders.hpp"
#include "kube/client/client.hpp"

namespace kueuepp::cmd::perf {

namespace resources = kube::client::resources;
using kube::client::ResourceDescriptor;

struct Generator::State : std::enable_shared_from_this<Generator::State> {
  State(kube::client::Client& c, const GeneratorConfig& cfg, Clock clk, std::size_t max_in_flight, WorkloadMix m)
      : client(c), config(cfg), plan(plan_cohorts(config)), gate(max_in_flight), clock(std::move(clk)), mix(m) {}

  kube::client::Client& client;
  const GeneratorConfig config;
  const std::vector<CohortPlan> plan;  // points into `config`
  ApiGate gate;
  Clock clock;
  const WorkloadMix mix;

  mutable std::mutex mu;
  bool stopped = false;
  GeneratorStatus st;
  std::int64_t active_tasks = 0;

  bool is_stopped() const {
    std::lock_guard lock(mu);
    return stopped;
  }

  void begin_task() {
    std::lock_guard lock(mu);
    ++active_tasks;
  }

  void end_task() {
    std::lock_guard lock(mu);
    if (--active_tasks == 0) {
      st.done = true;
      st.finished_at = clock();
    }
  }

  void failed(std::string message) {
    std::lock_guard lock(mu);
    if (st.error.empty()) st.error = std::move(message);
    stopped = true;
    st.done = true;
    st.finished_at = clock();
  }

  /// Creates one object; on success runs `then` (which continues the current task), on
  /// failure (or once stopped) ends the current task.
  void create(const ResourceDescriptor* resource, json::value doc, bool workload, std::function<void()> then) {
    const bool jobset = resource == &resources::kJobSet;
    if (is_stopped()) {
      end_task();
      return;
    }
    auto self = shared_from_this();
    gate.submit([self, resource, doc = std::move(doc), workload, jobset, then = std::move(then)](ApiGate::Release release) mutable {
      if (self->is_stopped()) {
        release();
        self->end_task();
        return;
      }
      std::string what = std::string(resource->kind) + " " + std::string(json::get_string(doc.as_object()["metadata"], "name"));
      self->client.create(*resource, kube::client::Object(std::move(doc)),
                          [self, release, workload, jobset, then = std::move(then), what](kube::client::Result<kube::client::Object> r) {
                            release();
                            if (!r) {
                              self->failed("creating " + what + ": " + r.error().describe() +
                                           (jobset && r.error().is_not_found()
                                                ? " (does the API server serve JobSets? pass --crds with the JobSet CRD)"
                                                : ""));
                              self->end_task();
                              return;
                            }
                            {
                              std::lock_guard lock(self->mu);
                              ++self->st.objects_created;
                              if (workload) ++self->st.workloads_created;
                              if (jobset) ++self->st.jobsets_created;
                            }
                            then();
                          });
    });
  }

  void run() {
    {
      std::lock_guard lock(mu);
      st.started_at = clock();
      active_tasks = 1;  // the root task
    }
    auto self = shared_from_this();
    create(&resources::kResourceFlavor, resource_flavor_object(config.resource_flavor), false, [self] {
      if (self->mix.jobset_every == 0) {
        self->start_cohorts();
        return;
      }
      self->create_priority_classes(std::make_shared<std::vector<std::int32_t>>(template_priorities(self->config)), 0);
    });
  }

  /// One after the other, then the cohorts (continues the root task).
  void create_priority_classes(std::shared_ptr<std::vector<std::int32_t>> values, std::size_t next) {
    if (next == values->size()) {
      start_cohorts();
      return;
    }
    auto self = shared_from_this();
    create(&resources::kWorkloadPriorityClass, workload_priority_class_object((*values)[next]), false,
           [self, values, next] { self->create_priority_classes(values, next + 1); });
  }

  /// Ends the root task once every cohort's task has begun.
  void start_cohorts() {
    auto self = shared_from_this();
    for (std::size_t ci = 0; ci < plan.size(); ++ci) {
      begin_task();
      create(&resources::kCohort, cohort_object(plan[ci].name), false, [self, ci] {
        for (std::size_t qi = 0; qi < self->plan[ci].queues.size(); ++qi) {
          self->begin_task();
          self->start_queue(self->plan[ci].queues[qi]);
        }
        self->end_task();
      });
    }
    end_task();
  }

  void start_queue(const QueuePlan& q) {
    auto self = shared_from_this();
    const QueuePlan* qp = &q;
    create(&resources::kClusterQueue, cluster_queue_object(*q.set, q.name, q.cohort, config.resource_flavor), false,
           [self, qp] {
             self->create(&resources::kNamespace, namespace_object(qp->name), false, [self, qp] {
               self->create(&resources::kLocalQueue, local_queue_object(qp->name, qp->name, qp->name), false,
                            [self, qp] {
                              for (std::size_t s = 0; s < qp->set->workloads_sets.size(); ++s) {
                                self->begin_task();
                                self->next_workload(qp, s, 0, 0);
                              }
                              self->end_task();
                            });
             });
           });
  }

  /// The workload set's loop: wait the interval, create, repeat.
  void next_workload(const QueuePlan* q, std::size_t set_index, std::int64_t repetition, std::size_t template_index) {
    const WorkloadsSet& set = q->set->workloads_sets[set_index];
    if (repetition >= set.count || is_stopped()) {
      end_task();
      return;
    }
    auto self = shared_from_this();
    auto step = [self, q, set_index, repetition, template_index] {
      const WorkloadsSet& ws = q->set->workloads_sets[set_index];
      const WorkloadTemplate& t = ws.workloads[template_index];
      std::size_t next_template = template_index + 1;
      std::int64_t next_repetition = repetition;
      if (next_template == ws.workloads.size()) {
        next_template = 0;
        ++next_repetition;
      }
      const std::string name = workload_name(t, set_index, repetition, template_index);
      const auto index = repetition * static_cast<std::int64_t>(ws.workloads.size()) +
                         static_cast<std::int64_t>(template_index);
      const bool jobset = self->mix.is_jobset(index);
      self->create(jobset ? &resources::kJobSet : &resources::kWorkload,
                   jobset ? jobset_object(t, name, q->name, q->name) : workload_object(t, name, q->name, q->name),
                   true, [self, q, set_index, next_repetition, next_template] {
                     self->next_workload(q, set_index, next_repetition, next_template);
                   });
    };
    if (set.creation_interval_ms > 0) {
      client.after(std::chrono::milliseconds(set.creation_interval_ms), std::move(step));
    } else {
      client.post(std::move(step));
    }
  }
};

std::shared_ptr<Generator> Generator::start(kube::client::Client& client, const GeneratorConfig& config, Clock clock,
                                            std::size_t max_in_flight, WorkloadMix mix) {
  auto state = std::make_shared<State>(client, config, std::move(clock), max_in_flight, mix);
  state->run();
  return std::make_shared<Generator>(state);
}

GeneratorStatus Generator::status() const {
  std::lock_guard lock(state_->mu);
  return state_->st;
}

void Generator::stop() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopped = true;
  }
  state_->gate.close();
}

}  // namespace kueuepp::cmd::perf

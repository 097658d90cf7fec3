#pragma once

// The base of the job actor tests, one per kind of job: the in-memory API server
// (fake_api.hpp), the writer, introspection and event recorder a job actor talks to, and
// the steps every such test takes: queues and flavors stored, a job actor of a kind
// spawned and given its lists, watch events delivered. Each test keeps what is its
// kind's own (the job's manifest, its pod sets' assignments, where a flavor lands).

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actors/event_recorder.hpp"
#include "actors/introspection_actor.hpp"
#include "actors/job_actor.hpp"
#include "actors/watched_kinds.hpp"
#include "actors/writer_actor.hpp"
#include "kube/json/yaml.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "tests/actors/fake_api.hpp"

namespace kueuepp::actors::testing {

/// A YAML document; a document that does not parse fails the test (and is null).
inline json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value(nullptr);
}

/// A Workload's status once admitted to ClusterQueue cq with `pod_set_assignments` (a
/// YAML flow sequence), as the tree writes it.
inline json::value admitted_status(std::string_view pod_set_assignments) {
  return yaml("{status: {admission: {clusterQueue: cq, podSetAssignments: " + std::string(pod_set_assignments) +
              R"(}, conditions: [
      {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"},
      {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]}})");
}

/// A Workload's status once preempted while admitted (its admission still held).
inline json::value preempted_status() {
  return yaml(R"({status: {conditions: [
      {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"},
      {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"},
      {type: Evicted, status: "True", reason: Preempted, message: preempted, lastTransitionTime: "2026-01-01T00:01:00Z"}]}})");
}

class JobKindActorTest : public DeterministicActorTest {
 protected:
  ~JobKindActorTest() override {
    for (const auto& actor : job_actors_) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  /// LocalQueue `name` of namespace ns, pointing at ClusterQueue cq.
  void put_local_queue(std::string_view name = "user-queue") {
    api_.put(messages::ObjectKind::LocalQueue,
             yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: " + std::string(name) +
                  ", namespace: ns}, spec: {clusterQueue: cq}}"));
  }

  /// ResourceFlavors, each with the node label instance-type of its name.
  void put_flavors(std::initializer_list<std::string_view> flavors = {"on-demand", "spot"}) {
    for (std::string_view flavor : flavors) {
      api_.put(messages::ObjectKind::ResourceFlavor,
               yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: " +
                    std::string(flavor) + "}, spec: {nodeLabels: {instance-type: " + std::string(flavor) + "}}}"));
    }
  }

  /// The writer, introspection and event recorder the job actors share; `clock` is the
  /// decision clock of the recorder and of the job actors spawned after.
  void spawn_links(std::function<core::Time()> clock = [] { return core::Time{}; }) {
    clock_ = std::move(clock);
    introspection_ = spawn_introspection(*system_);
    writer_ = spawn_writer(*system_, api_.transport(), WriterOptions{4});
    events_ = spawn_event_recorder(*system_, writer_, introspection_, clock_);
  }

  /// A job actor of the kind Kueue names `framework` in integrations.frameworks (empty:
  /// the batch/v1 Job actor the controller always runs), which must be `kind`; stopped
  /// with the fixture.
  messages::job_actor spawn_kind(std::string_view framework, messages::ObjectKind kind, JobIntegrationOptions options) {
    JobKind job_kind;
    if (!framework.empty()) {
      auto entry = find_job_kind(framework);
      EXPECT_TRUE(entry.has_value()) << framework;
      if (entry) job_kind = JobKind{&entry->integration(), entry->tag};
    }
    EXPECT_EQ(job_kind.tag, kind);
    auto actor = spawn_job_actor(*system_, std::move(options), JobLinks{writer_, introspection_, events_, messages::metrics_actor{}},
                                 clock_, false, job_kind);
    job_actors_.push_back(actor);
    return actor;
  }

  /// The objects of `kind` as stored, sent as the watch's list.
  void relist(const messages::job_actor& actor, messages::ObjectKind kind) {
    auto listed = api_.list(kind);
    caf::anon_send(actor, messages::ObjectsRelisted{
                              kind, std::make_shared<const std::vector<messages::CachedObject>>(listed.begin(), listed.end())});
  }

  /// The lists of the kinds every job actor watches, then those of `own` (its jobs).
  void relist_all(const messages::job_actor& actor, std::initializer_list<messages::ObjectKind> own) {
    using messages::ObjectKind;
    for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                         ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass}) {
      relist(actor, k);
    }
    for (ObjectKind k : own) relist(actor, k);
  }

  /// The stored object as the watch would deliver it, and everything that follows.
  void deliver(const messages::job_actor& actor, messages::ObjectKind kind, const std::string& ns,
               const std::string& name) {
    caf::anon_send(actor, api_.watch_event(kind, ns, name));
    sched_->run();
  }

  FakeApi api_;
  std::function<core::Time()> clock_;
  messages::introspection_actor introspection_;
  messages::writer_actor writer_;
  messages::event_recorder_actor events_;

 private:
  std::vector<messages::job_actor> job_actors_;
};

}  // namespace kueuepp::actors::testing

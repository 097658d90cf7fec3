// The webhook actor on CAF's test coordinator: it answers from what the watches told
// it (a LocalQueue named "default" appears, goes; a namespace's labels change), and every
// call gets exactly one reply.

#include "actors/webhook_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <gtest/gtest.h>

#include <optional>

#include "actors/webhook_facts.hpp"
#include "kube/json/yaml.hpp"
#include "tests/actors/deterministic_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
namespace wh = kube::webhook;

ObjectPtr object(std::string_view yaml) {
  auto doc = json::parse_yaml(yaml);
  EXPECT_TRUE(doc);
  return std::make_shared<const kube::client::Object>(std::move(*doc));
}

introspection_actor spawn_silent_registry(caf::actor_system& system) {
  return system.spawn([]() -> introspection_actor::behavior_type {
    return {[](ActorRegistered&) {}, [](HttpQuery&) {}};
  });
}

class WebhookActorTest : public DeterministicActorTest {
 protected:
  WebhookActorTest() {
    wh::JobWebhookPolicy policy;
    policy.manage_jobs_without_queue_name = true;
    policy.managed_jobs_namespace_selector = wh::default_managed_jobs_namespace_selector("kueuepp-system");
    registry_ = spawn_silent_registry(*system_);
    actor_ = spawn_webhook_actor(*system_, policy, registry_);
    sched_->run();
  }
  ~WebhookActorTest() override {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(registry_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  void relist(ObjectKind kind, std::vector<CachedObject> items) {
    caf::anon_send(actor_, ObjectsRelisted{kind, std::make_shared<const std::vector<CachedObject>>(std::move(items))});
    sched_->run();
  }
  void change(ObjectKind kind, bool deleted, std::string_view yaml) {
    ObjectChanges batch{kind, {ObjectChanged{kind, deleted, CachedObject(object(yaml))}}};
    caf::anon_send(actor_, std::move(batch));
    sched_->run();
  }

  /// The response to creating an unlabelled Job in `ns`; counts the replies.
  wh::AdmissionResponse create_job(std::string ns) {
    wh::AdmissionRequest r;
    r.uid = "u";
    r.operation = wh::Operation::Create;
    r.ns = std::move(ns);
    r.object = json::object{{"metadata", json::object{{"name", "j"}}}, {"spec", json::object{}}};
    std::optional<wh::AdmissionResponse> answer;
    int replies = 0;
    caf::anon_send(actor_, AdmissionCall{wh::WebhookKind::MutateJob, std::move(r), [&](wh::AdmissionResponse a) {
                                           ++replies;
                                           answer = std::move(a);
                                         }});
    sched_->run();
    EXPECT_EQ(replies, 1);
    return answer.value_or(wh::AdmissionResponse{});
  }

  static bool labels_default_queue(const wh::AdmissionResponse& a) {
    return json::dump(json::value(a.patch)).find("queue-name") != std::string::npos;
  }

  introspection_actor registry_;
  webhook_actor actor_;
};

TEST_F(WebhookActorTest, AnswersFromWhatTheWatchesSaid) {
  relist(ObjectKind::Namespace, {object("{metadata: {name: team, labels: {kubernetes.io/metadata.name: team}}}")});
  relist(ObjectKind::LocalQueue, {});
  relist(ObjectKind::WorkloadPriorityClass, {});
  EXPECT_FALSE(labels_default_queue(create_job("team")));
  EXPECT_FALSE(create_job("team").patch.empty());  // managed without a queue name: held suspended

  change(ObjectKind::LocalQueue, false, "{metadata: {name: default, namespace: team}, spec: {clusterQueue: cq}}");
  EXPECT_TRUE(labels_default_queue(create_job("team")));
  EXPECT_FALSE(labels_default_queue(create_job("other")));

  change(ObjectKind::LocalQueue, true, "{metadata: {name: default, namespace: team}}");
  EXPECT_FALSE(labels_default_queue(create_job("team")));

  // kueuepp's own namespace is not managed (the default managedJobsNamespaceSelector).
  change(ObjectKind::Namespace, false, "{metadata: {name: kueuepp-system, labels: {kubernetes.io/metadata.name: kueuepp-system}}}");
  EXPECT_TRUE(create_job("kueuepp-system").patch.empty());
}

TEST(WebhookFacts, RelistReplacesAndOtherKindsAreIgnored) {
  WebhookFacts facts;
  EXPECT_FALSE(facts.synced());
  facts.relist(ObjectKind::LocalQueue, {CachedObject(object("{metadata: {name: default, namespace: a}}")),
                                        CachedObject(object("{metadata: {name: other, namespace: b}}"))});
  EXPECT_TRUE(facts.default_local_queue_exists("a"));
  EXPECT_FALSE(facts.default_local_queue_exists("b"));
  facts.relist(ObjectKind::LocalQueue, {});
  EXPECT_FALSE(facts.default_local_queue_exists("a"));
  facts.apply(ObjectKind::WorkloadPriorityClass, false, CachedObject(object("{metadata: {name: default}}")));
  EXPECT_TRUE(facts.default_priority_class_exists());
  facts.apply(ObjectKind::WorkloadPriorityClass, true, CachedObject(object("{metadata: {name: default}}")));
  EXPECT_FALSE(facts.default_priority_class_exists());
  facts.apply(ObjectKind::ClusterQueue, false, CachedObject(object("{metadata: {name: default}}")));
  EXPECT_EQ(facts.namespace_labels("x"), nullptr);
  facts.relist(ObjectKind::Namespace, {CachedObject(object("{metadata: {name: x, labels: {a: b}}}"))});
  facts.relist(ObjectKind::WorkloadPriorityClass, {});
  EXPECT_TRUE(facts.synced());
  ASSERT_NE(facts.namespace_labels("x"), nullptr);
  EXPECT_EQ(facts.namespace_labels("x")->at("a"), "b");
}

}  // namespace
}  // namespace kueuepp::actors

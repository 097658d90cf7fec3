// The introspection answers of a tree: a ClusterQueue's pending workloads one page at a
// time, and a workload's facts read from its cached text.

#include <gtest/gtest.h>

#include "actors/explain_json.hpp"
#include "kube/json/json.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::actors {
namespace {

using core::testing::cpu_workload;

struct Fixture {
  core::Engine engine;
  Fixture() {
    core::testing::apply_one_queue(engine, 0);  // no quota: everything stays pending
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(engine.apply(cpu_workload("w" + std::to_string(i), 1, 0, 10 + i, "lq")));
  }
  json::object ask(messages::Explain q, std::string_view text = {}) const {
    auto reply = explain(engine, q, "tree", text);
    EXPECT_EQ(reply.status, 200) << reply.json;
    return json::parse(reply.json)->as_object();
  }
};

messages::Explain page(std::size_t offset, std::size_t limit) {
  messages::Explain q{messages::Explain::What::ClusterQueue, "cq"};
  q.offset = offset;
  q.limit = limit;
  return q;
}

std::vector<std::string> keys(const json::object& o) {
  std::vector<std::string> out;
  for (const auto& p : o.at("pending").as_array()) out.emplace_back(p.as_object().at("workload").as_string());
  return out;
}

TEST(ExplainJson, ClusterQueuePendingComesOnePageAtATimeInQueueOrder) {
  Fixture f;
  auto first = f.ask(page(0, 2));
  EXPECT_EQ(keys(first), (std::vector<std::string>{"default/w0", "default/w1"}));
  EXPECT_EQ(first.at("pendingWorkloads").to_number<std::uint64_t>(), 5u);
  auto middle = f.ask(page(2, 2));
  EXPECT_EQ(keys(middle), (std::vector<std::string>{"default/w2", "default/w3"}));
  const auto& item = middle.at("pending").as_array()[0].as_object();
  EXPECT_EQ(item.at("position").to_number<std::uint64_t>(), 2u);
  EXPECT_EQ(item.at("localQueue").as_string(), "lq");
  EXPECT_TRUE(item.contains("reason"));
  EXPECT_EQ(keys(f.ask(page(4, 2))), (std::vector<std::string>{"default/w4"}));
  EXPECT_TRUE(keys(f.ask(page(9, 2))).empty());
}

TEST(ExplainJson, APageIsNeverLargerThanTheMaximum) {
  Fixture f;
  auto all = f.ask(page(0, 1'000'000));
  EXPECT_EQ(keys(all).size(), 5u);
  EXPECT_LE(messages::Explain::kMaxPendingPage, 2000u);
}

TEST(ExplainJson, AWorkloadCarriesItsCreationAndConditionsFromItsText) {
  Fixture f;
  messages::Explain q{messages::Explain::What::Workload, "default/w1"};
  auto o = f.ask(q, R"({"metadata":{"name":"w1","creationTimestamp":"2026-01-01T00:00:11Z"},)"
                    R"("spec":{"queueName":"lq","priority":3},"status":{"conditions":[{"type":"QuotaReserved",)"
                    R"("status":"False","reason":"Pending","message":"m","lastTransitionTime":"2026-01-01T00:00:12Z",)"
                    R"("observedGeneration":1}]}})");
  EXPECT_EQ(o.at("createdAt").as_string(), "2026-01-01T00:00:11Z");
  EXPECT_EQ(o.at("localQueue").as_string(), "lq");
  const auto& c = o.at("conditions").as_array().at(0).as_object();
  EXPECT_EQ(c.at("lastTransitionTime").as_string(), "2026-01-01T00:00:12Z");
  EXPECT_FALSE(c.contains("observedGeneration"));
  // Malformed text is left out, not a failure.
  auto plain = f.ask(q, "{not json");
  EXPECT_FALSE(plain.contains("createdAt"));
}

}  // namespace
}  // namespace kueuepp::actors

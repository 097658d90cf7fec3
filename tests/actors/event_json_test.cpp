// The Events the recorder writes as text are the documents Kueue's recorders create.

#include "actors/event_json.hpp"

#include <gtest/gtest.h>

#include "kube/json/json.hpp"

namespace kueuepp::actors {
namespace {

EventAction created_at(std::string_view stamp) {
  EventAction a;
  a.kind = EventAction::Kind::Create;
  a.event_name = "w.17f0c2a9b3d4e5f6";
  a.first = *core::parse_rfc3339(stamp);
  a.last = a.first;
  return a;
}

TEST(EventJson, ANamespacedObjectsEventIsTheDocumentKueueWrites) {
  messages::RecordEvent e;
  e.kind = messages::ObjectKind::Workload;
  e.ns = "team-a";
  e.name = "job-x-1a2b3";
  e.uid = "u-1";
  e.reason = "QuotaReserved";
  e.message = "Quota reserved in ClusterQueue \"cq\"\n\t\\ wait time since queued was 3s \x01";
  auto doc = json::parse(new_event_json(e, created_at("2026-01-01T00:00:05Z")));
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  auto expected = json::parse(R"({"apiVersion":"v1","kind":"Event",
      "metadata":{"name":"w.17f0c2a9b3d4e5f6","namespace":"team-a"},
      "involvedObject":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","name":"job-x-1a2b3","uid":"u-1","namespace":"team-a"},
      "reason":"QuotaReserved",
      "message":"Quota reserved in ClusterQueue \"cq\"\n\t\\ wait time since queued was 3s \u0001",
      "type":"Normal","source":{"component":"kueue-admission"},"reportingComponent":"kueue-admission",
      "firstTimestamp":"2026-01-01T00:00:05Z","lastTimestamp":"2026-01-01T00:00:05Z","count":1})");
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(json::dump(*doc), json::dump(*expected));
}

TEST(EventJson, AClusterScopedObjectsWarningGoesToTheDefaultNamespace) {
  messages::RecordEvent e;
  e.kind = messages::ObjectKind::ClusterQueue;
  e.name = "cq";
  e.uid = "u-2";
  e.warning = true;
  e.reason = "Misconfigured";
  e.message = "m";
  auto doc = json::parse(new_event_json(e, created_at("2026-01-01T00:00:00Z")));
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(json::find_path(*doc, {"metadata", "namespace"})->as_string(), "default");
  EXPECT_EQ(json::find_path(*doc, {"involvedObject", "namespace"}), nullptr);
  EXPECT_EQ(json::find_path(*doc, {"involvedObject", "kind"})->as_string(), "ClusterQueue");
  EXPECT_EQ(json::get_string(*doc, "type"), "Warning");
}

}  // namespace
}  // namespace kueuepp::actors

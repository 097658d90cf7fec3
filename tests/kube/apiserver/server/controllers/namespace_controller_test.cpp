// Namespace termination: deleting a namespace marks it Terminating, refuses new content,
// deletes everything in it (built-in and custom resources), waits for objects held by
// finalizers, and then removes the namespace itself.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

json::value config_map(std::string_view name) {
  return json::object{{"metadata", json::object{{"name", name}}}, {"data", json::object{{"k", "v"}}}};
}

class ApiServerNamespaceTermination : public ServerTest {};

TEST_F(ApiServerNamespaceTermination, DeletingANamespaceDeletesItsObjects) {
  make_namespace("doomed");
  make_namespace("kept");
  create("/apis/batch/v1/namespaces/doomed/jobs", job("j1"));
  create("/apis/batch/v1/namespaces/doomed/jobs", job("j2"));
  create("/api/v1/namespaces/doomed/configmaps", config_map("cm"));
  create("/api/v1/namespaces/kept/configmaps", config_map("cm"));

  json::value ns = expect(200, api().del("/api/v1/namespaces/doomed"));
  EXPECT_EQ(str(ns, "/status/phase"), "Terminating");
  EXPECT_FALSE(str(ns, "/metadata/deletionTimestamp").empty());

  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed"));
  EXPECT_EQ(api().get("/apis/batch/v1/namespaces/doomed/jobs/j1").status, 404);
  EXPECT_TRUE(item_names(get_ok("/apis/batch/v1/namespaces/doomed/jobs")).empty());
  EXPECT_TRUE(item_names(get_ok("/api/v1/namespaces/doomed/configmaps")).empty());
  // Other namespaces are untouched.
  EXPECT_EQ(api().get("/api/v1/namespaces/kept/configmaps/cm").status, 200);

  // The name can be used again, and the new namespace starts empty.
  make_namespace("doomed");
  EXPECT_TRUE(item_names(get_ok("/apis/batch/v1/namespaces/doomed/jobs")).empty());
}

TEST_F(ApiServerNamespaceTermination, FinalizersInsideHoldTheNamespace) {
  make_namespace("doomed");
  json::value held = config_map("held");
  held.as_object()["metadata"].as_object()["finalizers"] = json::array{"example.com/hold"};
  create("/api/v1/namespaces/doomed/configmaps", held);
  create("/api/v1/namespaces/doomed/configmaps", config_map("free"));
  ASSERT_EQ(api().del("/api/v1/namespaces/doomed").status, 200);

  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed/configmaps/free"));
  json::value cm = get_ok("/api/v1/namespaces/doomed/configmaps/held");
  EXPECT_FALSE(str(cm, "/metadata/deletionTimestamp").empty());
  EXPECT_EQ(str(get_ok("/api/v1/namespaces/doomed"), "/status/phase"), "Terminating");

  // No new content while terminating.
  json::value refused = expect(403, api().post("/api/v1/namespaces/doomed/configmaps", config_map("late")));
  EXPECT_EQ(str(refused, "/reason"), "Forbidden");
  EXPECT_NE(str(refused, "/message").find("being terminated"), std::string::npos) << str(refused, "/message");

  ASSERT_EQ(api().patch("/api/v1/namespaces/doomed/configmaps/held",
                        json::object{{"metadata", json::object{{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed"));
}

class ApiServerNamespaceTerminationWithCustomResources : public KueueServerTest {};

TEST_F(ApiServerNamespaceTerminationWithCustomResources, CustomResourcesGoToo) {
  make_namespace("doomed");
  create(std::string(kKueue) + "/namespaces/doomed/workloads", workload("wl"));
  create(std::string(kKueue) + "/namespaces/doomed/localqueues",
         json::object{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "LocalQueue"},
                      {"metadata", json::object{{"name", "lq"}}},
                      {"spec", json::object{{"clusterQueue", "cq"}}}});
  create(std::string(kKueue) + "/clusterqueues", cluster_queue("cq"));
  ASSERT_EQ(api().del("/api/v1/namespaces/doomed").status, 200);
  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed"));
  EXPECT_TRUE(item_names(get_ok(std::string(kKueue) + "/workloads")).empty());
  EXPECT_TRUE(item_names(get_ok(std::string(kKueue) + "/localqueues")).empty());
  // Cluster-scoped objects are not in a namespace.
  EXPECT_EQ(api().get(std::string(kKueue) + "/clusterqueues/cq").status, 200);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

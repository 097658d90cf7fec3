// The visibility API's paths, page options and documents, in Kueue's shapes.

#include <gtest/gtest.h>

#include "kube/json/json.hpp"
#include "kube/visibility/visibility_api.hpp"
#include "kube/visibility/what_if_api.hpp"

namespace kueuepp::kube::visibility {
namespace {

json::value parsed(const std::string& text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v ? *v : json::value{};
}

TEST(VisibilityApi, RoutesKueuesPaths) {
  struct Case {
    std::string path;
    RouteKind kind;
    std::string version, ns, name;
  };
  for (const Case& c : std::vector<Case>{
           {"/apis", RouteKind::GroupList, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io", RouteKind::Group, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/", RouteKind::Group, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2", RouteKind::ResourceList, "v1beta2", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1beta1", RouteKind::ResourceList, "v1beta1", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1alpha1", RouteKind::Unknown, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads",
            RouteKind::ClusterQueuePending, "v1beta2", "", "cq"},
           {"/apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/team/localqueues/lq/pendingworkloads",
            RouteKind::LocalQueuePending, "v1beta1", "team", "lq"},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/team/localqueues/lq/whatif",
            RouteKind::LocalQueueWhatIf, "v1beta2", "team", "lq"},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/whatif", RouteKind::Unknown, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq", RouteKind::Unknown, "", "", ""},
           {"/apis/visibility.kueue.x-k8s.io/v1beta2/localqueues/lq/pendingworkloads", RouteKind::Unknown, "", "", ""},
           {"/apis/kueue.x-k8s.io/v1beta2", RouteKind::Unknown, "", "", ""},
           {"/healthz", RouteKind::Health, "", "", ""},
           {"/", RouteKind::Unknown, "", "", ""},
       }) {
    Route r = route_of(c.path);
    EXPECT_EQ(r.kind, c.kind) << c.path;
    if (r.kind == RouteKind::Unknown) continue;
    EXPECT_EQ(r.version, c.version) << c.path;
    EXPECT_EQ(r.ns, c.ns) << c.path;
    EXPECT_EQ(r.name, c.name) << c.path;
  }
}

TEST(VisibilityApi, PageOptionsDefaultAndBoundAsKueue) {
  struct Case {
    std::string query;
    std::int64_t limit, offset;
  };
  for (const Case& c : std::vector<Case>{{"", 1000, 0},
                                         {"limit=1&offset=1", 1, 1},
                                         {"limit=0", 1000, 0},
                                         {"limit=-4&offset=-2", 0, 0},
                                         {"limit=200000", 100000, 0},
                                         {"offset=5&limit=%32", 2, 5},
                                         {"limit=3&limit=7", 3, 0},
                                         {"watch=1", 1000, 0}}) {
    auto page = parse_page_query(c.query);
    ASSERT_TRUE(page.has_value()) << c.query;
    EXPECT_EQ(page->limit, c.limit) << c.query;
    EXPECT_EQ(page->offset, c.offset) << c.query;
  }
  for (const std::string bad : {"limit=abc", "offset=1.5", "limit=", "limit=99999999999999999999"}) {
    EXPECT_FALSE(parse_page_query(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_page_query("limit=abc").error().message, "strconv.ParseInt: parsing \"abc\": invalid syntax");
}

TEST(VisibilityApi, SummaryHasKueuesFields) {
  PendingWorkloadItem item;
  item.name = "job-sample-job-abcde";
  item.ns = "default";
  item.owner_references.push_back(OwnerReference{"batch/v1", "Job", "sample-job", "u-1"});
  item.creation_timestamp = "2026-01-02T03:04:05Z";
  item.priority = 7;
  item.local_queue = "user-queue";
  item.position_in_cluster_queue = 4;
  item.position_in_local_queue = 2;
  json::value v = parsed(encode_summary("v1beta1", {item}));
  EXPECT_EQ(json::get_string(v, "kind"), "PendingWorkloadsSummary");
  EXPECT_EQ(json::get_string(v, "apiVersion"), "visibility.kueue.x-k8s.io/v1beta1");
  const auto& items = v.at("items").as_array();
  ASSERT_EQ(items.size(), 1u);
  const auto& w = items[0];
  EXPECT_EQ(w.at("metadata").at("name"), "job-sample-job-abcde");
  EXPECT_EQ(w.at("metadata").at("namespace"), "default");
  EXPECT_EQ(w.at("metadata").at("creationTimestamp"), "2026-01-02T03:04:05Z");
  EXPECT_EQ(w.at("metadata").at("ownerReferences").at(0).at("kind"), "Job");
  EXPECT_EQ(w.at("metadata").at("ownerReferences").at(0).at("uid"), "u-1");
  EXPECT_EQ(w.at("priority"), 7);
  EXPECT_EQ(w.at("localQueueName"), "user-queue");
  EXPECT_EQ(w.at("positionInClusterQueue"), 4);
  EXPECT_EQ(w.at("positionInLocalQueue"), 2);
  // No items is an empty list, never null: kubectl and kueuectl read `items`.
  EXPECT_TRUE(parsed(encode_summary("v1beta2", {})).at("items").as_array().empty());
}

TEST(VisibilityApi, DiscoveryDocuments) {
  json::value group = parsed(encode_group());
  EXPECT_EQ(json::get_string(group, "kind"), "APIGroup");
  EXPECT_EQ(group.at("preferredVersion").at("version"), "v1beta2");
  EXPECT_EQ(group.at("versions").as_array().size(), 2u);
  json::value list = parsed(encode_group_list());
  EXPECT_EQ(list.at("groups").at(0).at("name"), "visibility.kueue.x-k8s.io");
  json::value resources = parsed(encode_resource_list("v1beta2"));
  EXPECT_EQ(json::get_string(resources, "kind"), "APIResourceList");
  EXPECT_EQ(json::get_string(resources, "groupVersion"), "visibility.kueue.x-k8s.io/v1beta2");
  std::vector<std::string> names;
  for (const auto& r : resources.at("resources").as_array()) {
    names.emplace_back(r.at("name").as_string());
    if (r.at("name") == "localqueues/pendingworkloads") {
      EXPECT_TRUE(r.at("namespaced").as_bool());
      EXPECT_EQ(r.at("verbs").at(0), "get");
    }
    if (r.at("name") == "localqueues/whatif") {
      EXPECT_TRUE(r.at("namespaced").as_bool());
      EXPECT_EQ(r.at("verbs"), json::parse(R"(["create"])").value());
      EXPECT_EQ(r.at("kind"), "WhatIfResult");
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"clusterqueues", "clusterqueues/pendingworkloads", "localqueues",
                                             "localqueues/pendingworkloads", "localqueues/whatif"}));
}

TEST(VisibilityApi, StatusBodiesAsTheApiServerWordsThem) {
  json::value nf = parsed(status_not_found("clusterqueue", "nope"));
  EXPECT_EQ(nf.at("code"), 404);
  EXPECT_EQ(nf.at("reason"), "NotFound");
  EXPECT_EQ(nf.at("message"), "clusterqueue.visibility.kueue.x-k8s.io \"nope\" not found");
  EXPECT_EQ(nf.at("details").at("kind"), "clusterqueue");
  json::value fb = parsed(status_forbidden("bob", "get", "clusterqueues", "pendingworkloads", "cq", "", ""));
  EXPECT_EQ(fb.at("code"), 403);
  EXPECT_EQ(fb.at("message"),
            "clusterqueues.visibility.kueue.x-k8s.io \"cq\" is forbidden: User \"bob\" cannot get resource "
            "\"clusterqueues/pendingworkloads\" in API group \"visibility.kueue.x-k8s.io\" at the cluster scope");
  json::value fb_ns = parsed(status_forbidden("bob", "get", "localqueues", "pendingworkloads", "lq", "team", "no rule"));
  EXPECT_EQ(fb_ns.at("message"),
            "localqueues.visibility.kueue.x-k8s.io \"lq\" is forbidden: User \"bob\" cannot get resource "
            "\"localqueues/pendingworkloads\" in API group \"visibility.kueue.x-k8s.io\" in the namespace \"team\": "
            "no rule");
  json::value un = parsed(status_unauthorized());
  EXPECT_EQ(un.at("code"), 401);
  EXPECT_EQ(un.at("reason"), "Unauthorized");
}

TEST(VisibilityApi, WhatIfResultSaysOutcomeVictimsAndEstimate) {
  WhatIfResult r;
  r.asked_at = core::time_from_seconds(1700000000);
  r.answer.workload = "team/job-sample-3a2b1";
  r.answer.cluster_queue = "cq";
  r.answer.outcome = core::WhatIfAnswer::Outcome::Preempting;
  r.answer.victims.push_back({"team/low", "cq", "InClusterQueue", "Preempted to accommodate a workload ..."});
  r.answer.pending = {"WaitingForPreemptedWorkloads", "Pending the preemption of 1 workload(s)"};
  r.answer.position_in_cluster_queue = 0;
  r.answer.position_in_local_queue = 0;
  core::Admission a;
  a.cluster_queue = "cq";
  core::PodSetAssignment ps;
  ps.name = "main";
  ps.flavors["cpu"] = "default-flavor";
  ps.resource_usage["cpu"] = core::Quantity::from_units(2);
  ps.count = 1;
  a.pod_set_assignments.push_back(ps);
  r.answer.admission = a;
  json::value doc = parsed(encode_what_if_result("v1beta2", r));
  EXPECT_EQ(doc.at("kind"), "WhatIfResult");
  EXPECT_EQ(doc.at("apiVersion"), "visibility.kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(doc.at("metadata").at("namespace"), "team");
  EXPECT_EQ(doc.at("metadata").at("name"), "job-sample-3a2b1");
  const auto& st = doc.at("status");
  EXPECT_EQ(st.at("outcome"), "Preempting");
  EXPECT_EQ(st.at("askedAt"), "2023-11-14T22:13:20Z");
  EXPECT_EQ(st.at("preemptions").at(0).at("workload").at("name"), "low");
  EXPECT_EQ(st.at("preemptions").at(0).at("reason"), "InClusterQueue");
  EXPECT_EQ(st.at("admission").at("podSetAssignments").at(0).at("flavors").at("cpu"), "default-flavor");
  EXPECT_EQ(st.at("admission").at("podSetAssignments").at(0).at("resourceUsage").at("cpu"), "2");
  EXPECT_EQ(st.at("pending").at("reason"), "WaitingForPreemptedWorkloads");
  EXPECT_FALSE(st.as_object().contains("estimatedStart"));

  r.answer.outcome = core::WhatIfAnswer::Outcome::Pending;
  r.answer.victims.clear();
  r.answer.admission.reset();
  r.answer.estimate = core::StartEstimate{core::time_from_seconds(1700000100), false, true, 2};
  json::value pending = parsed(encode_what_if_result("v1beta1", r));
  EXPECT_EQ(pending.at("status").at("estimatedStart").at("time"), "2023-11-14T22:15:00Z");
  EXPECT_EQ(pending.at("status").at("estimatedStart").at("basis"), parsed(R"(["AverageRuntime"])"));
  EXPECT_EQ(pending.at("status").at("estimatedStart").at("workloadsEndingFirst"), 2);
  r.answer.estimate.reset();
  r.answer.estimate_note = "no running workload has a maximum execution time or a ClusterQueue average runtime";
  json::value unknown = parsed(encode_what_if_result("v1beta2", r));
  EXPECT_EQ(unknown.at("status").at("estimateUnavailable"), json::value(r.answer.estimate_note));
}

}  // namespace
}  // namespace kueuepp::kube::visibility

// A merge patch to a custom resource's status that names status alone leaves everything
// else a copy of the stored object, and the write path then skips what would only
// confirm it (reverting the rest, comparing it, validating it again). The same writes
// sent with one more member (apiVersion, as stored: no change) take the full path. Both
// must answer alike, valid or not, no-op or not: the two Workloads below get the same
// sequence of status patches, one each way, and every answer is compared.

#include <string>
#include <vector>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kWorkloads = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team/workloads";

json::value condition(std::string_view type, std::string_view status, std::string_view message) {
  return json::object{{"type", type},     {"status", status},
                      {"reason", "R"},    {"message", message},
                      {"lastTransitionTime", "2024-01-01T00:00:00Z"}};
}

json::value admission(int count) {
  json::array assignments;
  for (int i = 0; i < count; ++i) {
    assignments.push_back(json::object{{"name", i == 0 ? "main" : "extra"},
                                       {"flavors", json::object{{"cpu", "default"}}},
                                       {"resourceUsage", json::object{{"cpu", "1"}}},
                                       {"count", 1}});
  }
  return json::object{{"clusterQueue", "cq"}, {"podSetAssignments", std::move(assignments)}};
}

/// Statuses valid and not: CEL rules of the root (assignments must match the pod sets
/// once quota is reserved) and of status (clusterName against nominatedClusterNames, and
/// a transition rule: clusterName must not change), schema errors, repeats (no-ops).
std::vector<json::value> statuses() {
  std::vector<json::value> out;
  out.push_back(json::object{{"conditions", json::array{condition("QuotaReserved", "False", "pending")}}});
  out.push_back(json::object{{"conditions", json::array{condition("QuotaReserved", "False", "pending")}}});
  out.push_back(json::object{{"admission", admission(1)},
                             {"conditions", json::array{condition("QuotaReserved", "True", "reserved")}}});
  out.push_back(json::object{{"admission", admission(2)},
                             {"conditions", json::array{condition("QuotaReserved", "True", "reserved")}}});
  out.push_back(json::object{{"admission", admission(1)},
                             {"conditions", json::array{condition("QuotaReserved", "True", "reserved again")}}});
  out.push_back(json::object{{"admission", admission(1)},
                             {"conditions", json::array{condition("QuotaReserved", "True", "reserved again")}}});
  out.push_back(json::object{{"clusterName", "a"}, {"nominatedClusterNames", json::array{"a", "b"}}});
  out.push_back(json::object{{"clusterName", "a"}});
  out.push_back(json::object{{"clusterName", "b"}});
  out.push_back(json::object{{"clusterName", "a"}, {"conditions", json::array{json::object{{"type", "X"}}}}});
  out.push_back(json::object{{"clusterName", "a"}, {"conditions", json::array{condition("Finished", "True", "done")}}});
  out.push_back(json::object{{"clusterName", "a"}, {"conditions", json::array{condition("Finished", "True", "done")}}});
  return out;
}

/// An answer with the Workload's own identity taken out (name, uid, versions, times).
std::string normalized(const HttpReply& reply, std::string_view name) {
  std::string body = reply.body;
  auto replace_all = [&body](std::string_view from, std::string_view to) {
    for (std::size_t at = body.find(from); at != std::string::npos; at = body.find(from, at + to.size())) {
      body.replace(at, from.size(), to);
    }
  };
  replace_all(name, "NAME");  // the names appear nowhere else
  auto parsed = json::parse(body);
  if (!parsed || !parsed->is_object()) return std::to_string(reply.status) + " " + body;
  json::value v = std::move(*parsed);
  if (json::value* meta = v.as_object().if_contains("metadata"); meta != nullptr && meta->is_object()) {
    for (std::string_view k : {"uid", "resourceVersion", "creationTimestamp"}) meta->as_object().erase(k);
    if (json::value* mf = meta->as_object().if_contains("managedFields"); mf != nullptr && mf->is_array()) {
      for (auto& e : mf->as_array()) e.as_object().erase("time");
    }
  }
  return std::to_string(reply.status) + " " + json::dump(v);
}

class StatusAlone : public KueueServerTest {
 protected:
  void SetUp() override {
    KueueServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create(kWorkloads, workload("fast"));
    create(kWorkloads, workload("slow"));
  }

  HttpReply patch_status(std::string_view name, json::object patch) {
    return api().patch(std::string(kWorkloads) + "/" + std::string(name) + "/status?fieldManager=kueue", patch);
  }
};

TEST_F(StatusAlone, AnswersAsTheFullPathDoes) {
  int stored = 0;
  int refused = 0;
  const std::vector<json::value> all = statuses();
  for (std::size_t i = 0; i < all.size(); ++i) {
    HttpReply fast = patch_status("fast", json::object{{"status", all[i]}});
    HttpReply slow =
        patch_status("slow", json::object{{"apiVersion", "kueue.x-k8s.io/v1beta2"}, {"status", all[i]}});
    ASSERT_EQ(normalized(fast, "fast"), normalized(slow, "slow")) << "status " << i;
    (fast.status == 200 ? stored : refused) += 1;
  }
  // Both kinds of answer were compared.
  EXPECT_GE(stored, 5);
  EXPECT_GE(refused, 3);
  EXPECT_EQ(normalized(api().get(std::string(kWorkloads) + "/fast"), "fast"),
            normalized(api().get(std::string(kWorkloads) + "/slow"), "slow"));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

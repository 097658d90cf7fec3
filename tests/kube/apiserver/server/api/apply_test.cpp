// Server-side apply (application/apply-patch+yaml): create on apply, field managers
// recorded in managedFields, conflicts between managers (409 with FieldManagerConflict
// causes), force, and fields a manager stops applying being removed.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kApply = "application/apply-patch+yaml";
constexpr std::string_view kCm = "/api/v1/namespaces/team/configmaps/cm";

/// The manager names of an object's managedFields with the operation ("alice/Apply").
std::vector<std::string> managers(const json::value& obj) {
  std::vector<std::string> out;
  const json::value* mf = at(obj, "/metadata/managedFields");
  if (mf == nullptr || !mf->is_array()) return out;
  for (const auto& e : mf->as_array()) out.push_back(str(e, "/manager") + "/" + str(e, "/operation"));
  return out;
}

/// The fieldsV1 of `manager`'s entry, serialized ("" when none).
std::string fields_of(const json::value& obj, std::string_view manager) {
  const json::value* mf = at(obj, "/metadata/managedFields");
  if (mf == nullptr || !mf->is_array()) return {};
  for (const auto& e : mf->as_array()) {
    if (str(e, "/manager") == manager) return json::dump(*at(e, "/fieldsV1"));
  }
  return {};
}

class ApiServerApply : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
  HttpReply apply(std::string_view target, std::string_view manager, std::string_view yaml, bool force = false) {
    std::string t = std::string(target) + "?fieldManager=" + std::string(manager) + (force ? "&force=true" : "");
    return api().request("PATCH", t, yaml, kApply);
  }
};

TEST_F(ApiServerApply, CreatesTracksManagersConflictsAndForces) {
  json::value created = expect(201, apply(kCm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '1'\n  shared: alice\n"));
  EXPECT_EQ(str(created, "/data/a"), "1");
  EXPECT_FALSE(str(created, "/metadata/uid").empty());
  EXPECT_EQ(managers(created), std::vector<std::string>{"alice/Apply"});
  EXPECT_NE(fields_of(created, "alice").find(R"("f:shared")"), std::string::npos) << fields_of(created, "alice");

  // Re-applying the same configuration writes nothing.
  json::value again = expect(200, apply(kCm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '1'\n  shared: alice\n"));
  EXPECT_EQ(rv_of(again), rv_of(created));

  // Bob applies a field alice owns: conflict, nothing written.
  HttpReply conflict = apply(kCm, "bob", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  shared: bob\n  b: '2'\n");
  json::value status = expect(409, conflict);
  EXPECT_EQ(str(status, "/reason"), "Conflict");
  EXPECT_NE(str(status, "/message").find("Apply failed with 1 conflict"), std::string::npos) << str(status, "/message");
  EXPECT_NE(str(status, "/message").find("alice"), std::string::npos);
  EXPECT_EQ(str(status, "/details/causes/0/reason"), "FieldManagerConflict");
  EXPECT_EQ(str(status, "/details/causes/0/field"), ".data.shared");
  EXPECT_EQ(rv_of(get_ok(kCm)), rv_of(created));

  // Applying the same value is no conflict: both own it.
  json::value shared = expect(200, apply(kCm, "bob", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  shared: alice\n  b: '2'\n"));
  EXPECT_EQ(str(shared, "/data/b"), "2");
  EXPECT_EQ(managers(shared), (std::vector<std::string>{"alice/Apply", "bob/Apply"}));

  // With force, bob takes the field over.
  json::value forced = expect(200, apply(kCm, "bob", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  shared: bob\n  b: '2'\n", true));
  EXPECT_EQ(str(forced, "/data/shared"), "bob");
  EXPECT_EQ(fields_of(forced, "alice").find(R"("f:shared")"), std::string::npos) << fields_of(forced, "alice");
  EXPECT_NE(fields_of(forced, "bob").find(R"("f:shared")"), std::string::npos);

  // Alice stops applying `a`: it goes (she was its only manager); bob's fields stay.
  json::value dropped = expect(200, apply(kCm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  c: '3'\n"));
  EXPECT_EQ(at(dropped, "/data/a"), nullptr);
  EXPECT_EQ(str(dropped, "/data/c"), "3");
  EXPECT_EQ(str(dropped, "/data/shared"), "bob");
  EXPECT_EQ(str(dropped, "/data/b"), "2");
  EXPECT_EQ(json::dump(get_ok(kCm)), json::dump(dropped));
}

TEST_F(ApiServerApply, UpdatesByOtherWritersConflictToo) {
  create("/api/v1/namespaces/team/configmaps",
         json::object{{"metadata", json::object{{"name", "cm"}}}, {"data", json::object{{"k", "from-put"}}}});
  json::value updated = get_ok(kCm);
  EXPECT_EQ(managers(updated).size(), 1u);
  EXPECT_EQ(managers(updated)[0].substr(managers(updated)[0].find('/')), "/Update");
  json::value status = expect(409, apply(kCm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: mine\n"));
  EXPECT_EQ(str(status, "/details/causes/0/field"), ".data.k");
  EXPECT_EQ(str(get_ok(kCm), "/data/k"), "from-put");
}

TEST_F(ApiServerApply, RequestErrors) {
  // fieldManager is required: an Invalid PatchOptions (trace e08).
  EXPECT_EQ(api().request("PATCH", kCm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n", kApply).status, 422);
  // The name must match the URL.
  EXPECT_EQ(apply(kCm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n").status, 400);
  // Not YAML / not an object.
  EXPECT_EQ(apply(kCm, "alice", "a: [unclosed").status, 400);
  EXPECT_EQ(apply(kCm, "alice", "- 1\n- 2\n").status, 400);
  // Another kind.
  EXPECT_EQ(apply(kCm, "alice", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cm\n").status, 400);
  EXPECT_EQ(api().get(kCm).status, 404);
}

TEST_F(ApiServerApply, AppliesAJob) {
  std::string yaml =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j1\n  labels:\n    app: demo\nspec:\n  suspend: true\n"
      "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: busybox\n";
  json::value created = expect(201, apply("/apis/batch/v1/namespaces/team/jobs/j1", "ci", yaml));
  EXPECT_EQ(num(created, "/spec/parallelism"), 1);
  EXPECT_EQ(num(created, "/metadata/generation"), 1);
  std::string more = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j1\n  labels:\n    app: demo\nspec:\n  parallelism: 2\n"
         "  suspend: true\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n"
         "        image: busybox\n";
  json::value updated = expect(200, apply("/apis/batch/v1/namespaces/team/jobs/j1", "ci", more));
  EXPECT_EQ(num(updated, "/spec/parallelism"), 2);
  EXPECT_EQ(num(updated, "/metadata/generation"), 2);
}

class ApiServerCustomResourceApply : public KueueServerTest {};

TEST_F(ApiServerCustomResourceApply, AppliesAndValidatesCustomResources) {
  std::string rf = std::string(kKueue) + "/resourceflavors/rf";
  std::string body = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: rf\nspec:\n  nodeLabels:\n    pool: a\n";
  json::value created = expect(201, api().request("PATCH", rf + "?fieldManager=admin", body, kApply));
  EXPECT_EQ(str(created, "/spec/nodeLabels/pool"), "a");
  EXPECT_EQ(managers(created), std::vector<std::string>{"admin/Apply"});
  // Another manager changing admin's field conflicts.
  std::string other = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: rf\nspec:\n  nodeLabels:\n    pool: b\n";
  EXPECT_EQ(api().request("PATCH", rf + "?fieldManager=intruder", other, kApply).status, 409);
  // A schema violation is 422.
  std::string cq = std::string(kKueue) + "/clusterqueues/cq";
  std::string bad = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n  queueingStrategy: Bogus\n";
  EXPECT_EQ(api().request("PATCH", cq + "?fieldManager=admin", bad, kApply).status, 422);
  EXPECT_EQ(api().get(cq).status, 404);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

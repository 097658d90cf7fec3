// Who is asking, and may they, over HTTP: a user of the token-auth file is authorized by
// RBAC from the stored Roles and bindings (refused with kube-apiserver's 403), the
// server's own token stays system:masters, and the review APIs answer for anyone
// (SubjectAccessReview, SelfSubjectAccessReview as `kubectl auth can-i` sends it,
// TokenReview).

#include <fstream>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kRbac = "/apis/rbac.authorization.k8s.io/v1";
constexpr std::string_view kMasterToken = "master-token";

class Authorization : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    std::ofstream(tokens_.file("tokens.csv")) << "alice-token,alice,1001,\"devs\"\n"
                                                 "bob-token,bob,1002\n";
    ApiServerOptions o = test_options();
    o.bearer_token = std::string(kMasterToken);
    o.token_auth_file = tokens_.file("tokens.csv");
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    for (const char* ns : {"team", "other"}) expect(201, as_master("POST", "/api/v1/namespaces", json::dump(name_space(ns))));
    // alice may read Jobs in team, through a Role and a RoleBinding.
    expect(201, as_master("POST", std::string(kRbac) + "/namespaces/team/roles", R"({"metadata": {"name": "job-reader"},
        "rules": [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"]}]})"));
    expect(201, as_master("POST", std::string(kRbac) + "/namespaces/team/rolebindings", R"({"metadata": {"name": "read-jobs"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "job-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}]})"));
    expect(201, as_master("POST", "/apis/batch/v1/namespaces/team/jobs", json::dump(job("j1"))));
  }

  HttpReply as(std::string_view token, std::string_view method, std::string_view target, std::string_view body = {}) {
    return api().request(method, target, body, "application/json", {{"Authorization", "Bearer " + std::string(token)}});
  }
  HttpReply as_master(std::string_view method, std::string_view target, std::string_view body = {}) {
    return as(kMasterToken, method, target, body);
  }

  TempDir tokens_;
};

TEST_F(Authorization, ARoleBindingLetsAUserListJobsInItsNamespaceOnly) {
  json::value list = expect(200, as("alice-token", "GET", "/apis/batch/v1/namespaces/team/jobs"));
  EXPECT_EQ(item_names(list), std::vector<std::string>{"j1"});
  expect(200, as("alice-token", "GET", "/apis/batch/v1/namespaces/team/jobs/j1"));

  json::value elsewhere = expect(403, as("alice-token", "GET", "/apis/batch/v1/namespaces/other/jobs"));
  EXPECT_EQ(str(elsewhere, "/kind"), "Status");
  EXPECT_EQ(str(elsewhere, "/reason"), "Forbidden");
  EXPECT_EQ(num(elsewhere, "/code"), 403);
  EXPECT_EQ(str(elsewhere, "/message"),
            R"(jobs.batch is forbidden: User "alice" cannot list resource "jobs" in API group "batch" in the namespace "other")");
  EXPECT_EQ(str(elsewhere, "/details/group"), "batch");
  EXPECT_EQ(str(elsewhere, "/details/kind"), "jobs");

  json::value cluster_wide = expect(403, as("alice-token", "GET", "/apis/batch/v1/jobs"));
  EXPECT_EQ(str(cluster_wide, "/message"),
            R"(jobs.batch is forbidden: User "alice" cannot list resource "jobs" in API group "batch" at the cluster scope)");

  json::value del = expect(403, as("alice-token", "DELETE", "/apis/batch/v1/namespaces/team/jobs/j1"));
  EXPECT_EQ(str(del, "/message"),
            R"(jobs.batch "j1" is forbidden: User "alice" cannot delete resource "jobs" in API group "batch" in the namespace "team")");
  EXPECT_EQ(str(del, "/details/name"), "j1");
  json::value status = expect(403, as("alice-token", "GET", "/apis/batch/v1/namespaces/team/jobs/j1/status"));
  EXPECT_EQ(str(status, "/message"),
            R"(jobs.batch "j1" is forbidden: User "alice" cannot get resource "jobs/status" in API group "batch" in the namespace "team")");

  // bob has no binding; the master token may do anything.
  expect(403, as("bob-token", "GET", "/apis/batch/v1/namespaces/team/jobs"));
  expect(200, as_master("GET", "/apis/batch/v1/jobs"));
  // An unknown token is not a user at all.
  EXPECT_EQ(as("nobody", "GET", "/apis/batch/v1/namespaces/team/jobs").status, 401);
}

TEST_F(Authorization, EveryUserMayDiscoverButNotReadOtherPaths) {
  // The bootstrap policy (system:discovery) lets every authenticated user read discovery.
  expect(200, as("bob-token", "GET", "/api"));
  expect(200, as("bob-token", "GET", "/apis/batch/v1"));
  json::value metrics = expect(403, as("bob-token", "GET", "/metrics"));
  EXPECT_EQ(str(metrics, "/message"), R"(forbidden: User "bob" cannot get path "/metrics")");
}

TEST_F(Authorization, BindingsTakeEffectAtOnce) {
  expect(403, as("bob-token", "GET", "/api/v1/namespaces/other/configmaps"));
  expect(201, as_master("POST", std::string(kRbac) + "/clusterroles", R"({"metadata": {"name": "cm-reader"},
      "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]})"));
  expect(201, as_master("POST", std::string(kRbac) + "/clusterrolebindings", R"({"metadata": {"name": "bob-cm"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cm-reader"},
      "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bob"}]})"));
  expect(200, as("bob-token", "GET", "/api/v1/namespaces/other/configmaps"));
  expect(200, as("bob-token", "GET", "/api/v1/configmaps"));
  expect(200, as_master("DELETE", std::string(kRbac) + "/clusterrolebindings/bob-cm"));
  expect(403, as("bob-token", "GET", "/api/v1/configmaps"));
}

// What `kubectl auth can-i list jobs -n team` sends with the user's own token.
TEST_F(Authorization, SelfSubjectAccessReviewAnswersForTheRequester) {
  auto can_i = [&](std::string_view token, std::string_view ns) {
    std::string body = R"({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {},
        "spec": {"resourceAttributes": {"namespace": ")" + std::string(ns) +
                       R"(", "verb": "list", "group": "batch", "resource": "jobs"}}})";
    return expect(201, as(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body));
  };
  json::value yes = can_i("alice-token", "team");
  EXPECT_EQ(str(yes, "/kind"), "SelfSubjectAccessReview");
  EXPECT_EQ(str(yes, "/apiVersion"), "authorization.k8s.io/v1");
  EXPECT_EQ(*at(yes, "/status/allowed"), json::value(true));
  EXPECT_EQ(str(yes, "/status/reason"),
            R"(RBAC: allowed by RoleBinding "read-jobs/team" of Role "job-reader" to User "alice")");
  EXPECT_EQ(str(yes, "/spec/resourceAttributes/namespace"), "team");
  json::value no = can_i("alice-token", "other");
  EXPECT_EQ(*at(no, "/status/allowed"), json::value(false));
  EXPECT_EQ(at(no, "/status/reason"), nullptr);
  EXPECT_EQ(*at(can_i("bob-token", "team"), "/status/allowed"), json::value(false));
  EXPECT_EQ(*at(can_i(kMasterToken, "other"), "/status/allowed"), json::value(true));
}

// What `kubectl auth can-i --list -n team` sends with the user's own token.
TEST_F(Authorization, SelfSubjectRulesReviewListsTheRequestersRules) {
  constexpr std::string_view kRules = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
  json::value team = expect(201, as("alice-token", "POST", kRules,
                                    R"({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
                                        "spec": {"namespace": "team"}})"));
  EXPECT_EQ(str(team, "/kind"), "SelfSubjectRulesReview");
  EXPECT_EQ(*at(team, "/status/incomplete"), json::value(false));
  // The bootstrap policy's rules first (ClusterRoleBindings), then the namespace's.
  std::string rules = json::dump(*at(team, "/status/resourceRules"));
  EXPECT_EQ(rules,
            R"([{"verbs":["create"],"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]},)"
            R"({"verbs":["create"],"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"]},)"
            R"({"verbs":["get","list","watch"],"apiGroups":["batch"],"resources":["jobs"]}])");
  EXPECT_NE(json::dump(*at(team, "/status/nonResourceRules")).find(R"("nonResourceURLs":["/api","/api/*")"), std::string::npos);
  json::value other = expect(201, as("alice-token", "POST", kRules, R"({"spec": {"namespace": "other"}})"));
  EXPECT_EQ(json::dump(*at(other, "/status/resourceRules")).find("jobs"), std::string::npos);
  EXPECT_EQ(as("alice-token", "POST", kRules, R"({"spec": {}})").status, 400);
}

TEST_F(Authorization, SubjectAccessReviewAnswersForAnyUser) {
  auto review = [&](std::string_view token, std::string_view spec) {
    return as(token, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
              R"({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": )" + std::string(spec) + "}");
  };
  json::value yes = expect(201, review(kMasterToken, R"({"user": "alice", "groups": ["devs"],
      "resourceAttributes": {"namespace": "team", "verb": "get", "group": "batch", "resource": "jobs", "name": "j1"}})"));
  EXPECT_EQ(*at(yes, "/status/allowed"), json::value(true));
  json::value no = expect(201, review(kMasterToken, R"({"user": "alice",
      "resourceAttributes": {"verb": "list", "group": "batch", "resource": "jobs"}})"));
  EXPECT_EQ(*at(no, "/status/allowed"), json::value(false));
  json::value path = expect(201, review(kMasterToken, R"({"user": "bob", "groups": ["system:authenticated"],
      "nonResourceAttributes": {"path": "/apis", "verb": "get"}})"));
  EXPECT_EQ(*at(path, "/status/allowed"), json::value(true));
  EXPECT_EQ(str(path, "/status/reason"),
            R"(RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated")");
  // A user RBAC does not let create reviews is refused like any other request.
  json::value refused = expect(403, review("alice-token", R"({"user": "bob", "resourceAttributes": {"verb": "get"}})"));
  EXPECT_EQ(str(refused, "/message"),
            R"(subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope)");
  // Neither user nor groups, or not exactly one kind of attributes: invalid.
  expect(422, review(kMasterToken, R"({"resourceAttributes": {"verb": "get"}})"));
  expect(422, review(kMasterToken, R"({"user": "alice"})"));
  EXPECT_EQ(review(kMasterToken, "[").status, 400);
}

// LocalSubjectAccessReview: a SubjectAccessReview confined to the path's namespace,
// which a namespace admin may create (the default admin role aggregates it).
TEST_F(Authorization, LocalSubjectAccessReviewAnswersWithinItsNamespace) {
  auto review = [&](std::string_view token, std::string_view ns, std::string_view body) {
    return as(token, "POST", "/apis/authorization.k8s.io/v1/namespaces/" + std::string(ns) + "/localsubjectaccessreviews",
              body);
  };
  auto body = [](std::string_view ns, std::string_view user) {
    return R"({"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview", "spec": {"user": ")" +
           std::string(user) + R"(", "resourceAttributes": {"namespace": ")" + std::string(ns) +
           R"(", "verb": "list", "group": "batch", "resource": "jobs"}}})";
  };
  json::value yes = expect(201, review(kMasterToken, "team", body("team", "alice")));
  EXPECT_EQ(str(yes, "/kind"), "LocalSubjectAccessReview");
  EXPECT_EQ(str(yes, "/metadata/namespace"), "team");
  EXPECT_EQ(*at(yes, "/status/allowed"), json::value(true));
  json::value no = expect(201, review(kMasterToken, "other", body("other", "alice")));
  EXPECT_EQ(*at(no, "/status/allowed"), json::value(false));

  // The attributes must name the path's namespace; non-resource attributes are refused.
  json::value elsewhere = expect(422, review(kMasterToken, "team", body("other", "alice")));
  EXPECT_NE(str(elsewhere, "/message").find("spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace"),
            std::string::npos)
      << str(elsewhere, "/message");
  json::value mismatch = expect(400, review(kMasterToken, "team",
      R"({"metadata": {"namespace": "other"}, "spec": {"user": "alice", "resourceAttributes": {"namespace": "team", "verb": "get"}}})"));
  EXPECT_EQ(str(mismatch, "/message"), "the namespace of the provided object does not match the namespace sent on the request");
  expect(422, review(kMasterToken, "team", R"({"spec": {"user": "alice", "nonResourceAttributes": {"path": "/apis", "verb": "get"}}})"));

  // alice may not create them; a RoleBinding to the default admin role lets her, in team only.
  expect(403, review("alice-token", "team", body("team", "bob")));
  expect(201, as_master("POST", std::string(kRbac) + "/namespaces/team/rolebindings", R"({"metadata": {"name": "alice-admin"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
      "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}]})"));
  EXPECT_TRUE(wait_until([&] { return review("alice-token", "team", body("team", "bob")).status == 201; }));
  expect(403, review("alice-token", "other", body("other", "bob")));
}

// kubectl --as: Impersonate-User (and -Group) headers, themselves authorized as the verb
// impersonate on users, groups or serviceaccounts.
TEST_F(Authorization, ImpersonationActsAsTheUserWhenAllowed) {
  auto impersonating = [&](std::string_view token, std::string_view target, std::vector<std::pair<std::string, std::string>> extra) {
    extra.emplace_back("Authorization", "Bearer " + std::string(token));
    return api().request("GET", target, {}, "application/json", extra);
  };
  // The master may impersonate anyone, and then is that user.
  expect(200, impersonating(kMasterToken, "/apis/batch/v1/namespaces/team/jobs", {{"Impersonate-User", "alice"}}));
  json::value as_alice = expect(403, impersonating(kMasterToken, "/apis/batch/v1/namespaces/other/jobs", {{"Impersonate-User", "alice"}}));
  EXPECT_EQ(str(as_alice, "/message"),
            R"(jobs.batch is forbidden: User "alice" cannot list resource "jobs" in API group "batch" in the namespace "other")");
  // Groups impersonated count: alice's binding is to her name, a group binding needs the group.
  expect(403, impersonating(kMasterToken, "/apis/batch/v1/namespaces/team/jobs", {{"Impersonate-User", "carol"}}));

  // bob may not impersonate until RBAC lets him.
  json::value refused = expect(403, impersonating("bob-token", "/apis/batch/v1/namespaces/team/jobs", {{"Impersonate-User", "alice"}}));
  EXPECT_EQ(str(refused, "/message"),
            R"(users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope)");
  expect(201, as_master("POST", std::string(kRbac) + "/clusterroles", R"({"metadata": {"name": "be-alice"},
      "rules": [{"apiGroups": [""], "resources": ["users"], "resourceNames": ["alice"], "verbs": ["impersonate"]}]})"));
  expect(201, as_master("POST", std::string(kRbac) + "/clusterrolebindings", R"({"metadata": {"name": "bob-be-alice"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "be-alice"},
      "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bob"}]})"));
  expect(200, impersonating("bob-token", "/apis/batch/v1/namespaces/team/jobs", {{"Impersonate-User", "alice"}}));
  json::value group = expect(403, impersonating("bob-token", "/apis/batch/v1/namespaces/team/jobs",
                                                {{"Impersonate-User", "alice"}, {"Impersonate-Group", "admins"}}));
  EXPECT_EQ(str(group, "/message"),
            R"(groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope)");
  json::value sa = expect(403, impersonating("bob-token", "/api/v1/namespaces/team/pods",
                                             {{"Impersonate-User", "system:serviceaccount:team:builder"}}));
  EXPECT_EQ(str(sa, "/message"),
            R"(serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team")");
  EXPECT_EQ(impersonating(kMasterToken, "/api/v1/namespaces", {{"Impersonate-Group", "admins"}}).status, 500);
}

TEST_F(Authorization, TokenReviewNamesTheTokensUser) {
  auto review = [&](std::string_view token) {
    return expect(201, as_master("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                 R"({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": ")" +
                                     std::string(token) + R"("}})"));
  };
  json::value alice = review("alice-token");
  EXPECT_EQ(str(alice, "/kind"), "TokenReview");
  EXPECT_EQ(*at(alice, "/status/authenticated"), json::value(true));
  EXPECT_EQ(str(alice, "/status/user/username"), "alice");
  EXPECT_EQ(str(alice, "/status/user/uid"), "1001");
  EXPECT_EQ(*at(alice, "/status/user/groups"), (json::value(json::array{"devs", "system:authenticated"})));
  json::value unknown = review("nobody");
  EXPECT_EQ(at(unknown, "/status/authenticated"), nullptr);
  EXPECT_EQ(*at(unknown, "/status/user"), json::value(json::object{}));
  EXPECT_EQ(as_master("POST", "/apis/authentication.k8s.io/v1/tokenreviews", R"({"spec": {}})").status, 400);
  EXPECT_EQ(as_master("GET", "/apis/authentication.k8s.io/v1/tokenreviews").status, 405);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

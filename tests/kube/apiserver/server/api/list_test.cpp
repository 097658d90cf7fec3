// LIST: label selectors, field selectors (metadata.name, metadata.namespace), and
// pagination with limit/continue served from the first page's snapshot.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using Names = std::vector<std::string>;

json::value config_map(std::string_view name, json::object labels) {
  return json::object{{"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
                      {"data", json::object{{"k", "v"}}}};
}

class ApiServerLists : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("a");
    make_namespace("b");
    create("/api/v1/namespaces/a/configmaps", config_map("web", {{"app", "web"}, {"env", "prod"}}));
    create("/api/v1/namespaces/a/configmaps", config_map("db", {{"app", "db"}, {"env", "prod"}}));
    create("/api/v1/namespaces/a/configmaps", config_map("cache", {{"app", "cache"}, {"env", "dev"}}));
    create("/api/v1/namespaces/a/configmaps", config_map("plain", {}));
    create("/api/v1/namespaces/b/configmaps", config_map("web", {{"app", "web"}, {"env", "dev"}}));
  }

  Names names(std::string_view target) { return item_names(get_ok(target)); }
};

TEST_F(ApiServerLists, LabelSelectors) {
  const std::string cms = "/api/v1/namespaces/a/configmaps";
  EXPECT_EQ(names(cms + "?labelSelector=env%3Dprod"), (Names{"db", "web"}));
  EXPECT_EQ(names(cms + "?labelSelector=env%3D%3Dprod"), (Names{"db", "web"}));
  // != and notin also match objects without the key.
  EXPECT_EQ(names(cms + "?labelSelector=env!%3Dprod"), (Names{"cache", "plain"}));
  EXPECT_EQ(names(cms + "?labelSelector=app%20in%20(web,cache)"), (Names{"cache", "web"}));
  EXPECT_EQ(names(cms + "?labelSelector=app%20notin%20(web,cache)"), (Names{"db", "plain"}));
  EXPECT_EQ(names(cms + "?labelSelector=app"), (Names{"cache", "db", "web"}));
  EXPECT_EQ(names(cms + "?labelSelector=!app"), (Names{"plain"}));
  EXPECT_EQ(names(cms + "?labelSelector=app%3Dweb,env%3Dprod"), (Names{"web"}));
  EXPECT_EQ(names(cms + "?labelSelector=app%3Dnone"), Names{});
  // Across namespaces.
  EXPECT_EQ(names("/api/v1/configmaps?labelSelector=app%3Dweb"), (Names{"web", "web"}));
  // Malformed: 400 with a Status.
  json::value bad = expect(400, api().get(cms + "?labelSelector=env%20in%20prod"));
  EXPECT_EQ(str(bad, "/reason"), "BadRequest");
}

TEST_F(ApiServerLists, FieldSelectors) {
  EXPECT_EQ(names("/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Ddb"), (Names{"db"}));
  EXPECT_EQ(names("/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name!%3Ddb"),
            (Names{"cache", "plain", "web"}));
  EXPECT_EQ(names("/api/v1/configmaps?fieldSelector=metadata.name%3Dweb"), (Names{"web", "web"}));
  json::value list = get_ok("/api/v1/configmaps?fieldSelector=metadata.namespace%3Db");
  EXPECT_EQ(item_names(list), (Names{"web"}));
  EXPECT_EQ(str(list, "/items/0/metadata/namespace"), "b");
  EXPECT_EQ(names("/api/v1/configmaps?fieldSelector=metadata.namespace%3Da,metadata.name%3Dweb"), (Names{"web"}));
  // kube-system holds the ConfigMap the server publishes for aggregated API servers.
  EXPECT_EQ(names("/api/v1/configmaps?fieldSelector=metadata.namespace!%3Da"),
            (Names{"web", "extension-apiserver-authentication"}));
  // Combined with a label selector.
  EXPECT_EQ(names("/api/v1/configmaps?fieldSelector=metadata.namespace%3Da&labelSelector=env%3Ddev"), (Names{"cache"}));
  // Cluster-scoped kinds.
  EXPECT_EQ(names("/api/v1/namespaces?fieldSelector=metadata.name%3Db"), (Names{"b"}));
  // Unknown fields: 400.
  json::value bad = expect(400, api().get("/api/v1/namespaces/a/configmaps?fieldSelector=spec.foo%3Dbar"));
  EXPECT_NE(str(bad, "/message").find("not a known field selector"), std::string::npos) << str(bad, "/message");
}

TEST_F(ApiServerLists, PaginationWalksASnapshot) {
  const std::string cms = "/api/v1/namespaces/a/configmaps";
  json::value page1 = get_ok(cms + "?limit=2");
  EXPECT_EQ(item_names(page1), (Names{"cache", "db"}));
  std::string token = str(page1, "/metadata/continue");
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(num(page1, "/metadata/remainingItemCount"), 2);
  std::string list_rv = str(page1, "/metadata/resourceVersion");

  // Changes after the first page do not show on later pages.
  create(cms, config_map("zzz-new", {}));
  ASSERT_EQ(api().del(cms + "/web").status, 200);

  json::value page2 = get_ok(cms + "?limit=2&continue=" + token);
  EXPECT_EQ(item_names(page2), (Names{"plain", "web"}));
  EXPECT_EQ(str(page2, "/metadata/resourceVersion"), list_rv);
  EXPECT_TRUE(str(page2, "/metadata/continue").empty());  // the last page

  // A fresh list sees the changes.
  EXPECT_EQ(names(cms), (Names{"cache", "db", "plain", "zzz-new"}));

  // Pages of one with a selector still skip non-matching objects.
  Names all;
  std::string next;
  for (int guard = 0; guard < 10; ++guard) {
    json::value page = get_ok("/api/v1/configmaps?labelSelector=app&limit=1" + (next.empty() ? "" : "&continue=" + next));
    for (auto& n : item_names(page)) all.push_back(n);
    next = str(page, "/metadata/continue");
    if (next.empty()) break;
  }
  EXPECT_EQ(all, (Names{"cache", "db", "web"}));  // a/cache, a/db, b/web (a/web is gone)
}

TEST_F(ApiServerLists, ResourceVersionSemantics) {
  const std::string cms = "/api/v1/namespaces/a/configmaps";
  json::value before = get_ok(cms);
  std::string rv = str(before, "/metadata/resourceVersion");
  create(cms, config_map("later", {}));
  // Exact: the state at that version.
  json::value exact = get_ok(cms + "?resourceVersion=" + rv + "&resourceVersionMatch=Exact");
  EXPECT_EQ(item_names(exact), item_names(before));
  EXPECT_EQ(str(exact, "/metadata/resourceVersion"), rv);
  // NotOlderThan / resourceVersion=0: the latest.
  EXPECT_EQ(names(cms + "?resourceVersion=" + rv + "&resourceVersionMatch=NotOlderThan").size(), 5u);
  EXPECT_EQ(names(cms + "?resourceVersion=0").size(), 5u);
  // Errors.
  EXPECT_EQ(api().get(cms + "?resourceVersionMatch=Exact").status, 422);
  EXPECT_EQ(api().get(cms + "?limit=2&continue=bogus").status, 400);
  EXPECT_EQ(api().get(cms + "?limit=abc").status, 400);
  EXPECT_EQ(api().get(cms + "?resourceVersion=abc").status, 400);
  HttpReply future = api().get(cms + "?resourceVersion=999999999&resourceVersionMatch=Exact");
  EXPECT_EQ(future.status, 504);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

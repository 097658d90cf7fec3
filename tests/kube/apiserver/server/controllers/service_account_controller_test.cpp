// The ServiceAccount "default" of every namespace: there from the start in the bootstrap
// namespaces, created with a new namespace, created again when deleted, and not in a
// namespace that is being terminated.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

class ApiServerDefaultServiceAccounts : public ServerTest {
 protected:
  bool has_default(std::string_view ns) {
    return api().get("/api/v1/namespaces/" + std::string(ns) + "/serviceaccounts/default").status == 200;
  }
};

TEST_F(ApiServerDefaultServiceAccounts, EveryNamespaceHasOne) {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    EXPECT_TRUE(wait_until([&] { return has_default(ns); })) << ns;
  }
  make_namespace("team-a");
  EXPECT_TRUE(wait_until([&] { return has_default("team-a"); }));
  EXPECT_EQ(item_names(get_ok("/api/v1/namespaces/team-a/serviceaccounts")), std::vector<std::string>{"default"});
}

TEST_F(ApiServerDefaultServiceAccounts, ADeletedOneComesBack) {
  make_namespace("team-a");
  ASSERT_TRUE(wait_until([&] { return has_default("team-a"); }));
  const std::string uid = str(get_ok("/api/v1/namespaces/team-a/serviceaccounts/default"), "/metadata/uid");
  ASSERT_EQ(api().del("/api/v1/namespaces/team-a/serviceaccounts/default").status, 200);
  ASSERT_TRUE(wait_until([&] {
    auto r = api().get("/api/v1/namespaces/team-a/serviceaccounts/default");
    return r.status == 200 && str(*json::parse(r.body), "/metadata/uid") != uid;
  }));
}

TEST_F(ApiServerDefaultServiceAccounts, ATerminatingNamespaceGoesWithIt) {
  make_namespace("doomed");
  ASSERT_TRUE(wait_until([&] { return has_default("doomed"); }));
  ASSERT_EQ(api().del("/api/v1/namespaces/doomed").status, 200);
  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed"));
  EXPECT_FALSE(has_default("doomed"));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

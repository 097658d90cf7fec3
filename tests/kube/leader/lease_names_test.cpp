// Lease names are valid DNS subdomains whatever the prefix and identity look like.

#include <gtest/gtest.h>

#include <regex>

#include "kube/leader/lease_names.hpp"

namespace kueuepp::kube::leader {
namespace {

bool is_dns_subdomain(const std::string& name) {
  static const std::regex pattern("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return name.size() <= 253 && std::regex_match(name, pattern);
}

TEST(LeaseNames, ShardAndMemberLeases) {
  EXPECT_EQ(shard_lease_name("kueuepp", 0), "kueuepp-shard-0");
  EXPECT_EQ(shard_lease_name("kueuepp", 12), "kueuepp-shard-12");
  EXPECT_EQ(member_lease_name("kueuepp", "kueuepp-7f9c_0a1B2c3D4e5F6a7b"), "kueuepp-member-kueuepp-7f9c-0a1b2c3d4e5f6a7b");
}

TEST(LeaseNames, MemberLeasesShareTheirPrefix) {
  const char* identities[] = {".dot-first", "_under", "UPPER.case_1", "-", "pod.ns.svc_01"};
  for (const char* id : identities) {
    std::string name = member_lease_name("Kueue.PP", id);
    EXPECT_TRUE(is_dns_subdomain(name)) << name;
    EXPECT_EQ(name.rfind(member_lease_prefix("Kueue.PP"), 0), 0u) << name;
  }
  EXPECT_EQ(member_lease_prefix("Kueue.PP"), "kueue.pp-member-");
  EXPECT_EQ(shard_lease_name("Kueue_PP", 3), "kueue-pp-shard-3");
}

TEST(LeaseNames, SanitizedNamesAreDnsSubdomains) {
  const std::string texts[] = {
      "Kueue_PP",     "-leading.and.trailing-", "a..b",      "under_score.dot.Caps",
      "__",           "émigré",                 "x.-y-.z",   std::string(300, 'a'),
      std::string(120, 'a') + "." + std::string(200, 'b'),
  };
  for (const std::string& text : texts) {
    std::string name = sanitize_subdomain(text);
    EXPECT_TRUE(is_dns_subdomain(name)) << "'" << text << "' -> '" << name << "'";
  }
  EXPECT_EQ(sanitize_subdomain("Kueue_PP"), "kueue-pp");
  EXPECT_EQ(sanitize_subdomain("a..b"), "a.b");
  EXPECT_EQ(sanitize_subdomain("x.-y-.z"), "x.y.z");
}

TEST(LeaseNames, LongNamesStayDistinct) {
  std::string a = member_lease_name("kueuepp", std::string(300, 'p') + "_01");
  std::string b = member_lease_name("kueuepp", std::string(300, 'p') + "_02");
  EXPECT_EQ(a.size(), 253u);
  EXPECT_TRUE(is_dns_subdomain(a));
  EXPECT_NE(a, b);
}

TEST(LeaseNames, IdentityIsPodNameAndRandomHex) {
  EXPECT_EQ(make_identity("kueuepp-7f9c", 0xabcdefull), "kueuepp-7f9c_0000000000abcdef");
  std::string one = make_identity("pod");
  std::string two = make_identity("pod");
  EXPECT_EQ(one.rfind("pod_", 0), 0u);
  EXPECT_EQ(one.size(), 4u + 16u);
  EXPECT_NE(one, two);
}

}  // namespace
}  // namespace kueuepp::kube::leader

// The webhook's certificates and when they are made again, with the time given: nothing
// here waits for a clock.

#include "kube/webhook/cert_rotation.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kueuepp::kube::webhook {
namespace {

using namespace std::chrono_literals;
using Days = std::chrono::duration<std::int64_t, std::ratio<86400>>;

const Clock::time_point kNow = Clock::from_time_t(1'900'000'000);  // 2030-03-17
const std::vector<std::string> kHosts = {"kueuepp-webhook-service.kueuepp-system.svc",
                                         "kueuepp-webhook-service.kueuepp-system.svc.cluster.local", "127.0.0.1"};

bool names(const CertificateInfo& info, const std::string& host) {
  return std::find(info.hosts.begin(), info.hosts.end(), host) != info.hosts.end();
}

TEST(Certificates, AServingCertificateForTheServiceNamesSignedByTheCa) {
  auto bundle = generate_bundle({kHosts, kNow, Days(3650), Days(365)});
  ASSERT_TRUE(bundle) << bundle.error().message;
  auto info = inspect_certificate(bundle->cert_pem);
  ASSERT_TRUE(info) << info.error().message;
  for (const auto& h : kHosts) EXPECT_TRUE(names(*info, h)) << h;
  EXPECT_EQ(info->not_after, kNow + Days(365));
  EXPECT_EQ(info->not_before, kNow - 1h);
  auto ca = inspect_certificate(bundle->ca_cert_pem);
  ASSERT_TRUE(ca);
  EXPECT_EQ(ca->not_after, kNow + Days(3650));
  EXPECT_TRUE(verify_serving(*bundle));

  auto other = generate_bundle({kHosts, kNow, Days(3650), Days(365)});
  ASSERT_TRUE(other);
  CertificateBundle mixed = *bundle;
  mixed.ca_cert_pem = other->ca_cert_pem;
  EXPECT_FALSE(verify_serving(mixed));
  mixed = *bundle;
  mixed.key_pem = other->key_pem;
  auto wrong_key = verify_serving(mixed);
  ASSERT_FALSE(wrong_key);
  EXPECT_NE(wrong_key.error().message.find("does not belong"), std::string::npos);
  EXPECT_FALSE(inspect_certificate("garbage"));
  EXPECT_FALSE(generate_bundle({{}, kNow, Days(10), Days(5)}));
}

TEST(CertRotation, DecisionsOverTime) {
  RotationPolicy policy;  // CA 10 years (renewed in its last year), serving 1 year (in its last 90 days)
  ASSERT_TRUE(check_policy(policy));
  EXPECT_EQ(decide_rotation(std::nullopt, kHosts, kNow, policy).action, RotationAction::IssueAll);
  auto first = rotate(std::nullopt, decide_rotation(std::nullopt, kHosts, kNow, policy), kHosts, kNow, policy);
  ASSERT_TRUE(first) << first.error().message;

  auto keep = decide_rotation(*first, kHosts, kNow + Days(200), policy);
  EXPECT_EQ(keep.action, RotationAction::Keep) << keep.why;
  EXPECT_EQ(keep.renew_at, kNow + Days(365 - 90));

  // Well before expiry: 90 days left, the serving certificate alone is made again.
  auto due = decide_rotation(*first, kHosts, kNow + Days(276), policy);
  EXPECT_EQ(due.action, RotationAction::IssueServing) << due.why;
  auto second = rotate(*first, due, kHosts, kNow + Days(276), policy);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);  // the caBundle stays: nothing to re-register
  EXPECT_NE(second->cert_pem, first->cert_pem);
  EXPECT_TRUE(verify_serving(*second));
  EXPECT_EQ(decide_rotation(*second, kHosts, kNow + Days(276), policy).action, RotationAction::Keep);

  // A new host (a renamed Service): a new serving certificate.
  auto more = kHosts;
  more.push_back("other.kueuepp-system.svc");
  EXPECT_EQ(decide_rotation(*second, more, kNow + Days(277), policy).action, RotationAction::IssueServing);

  // The CA's last year: everything again, the old CA kept in the bundle while valid.
  const auto late = kNow + Days(3650 - 300);
  auto ca_due = decide_rotation(*second, kHosts, late, policy);
  EXPECT_EQ(ca_due.action, RotationAction::IssueAll) << ca_due.why;
  auto third = rotate(*second, ca_due, kHosts, late, policy);
  ASSERT_TRUE(third);
  auto cas = split_pem_certificates(third->ca_cert_pem);
  ASSERT_EQ(cas.size(), 2u);
  EXPECT_EQ(cas[1], split_pem_certificates(first->ca_cert_pem)[0]);
  EXPECT_TRUE(verify_serving(*third));
  // A replica still serving the previous certificate is trusted by the new bundle.
  CertificateBundle old_serving = *second;
  old_serving.ca_cert_pem = third->ca_cert_pem;
  EXPECT_TRUE(verify_serving(old_serving));
}

TEST(CertRotation, BrokenOrMismatchedStoredCertificatesAreReplaced) {
  RotationPolicy policy;
  auto a = generate_bundle({kHosts, kNow, policy.ca_validity, policy.serving_validity});
  ASSERT_TRUE(a);
  CertificateBundle broken = *a;
  broken.cert_pem = "not a certificate";
  EXPECT_EQ(decide_rotation(broken, kHosts, kNow, policy).action, RotationAction::IssueAll);
  CertificateBundle empty_key = *a;
  empty_key.key_pem.clear();
  EXPECT_EQ(decide_rotation(empty_key, kHosts, kNow, policy).action, RotationAction::IssueAll);
  // Expired long ago (a replica that slept): everything again.
  EXPECT_EQ(decide_rotation(*a, kHosts, kNow + Days(4000), policy).action, RotationAction::IssueAll);
}

TEST(CertRotation, APolicyThatWouldRenewAtOnceIsRefused) {
  RotationPolicy p;
  p.serving_validity = p.serving_renew_before;
  EXPECT_FALSE(check_policy(p));
  p = RotationPolicy{};
  p.ca_validity = Days(100);
  EXPECT_FALSE(check_policy(p));
}

}  // namespace
}  // namespace kueuepp::kube::webhook

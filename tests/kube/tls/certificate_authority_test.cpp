// The one certificate maker: what it makes is what Kubernetes' readers expect of it.

#include "kube/tls/certificate_authority.hpp"

#include <gtest/gtest.h>

#include "kube/tls/client_certificate.hpp"
#include "tests/kube/tls/test_certificates.hpp"

namespace kueuepp::kube::tls {
namespace {

const auto kNow = CertificateClock::now();

CertifiedKey authority(const std::string& name = "test-ca") {
  auto ca = make_certificate_authority(name, kNow, std::chrono::hours(24));
  EXPECT_TRUE(ca) << ca.error().message;
  return *ca;
}

LeafCertificateRequest serving(std::vector<std::string> hosts) {
  LeafCertificateRequest r;
  r.common_name = "server";
  r.hosts = std::move(hosts);
  r.now = kNow;
  return r;
}

TEST(CertificateAuthority, AServingCertificateNamesItsHostsAndIsSignedByItsCa) {
  auto ca = authority();
  auto leaf = issue_certificate(ca, serving({"kueuepp-webhook-service.kueuepp-system.svc", "127.0.0.1"}));
  ASSERT_TRUE(leaf) << leaf.error().message;
  auto info = inspect_certificate(leaf->cert_pem);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->hosts, (std::vector<std::string>{"kueuepp-webhook-service.kueuepp-system.svc", "127.0.0.1"}));
  EXPECT_LE(info->not_before, kNow - std::chrono::minutes(59));
  EXPECT_TRUE(verify_certified_key(*leaf, ca.cert_pem));
}

TEST(CertificateAuthority, AServingCertificateWithoutAHostIsRefused) {
  auto leaf = issue_certificate(authority(), serving({}));
  ASSERT_FALSE(leaf);
  EXPECT_EQ(leaf.error().message, "a serving certificate needs at least one DNS name or address");
}

TEST(CertificateAuthority, AClientCertificateNamesItsUserAndGroupsAsKubernetesReadsThem) {
  auto ca = authority();
  LeafCertificateRequest r;
  r.common_name = "alice";
  r.organizations = {"system:masters", "team-a"};
  r.usage = LeafCertificateRequest::Usage::Client;
  r.now = kNow;
  auto leaf = issue_certificate(ca, r);
  ASSERT_TRUE(leaf) << leaf.error().message;
  auto subject = verify_client_certificate({testing::TestCa::der_of(leaf->cert_pem)}, ca.cert_pem, "the test CA");
  ASSERT_TRUE(subject) << subject.error().message;
  EXPECT_EQ(subject->common_name, "alice");
  EXPECT_EQ(subject->organizations, (std::vector<std::string>{"system:masters", "team-a"}));
}

TEST(CertificateAuthority, AnotherCasCertificateOrAnotherKeyDoesNotVerify) {
  auto ca = authority("one");
  auto other = authority("two");
  auto leaf = issue_certificate(ca, serving({"localhost"}));
  ASSERT_TRUE(leaf);
  auto wrong_ca = verify_certified_key(*leaf, other.cert_pem);
  ASSERT_FALSE(wrong_ca);
  EXPECT_NE(wrong_ca.error().message.find("not signed by the CA bundle"), std::string::npos) << wrong_ca.error().message;
  auto second = issue_certificate(ca, serving({"localhost"}));
  ASSERT_TRUE(second);
  auto wrong_key = verify_certified_key(CertifiedKey{leaf->cert_pem, second->key_pem}, ca.cert_pem);
  ASSERT_FALSE(wrong_key);
  EXPECT_EQ(wrong_key.error().message, "the serving key does not belong to the serving certificate");
  // A bundle of both CAs trusts what either signed (a CA rotation's overlap).
  EXPECT_TRUE(verify_certified_key(*leaf, other.cert_pem + ca.cert_pem));
}

TEST(CertificateAuthority, AGarbledCaIsAClearError) {
  auto leaf = issue_certificate(CertifiedKey{"not pem", "nor this"}, serving({"localhost"}));
  ASSERT_FALSE(leaf);
  EXPECT_NE(leaf.error().message.find("reading the CA certificate and key"), std::string::npos);
  EXPECT_EQ(split_pem_certificates("no certificates here").size(), 0u);
}

}  // namespace
}  // namespace kueuepp::kube::tls

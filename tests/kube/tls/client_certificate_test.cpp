#include "kube/tls/client_certificate.hpp"

#include <gtest/gtest.h>

#include "tests/kube/tls/test_certificates.hpp"

namespace kueuepp::kube::tls {
namespace {

using testing::TestCa;

constexpr std::string_view kRole = "the client CA (--client-ca-file)";

TEST(ClientCertificate, AVerifiedCertificateNamesItsUserAndGroups) {
  TestCa ca("client-ca");
  auto leaf = ca.issue("alice", false, {"team-a", "system:masters"});
  auto subject = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, ca.pem(), kRole);
  ASSERT_TRUE(subject) << subject.error().message;
  EXPECT_EQ(subject->common_name, "alice");
  EXPECT_EQ(subject->organizations, (std::vector<std::string>{"team-a", "system:masters"}));
}

TEST(ClientCertificate, AnyCaOfTheBundleIsTrusted) {
  TestCa first("first-ca");
  TestCa second("second-ca");
  auto leaf = second.issue("bob");
  auto subject = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, first.pem() + second.pem(), kRole);
  ASSERT_TRUE(subject) << subject.error().message;
  EXPECT_EQ(subject->common_name, "bob");
  EXPECT_TRUE(subject->organizations.empty());
}

TEST(ClientCertificate, ACertificateOfAnotherCaIsRefusedWithTheReason) {
  TestCa ca("client-ca");
  TestCa stranger("stranger-ca");
  auto leaf = stranger.issue("mallory", false, {"system:masters"});
  auto subject = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, ca.pem(), kRole);
  ASSERT_FALSE(subject);
  EXPECT_NE(subject.error().message.find("is not signed by the client CA (--client-ca-file)"), std::string::npos)
      << subject.error().message;
}

TEST(ClientCertificate, AServingCertificateIsNotAClientCertificate) {
  TestCa ca("client-ca");
  auto leaf = ca.issue("127.0.0.1", true);
  auto subject = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, ca.pem(), kRole);
  ASSERT_FALSE(subject);
  EXPECT_NE(subject.error().message.find("purpose"), std::string::npos) << subject.error().message;
}

TEST(ClientCertificate, BadInputIsAnErrorNotACrash) {
  TestCa ca("client-ca");
  auto leaf = ca.issue("alice");
  EXPECT_FALSE(verify_client_certificate({}, ca.pem(), kRole));
  EXPECT_FALSE(verify_client_certificate({"not DER at all"}, ca.pem(), kRole));
  auto no_bundle = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, "", kRole);
  ASSERT_FALSE(no_bundle);
  EXPECT_EQ(no_bundle.error().message, "the client CA (--client-ca-file) is not configured");
  auto garbage = verify_client_certificate({TestCa::der_of(leaf.cert_pem)}, "-----BEGIN CERTIFICATE-----\nxx\n", kRole);
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().message, "the client CA (--client-ca-file) holds no PEM certificate");
}

TEST(ClientCertificate, CountsTheCertificatesOfABundle) {
  TestCa first("first-ca");
  TestCa second("second-ca");
  EXPECT_EQ(count_pem_certificates(""), 0u);
  EXPECT_EQ(count_pem_certificates("hello"), 0u);
  EXPECT_EQ(count_pem_certificates(first.pem()), 1u);
  EXPECT_EQ(count_pem_certificates(first.pem() + second.pem()), 2u);
}

}  // namespace
}  // namespace kueuepp::kube::tls

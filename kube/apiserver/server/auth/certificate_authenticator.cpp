#include "kube/apiserver/server/auth/certificate_authenticator.hpp"

#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "kube/tls/client_certificate.hpp"

namespace kueuepp::kube::server::auth {

namespace {
constexpr std::string_view kRole = "the client CA (--client-ca-file)";
}

Expected<CertificateAuthenticator> CertificateAuthenticator::from_bundle(std::string ca_bundle_pem) {
  if (tls::count_pem_certificates(ca_bundle_pem) == 0) {
    return fail("the client CA bundle holds no PEM certificate; give --client-ca-file a file of "
                "\"-----BEGIN CERTIFICATE-----\" blocks");
  }
  return CertificateAuthenticator(std::move(ca_bundle_pem));
}

Expected<CertificateAuthenticator> CertificateAuthenticator::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read --client-ca-file " + path + ": no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  auto authenticator = from_bundle(text.str());
  if (!authenticator) return fail("--client-ca-file " + path + ": " + authenticator.error().message);
  return authenticator;
}

std::optional<UserInfo> CertificateAuthenticator::authenticate(const std::vector<std::string>& chain_der) const {
  auto subject = tls::verify_client_certificate(chain_der, ca_bundle_pem_, kRole);
  if (!subject) {
    spdlog::debug("client certificate not accepted: {}", subject.error().message);
    return std::nullopt;
  }
  if (subject->common_name.empty()) {
    spdlog::debug("client certificate not accepted: its subject has no common name (the user)");
    return std::nullopt;
  }
  UserInfo user;
  user.name = std::move(subject->common_name);
  user.groups = std::move(subject->organizations);
  if (!user.in_group(kAuthenticatedGroup)) user.groups.emplace_back(kAuthenticatedGroup);
  return user;
}

}  // namespace kueuepp::kube::server::auth

#include "kube/apiserver/server/tls/certificates.hpp"

#include <chrono>

#include "kube/tls/certificate_authority.hpp"

namespace kueuepp::kube::server {

namespace {

using kube::tls::CertificateClock;
using kube::tls::LeafCertificateRequest;

constexpr auto kCaValidity = std::chrono::hours(24 * 3650);
constexpr auto kLeafValidity = std::chrono::hours(24 * 825);

Expected<CertificateSet> make_set(const std::string& ca_name, LeafCertificateRequest leaf) {
  const auto now = CertificateClock::now();
  auto ca = kube::tls::make_certificate_authority(ca_name, now, kCaValidity);
  if (!ca) return unexpected(ca.error());
  leaf.now = now;
  leaf.validity = kLeafValidity;
  auto issued = kube::tls::issue_certificate(*ca, leaf);
  if (!issued) return unexpected(issued.error());
  return CertificateSet{std::move(ca->cert_pem), std::move(ca->key_pem), std::move(issued->cert_pem),
                        std::move(issued->key_pem)};
}

}  // namespace

Expected<CertificateSet> generate_certificates(const std::vector<std::string>& hosts) {
  LeafCertificateRequest server;
  server.common_name = "kueuepp-apiserver";
  server.usage = LeafCertificateRequest::Usage::Server;
  server.hosts = hosts;
  return make_set("kueuepp-ca", std::move(server));
}

Expected<CertificateSet> generate_client_certificates(const std::string& ca_name, const std::string& client_name) {
  LeafCertificateRequest client;
  client.common_name = client_name;
  client.usage = LeafCertificateRequest::Usage::Client;
  return make_set(ca_name, std::move(client));
}

}  // namespace kueuepp::kube::server

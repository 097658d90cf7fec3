#include "kube/webhook/certificates.hpp"

#include "kube/tls/certificate_authority.hpp"

namespace kueuepp::kube::webhook {

namespace {

kube::tls::LeafCertificateRequest serving_request(const CertificateRequest& request) {
  kube::tls::LeafCertificateRequest leaf;
  leaf.common_name = "kueuepp-webhook";
  leaf.usage = kube::tls::LeafCertificateRequest::Usage::Server;
  leaf.hosts = request.hosts;
  leaf.now = request.now;
  leaf.validity = request.serving_validity;
  return leaf;
}

}  // namespace

Expected<CertificateBundle> generate_bundle(const CertificateRequest& request) {
  auto ca = kube::tls::make_certificate_authority("kueuepp-webhook-ca", request.now, request.ca_validity);
  if (!ca) return unexpected(ca.error());
  auto serving = kube::tls::issue_certificate(*ca, serving_request(request));
  if (!serving) return unexpected(serving.error());
  return CertificateBundle{std::move(ca->cert_pem), std::move(ca->key_pem), std::move(serving->cert_pem),
                           std::move(serving->key_pem)};
}

Expected<CertificateBundle> reissue_serving(const CertificateBundle& current, const CertificateRequest& request) {
  // The bundle's first certificate is the current CA; the others are CAs it replaced.
  auto cas = split_pem_certificates(current.ca_cert_pem);
  if (cas.empty()) return fail("reading the CA certificate and key: the CA bundle holds no certificate");
  auto serving = kube::tls::issue_certificate(kube::tls::CertifiedKey{cas.front(), current.ca_key_pem},
                                              serving_request(request));
  if (!serving) return unexpected(serving.error());
  return CertificateBundle{current.ca_cert_pem, current.ca_key_pem, std::move(serving->cert_pem),
                           std::move(serving->key_pem)};
}

Status verify_serving(const CertificateBundle& bundle) {
  return kube::tls::verify_certified_key(kube::tls::CertifiedKey{bundle.cert_pem, bundle.key_pem}, bundle.ca_cert_pem);
}

}  // namespace kueuepp::kube::webhook

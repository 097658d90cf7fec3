#include "kube/tls/client_certificate.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kueuepp::kube::tls {

namespace {

struct Free {
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(STACK_OF(X509)* p) const { sk_X509_pop_free(p, X509_free); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

Owned<X509> from_der(const std::string& der) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  return Owned<X509>(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
}

std::string der_of(X509* cert) {
  unsigned char* out = nullptr;
  int n = i2d_X509(cert, &out);
  if (n <= 0) return {};
  std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  OPENSSL_free(out);
  return der;
}

/// Every value of one attribute of a name, in order (a subject may hold several O).
std::vector<std::string> entries_of(X509_NAME* name, int nid) {
  std::vector<std::string> values;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0; i = X509_NAME_get_index_by_NID(name, nid, i)) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, data);
    if (n < 0) continue;
    values.emplace_back(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(n));
    OPENSSL_free(utf8);
  }
  return values;
}

CertificateSubject subject_of(X509* cert) {
  X509_NAME* name = X509_get_subject_name(cert);
  CertificateSubject subject;
  auto names = entries_of(name, NID_commonName);
  if (!names.empty()) subject.common_name = std::move(names.front());
  subject.organizations = entries_of(name, NID_organizationName);
  return subject;
}

Owned<X509_STORE> store_of(const std::string& pem, int& count) {
  Owned<X509_STORE> store(X509_STORE_new());
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  count = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store.get(), ca);
    X509_free(ca);
    ++count;
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  return store;
}

int accept_any(int, X509_STORE_CTX*) { return 1; }

}  // namespace

Expected<CertificateSubject> verify_client_certificate(const std::vector<std::string>& chain_der,
                                                       const std::string& ca_bundle_pem, std::string_view ca_role) {
  if (chain_der.empty()) return fail("no client certificate");
  if (ca_bundle_pem.empty()) return fail(std::string(ca_role) + " is not configured");
  Owned<X509> leaf = from_der(chain_der.front());
  if (!leaf) return fail("the client certificate does not parse");
  int cas = 0;
  Owned<X509_STORE> store = store_of(ca_bundle_pem, cas);
  if (cas == 0) return fail(std::string(ca_role) + " holds no PEM certificate");
  Owned<STACK_OF(X509)> intermediates(sk_X509_new_null());
  for (std::size_t i = 1; i < chain_der.size(); ++i) {
    if (auto c = from_der(chain_der[i])) sk_X509_push(intermediates.get(), c.release());
  }
  Owned<X509_STORE_CTX> ctx(X509_STORE_CTX_new());
  if (X509_STORE_CTX_init(ctx.get(), store.get(), leaf.get(), intermediates.get()) != 1) {
    return fail("cannot set up certificate verification");
  }
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(ctx.get()) != 1) {
    return fail("the client certificate is not signed by " + std::string(ca_role) + ": " +
                X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())));
  }
  return subject_of(leaf.get());
}

std::vector<std::string> peer_chain_der(ssl_st* session) {
  std::vector<std::string> chain;
  if (X509* leaf = SSL_get1_peer_certificate(session)) {
    chain.push_back(der_of(leaf));
    X509_free(leaf);
  }
  // On the server side the peer's chain holds its intermediates, not always its leaf.
  if (STACK_OF(X509)* rest = SSL_get_peer_cert_chain(session); rest != nullptr && !chain.empty()) {
    for (int i = 0; i < sk_X509_num(rest); ++i) {
      std::string der = der_of(sk_X509_value(rest, i));
      if (der != chain.front()) chain.push_back(std::move(der));
    }
  }
  return chain;
}

void request_client_certificates(ssl_ctx_st* context, const std::string& acceptable_cas_pem) {
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, accept_any);
  if (acceptable_cas_pem.empty()) return;
  Owned<BIO> bio(BIO_new_mem_buf(acceptable_cas_pem.data(), static_cast<int>(acceptable_cas_pem.size())));
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    SSL_CTX_add_client_CA(context, ca);
    X509_free(ca);
  }
  ERR_clear_error();
}

std::size_t count_pem_certificates(const std::string& pem) {
  int count = 0;
  store_of(pem, count);
  return static_cast<std::size_t>(count);
}

}  // namespace kueuepp::kube::tls

#include "kube/visibility/client_certificate.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kueuepp::kube::visibility {

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

}  // namespace

Expected<std::string> verify_client_certificate(const std::vector<std::string>& chain_der,
                                                const std::string& ca_bundle_pem) {
  if (chain_der.empty()) return fail("no client certificate");
  if (ca_bundle_pem.empty()) return fail("no front-proxy CA is configured (requestheader-client-ca-file)");
  Owned<X509> leaf = from_der(chain_der.front());
  if (!leaf) return fail("the client certificate does not parse");
  Owned<X509_STORE> store(X509_STORE_new());
  Owned<BIO> bio(BIO_new_mem_buf(ca_bundle_pem.data(), static_cast<int>(ca_bundle_pem.size())));
  int cas = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store.get(), ca);
    X509_free(ca);
    ++cas;
  }
  ERR_clear_error();
  if (cas == 0) return fail("requestheader-client-ca-file holds no PEM certificate");
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
    return fail(std::string("the client certificate is not signed by the front-proxy CA: ") +
                X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())));
  }
  char cn[256] = {0};
  int n = X509_NAME_get_text_by_NID(X509_get_subject_name(leaf.get()), NID_commonName, cn, sizeof(cn));
  return n > 0 ? std::string(cn, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace kueuepp::kube::visibility

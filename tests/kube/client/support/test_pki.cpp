#include "tests/kube/client/support/test_pki.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace kueuepp::kube::client::testing {

namespace {

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

PkeyPtr make_key() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), EVP_PKEY_free);
  check(key != nullptr, "key generation");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

X509Ptr make_cert(const std::string& cn, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
                  bool is_ca, const char* san, const char* eku) {
  static long serial = 1000;
  X509Ptr cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  add_extension(cert.get(), signer, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE");
  add_extension(cert.get(), signer, NID_key_usage,
                is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature,keyEncipherment");
  add_extension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (san) add_extension(cert.get(), signer, NID_subject_alt_name, san);
  if (eku) add_extension(cert.get(), signer, NID_ext_key_usage, eku);
  check(X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) > 0, "sign");
  return cert;
}

std::string pem_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(len));
  BIO_free(bio);
  return out;
}

std::string pem_of(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(len));
  BIO_free(bio);
  return out;
}

}  // namespace

TestPki make_test_pki(const std::string& ca_name) {
  PkeyPtr ca_key = make_key();
  X509Ptr ca = make_cert(ca_name, ca_key.get(), nullptr, nullptr, true, nullptr, nullptr);
  PkeyPtr server_key = make_key();
  X509Ptr server = make_cert("kube-apiserver", server_key.get(), ca.get(), ca_key.get(), false,
                             "IP:127.0.0.1,DNS:localhost", "serverAuth");
  PkeyPtr client_key = make_key();
  X509Ptr client = make_cert("kueuepp-test-user", client_key.get(), ca.get(), ca_key.get(), false,
                             nullptr, "clientAuth");
  return {{pem_of(ca.get()), pem_of(ca_key.get())},
          {pem_of(server.get()), pem_of(server_key.get())},
          {pem_of(client.get()), pem_of(client_key.get())}};
}

}  // namespace kueuepp::kube::client::testing

#include "kube/apiserver/server/tls/certificates.hpp"

#include <memory>

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace kueuepp::kube::server {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

std::string openssl_error(std::string_view what) {
  unsigned long code = ERR_get_error();
  char buf[256] = {0};
  ERR_error_string_n(code, buf, sizeof(buf));
  return fmt::format("{}: {}", what, code != 0 ? buf : "unknown OpenSSL error");
}

Owned<EVP_PKEY> new_key() { return Owned<EVP_PKEY>(EVP_EC_gen("P-256")); }

bool add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

Expected<Owned<X509>> new_certificate(EVP_PKEY* key, const std::string& common_name, long days) {
  Owned<X509> cert(X509_new());
  if (!cert) return fail(openssl_error("X509_new"));
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof(serial));
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 60L * 60 * 24 * days);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("kueuepp"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                             -1, 0);
  return cert;
}

Expected<std::string> pem_of(X509* cert) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return fail(openssl_error("writing a certificate"));
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

Expected<std::string> pem_of(EVP_PKEY* key) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return fail(openssl_error("writing a private key"));
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

bool is_ip(const std::string& host) { return host.find_first_not_of("0123456789.:abcdefABCDEF") == std::string::npos && host.find_first_of(".:") != std::string::npos; }

}  // namespace

namespace {

struct Authority {
  Owned<EVP_PKEY> key;
  Owned<X509> cert;
};

Expected<Authority> make_authority(const std::string& common_name) {
  Authority ca{new_key(), nullptr};
  if (!ca.key) return fail(openssl_error("generating an EC P-256 key"));
  auto cert = new_certificate(ca.key.get(), common_name, 3650);
  if (!cert) return unexpected(cert.error());
  ca.cert = std::move(*cert);
  X509_set_issuer_name(ca.cert.get(), X509_get_subject_name(ca.cert.get()));
  if (!add_extension(ca.cert.get(), ca.cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !add_extension(ca.cert.get(), ca.cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
      !add_extension(ca.cert.get(), ca.cert.get(), NID_subject_key_identifier, "hash")) {
    return fail(openssl_error("CA certificate extensions"));
  }
  if (X509_sign(ca.cert.get(), ca.key.get(), EVP_sha256()) == 0) return fail(openssl_error("signing the CA certificate"));
  return ca;
}

struct Leaf {
  Owned<EVP_PKEY> key;
  Owned<X509> cert;
};

/// A certificate signed by `ca` for `usage` ("serverAuth" or "clientAuth"), with the
/// subjectAltName `san` when not empty.
Expected<Leaf> make_leaf(const Authority& ca, const std::string& common_name, const std::string& usage,
                         const std::string& san) {
  Leaf leaf{new_key(), nullptr};
  if (!leaf.key) return fail(openssl_error("generating an EC P-256 key"));
  auto cert = new_certificate(leaf.key.get(), common_name, 825);
  if (!cert) return unexpected(cert.error());
  leaf.cert = std::move(*cert);
  X509* c = leaf.cert.get();
  X509_set_issuer_name(c, X509_get_subject_name(ca.cert.get()));
  if (!add_extension(c, ca.cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(c, ca.cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_extension(c, ca.cert.get(), NID_ext_key_usage, usage) ||
      (!san.empty() && !add_extension(c, ca.cert.get(), NID_subject_alt_name, san))) {
    return fail(openssl_error(fmt::format("{} certificate extensions", common_name)));
  }
  if (X509_sign(c, ca.key.get(), EVP_sha256()) == 0) return fail(openssl_error(fmt::format("signing {}", common_name)));
  return leaf;
}

Expected<CertificateSet> encode(const Authority& ca, const Leaf& leaf) {
  auto ca_pem = pem_of(ca.cert.get());
  auto ca_key_pem = pem_of(ca.key.get());
  auto leaf_pem = pem_of(leaf.cert.get());
  auto leaf_key_pem = pem_of(leaf.key.get());
  if (!ca_pem || !ca_key_pem || !leaf_pem || !leaf_key_pem) return fail(openssl_error("encoding PEM"));
  CertificateSet out;
  out.ca_cert_pem = std::move(*ca_pem);
  out.ca_key_pem = std::move(*ca_key_pem);
  out.server_cert_pem = std::move(*leaf_pem);
  out.server_key_pem = std::move(*leaf_key_pem);
  return out;
}

}  // namespace

Expected<CertificateSet> generate_certificates(const std::vector<std::string>& hosts) {
  auto ca = make_authority("kueuepp-ca");
  if (!ca) return unexpected(ca.error());
  std::string san;
  for (const auto& h : hosts) {
    if (!san.empty()) san += ",";
    san += (is_ip(h) ? "IP:" : "DNS:") + h;
  }
  auto server = make_leaf(*ca, "kueuepp-apiserver", "serverAuth", san);
  if (!server) return unexpected(server.error());
  return encode(*ca, *server);
}

Expected<CertificateSet> generate_client_certificates(const std::string& ca_name, const std::string& client_name) {
  auto ca = make_authority(ca_name);
  if (!ca) return unexpected(ca.error());
  auto client = make_leaf(*ca, client_name, "clientAuth", "");
  if (!client) return unexpected(client.error());
  return encode(*ca, *client);
}

}  // namespace kueuepp::kube::server

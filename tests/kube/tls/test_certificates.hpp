#pragma once

// Certificates for tests, made with OpenSSL: a CA, and leaf certificates it signs for a
// subject (client certificates, with organizations for groups; a serving certificate for
// 127.0.0.1). Shared by the tests of kube/tls, the visibility server and the API server.

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kueuepp::kube::tls::testing {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

class TestCa {
 public:
  explicit TestCa(const std::string& cn) : key_(EVP_EC_gen("P-256")), cert_(X509_new()) {
    init(cert_, key_, cn);
    X509_set_issuer_name(cert_, X509_get_subject_name(cert_));
    extend(cert_, cert_, NID_basic_constraints, "critical,CA:TRUE");
    extend(cert_, cert_, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
    X509_sign(cert_, key_, EVP_sha256());
  }
  ~TestCa() {
    X509_free(cert_);
    EVP_PKEY_free(key_);
  }
  TestCa(const TestCa&) = delete;
  TestCa& operator=(const TestCa&) = delete;

  std::string pem() const { return pem_of(cert_); }

  /// A leaf for `cn` (and `organizations`): a client certificate, or a serving one for
  /// 127.0.0.1.
  KeyPair issue(const std::string& cn, bool server = false, const std::vector<std::string>& organizations = {}) const {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    init(cert, key, cn);
    for (const std::string& o : organizations) {
      X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "O", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
    }
    X509_set_issuer_name(cert, X509_get_subject_name(cert_));
    extend(cert, cert_, NID_basic_constraints, "critical,CA:FALSE");
    extend(cert, cert_, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    extend(cert, cert_, NID_ext_key_usage, server ? "serverAuth" : "clientAuth");
    if (server) extend(cert, cert_, NID_subject_alt_name, "IP:127.0.0.1");
    X509_sign(cert, key_, EVP_sha256());
    KeyPair out{pem_of(cert), key_pem(key)};
    X509_free(cert);
    EVP_PKEY_free(key);
    return out;
  }

  /// The DER of the first certificate of `pem` (what a TLS peer sends).
  static std::string der_of(const std::string& pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (cert == nullptr) throw std::runtime_error("not a PEM certificate");
    unsigned char* out = nullptr;
    int n = i2d_X509(cert, &out);
    X509_free(cert);
    std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
    OPENSSL_free(out);
    return der;
  }

 private:
  static void init(X509* cert, EVP_PKEY* key, const std::string& cn) {
    static long serial = 1;
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600L * 24);
    X509_set_pubkey(cert, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  }
  static void extend(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr) throw std::runtime_error("extension");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  static std::string pem_of(X509* cert) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return out;
  }
  static std::string key_pem(EVP_PKEY* key) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return out;
  }

  EVP_PKEY* key_;
  X509* cert_;
};

}  // namespace kueuepp::kube::tls::testing

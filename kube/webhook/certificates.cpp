#include "kube/webhook/certificates.hpp"

#include <fmt/format.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

namespace kueuepp::kube::webhook {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

std::string openssl_error(std::string_view what) {
  unsigned long code = ERR_get_error();
  char buf[256] = {0};
  ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return fmt::format("{}: {}", what, code != 0 ? buf : "unknown OpenSSL error");
}

bool is_ip(const std::string& host) {
  return host.find_first_not_of("0123456789.:abcdefABCDEF") == std::string::npos &&
         host.find_first_of(".:") != std::string::npos;
}

bool add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

Expected<Owned<X509>> new_certificate(EVP_PKEY* key, const std::string& common_name, Clock::time_point now,
                                      std::chrono::seconds validity) {
  Owned<X509> cert(X509_new());
  if (!cert) return fail(openssl_error("X509_new"));
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return fail(openssl_error("RAND_bytes"));
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  // Valid from an hour before `now`: clocks of the API server and of this replica differ.
  const std::time_t from = Clock::to_time_t(now - std::chrono::hours(1));
  const std::time_t until = Clock::to_time_t(now + validity);
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), from) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), until) == nullptr) {
    return fail(openssl_error("certificate validity"));
  }
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

Owned<X509> read_cert(const std::string& pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Owned<X509>(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Owned<EVP_PKEY> read_key(const std::string& pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Owned<EVP_PKEY>(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

Expected<std::string> sign_serving(EVP_PKEY* ca_key, X509* ca, EVP_PKEY* server_key, const CertificateRequest& request) {
  if (request.hosts.empty()) return fail("a serving certificate needs at least one DNS name or address");
  auto server = new_certificate(server_key, "kueuepp-webhook", request.now, request.serving_validity);
  if (!server) return unexpected(server.error());
  X509_set_issuer_name(server->get(), X509_get_subject_name(ca));
  std::string san;
  for (const auto& h : request.hosts) {
    if (!san.empty()) san += ",";
    san += (is_ip(h) ? "IP:" : "DNS:") + h;
  }
  if (!add_extension(server->get(), ca, NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(server->get(), ca, NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_extension(server->get(), ca, NID_ext_key_usage, "serverAuth") ||
      !add_extension(server->get(), ca, NID_authority_key_identifier, "keyid:always") ||
      !add_extension(server->get(), ca, NID_subject_alt_name, san)) {
    return fail(openssl_error("serving certificate extensions"));
  }
  if (X509_sign(server->get(), ca_key, EVP_sha256()) == 0) return fail(openssl_error("signing the serving certificate"));
  return pem_of(server->get());
}

Clock::time_point time_of(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return Clock::time_point{};
  return Clock::from_time_t(timegm(&tm));
}

}  // namespace

Expected<CertificateBundle> generate_bundle(const CertificateRequest& request) {
  Owned<EVP_PKEY> ca_key(EVP_EC_gen("P-256"));
  Owned<EVP_PKEY> server_key(EVP_EC_gen("P-256"));
  if (!ca_key || !server_key) return fail(openssl_error("generating an EC P-256 key"));
  auto ca = new_certificate(ca_key.get(), "kueuepp-webhook-ca", request.now, request.ca_validity);
  if (!ca) return unexpected(ca.error());
  X509_set_issuer_name(ca->get(), X509_get_subject_name(ca->get()));
  if (!add_extension(ca->get(), ca->get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !add_extension(ca->get(), ca->get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
      !add_extension(ca->get(), ca->get(), NID_subject_key_identifier, "hash")) {
    return fail(openssl_error("CA certificate extensions"));
  }
  if (X509_sign(ca->get(), ca_key.get(), EVP_sha256()) == 0) return fail(openssl_error("signing the CA certificate"));
  auto serving = sign_serving(ca_key.get(), ca->get(), server_key.get(), request);
  if (!serving) return unexpected(serving.error());
  auto ca_pem = pem_of(ca->get());
  auto ca_key_pem = pem_of(ca_key.get());
  auto key_pem = pem_of(server_key.get());
  if (!ca_pem || !ca_key_pem || !key_pem) return fail(openssl_error("encoding PEM"));
  return CertificateBundle{std::move(*ca_pem), std::move(*ca_key_pem), std::move(*serving), std::move(*key_pem)};
}

Expected<CertificateBundle> reissue_serving(const CertificateBundle& current, const CertificateRequest& request) {
  Owned<X509> ca = read_cert(current.ca_cert_pem);
  Owned<EVP_PKEY> ca_key = read_key(current.ca_key_pem);
  if (!ca || !ca_key) return fail(openssl_error("reading the CA certificate and key"));
  Owned<EVP_PKEY> server_key(EVP_EC_gen("P-256"));
  if (!server_key) return fail(openssl_error("generating an EC P-256 key"));
  auto serving = sign_serving(ca_key.get(), ca.get(), server_key.get(), request);
  if (!serving) return unexpected(serving.error());
  auto key_pem = pem_of(server_key.get());
  if (!key_pem) return unexpected(key_pem.error());
  return CertificateBundle{current.ca_cert_pem, current.ca_key_pem, std::move(*serving), std::move(*key_pem)};
}

Expected<CertificateInfo> inspect_certificate(const std::string& pem) {
  Owned<X509> cert = read_cert(pem);
  if (!cert) return fail(openssl_error("not a PEM certificate"));
  CertificateInfo info;
  info.not_before = time_of(X509_get0_notBefore(cert.get()));
  info.not_after = time_of(X509_get0_notAfter(cert.get()));
  Owned<GENERAL_NAMES> names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr)));
  if (names) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(names.get(), i);
      if (n->type == GEN_DNS) {
        const ASN1_IA5STRING* s = n->d.dNSName;
        info.hosts.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                static_cast<std::size_t>(ASN1_STRING_length(s)));
      } else if (n->type == GEN_IPADD) {
        const ASN1_OCTET_STRING* ip = n->d.iPAddress;
        char text[64] = {0};
        const unsigned char* b = ASN1_STRING_get0_data(ip);
        if (ASN1_STRING_length(ip) == 4) {
          std::snprintf(text, sizeof(text), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
          info.hosts.emplace_back(text);
        } else if (ASN1_STRING_length(ip) == 16) {
          bool loopback = true;
          for (int k = 0; k < 15; ++k) loopback = loopback && b[k] == 0;
          loopback = loopback && b[15] == 1;
          info.hosts.emplace_back(loopback ? "::1" : "ipv6");
        }
      }
    }
  }
  return info;
}

std::vector<std::string> split_pem_certificates(const std::string& pem) {
  std::vector<std::string> out;
  constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
  std::size_t pos = 0;
  while (true) {
    std::size_t begin = pem.find("-----BEGIN CERTIFICATE-----", pos);
    if (begin == std::string::npos) break;
    std::size_t end = pem.find(kEnd, begin);
    if (end == std::string::npos) break;
    end += kEnd.size();
    out.push_back(pem.substr(begin, end - begin) + "\n");
    pos = end;
  }
  return out;
}

Status verify_serving(const CertificateBundle& bundle) {
  Owned<X509> cert = read_cert(bundle.cert_pem);
  if (!cert) return fail(openssl_error("the serving certificate is not PEM"));
  Owned<EVP_PKEY> key = read_key(bundle.key_pem);
  if (!key) return fail(openssl_error("the serving key is not PEM"));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return fail("the serving key does not belong to the serving certificate");
  }
  if (bundle.ca_cert_pem.empty()) return {};  // files without a CA: trust is the API server's business
  Owned<X509_STORE> store(X509_STORE_new());
  for (const auto& pem : split_pem_certificates(bundle.ca_cert_pem)) {
    Owned<X509> ca = read_cert(pem);
    if (ca) X509_STORE_add_cert(store.get(), ca.get());
  }
  Owned<X509_STORE_CTX> ctx(X509_STORE_CTX_new());
  if (!store || !ctx || X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr) != 1) {
    return fail(openssl_error("preparing the certificate check"));
  }
  // Validity in time is the rotation's business (it has the clock); here only the chain.
  X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_NO_CHECK_TIME);
  if (X509_verify_cert(ctx.get()) != 1) {
    const int err = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return fail(std::string("the serving certificate is not signed by the CA bundle: ") +
                X509_verify_cert_error_string(err));
  }
  return {};
}

}  // namespace kueuepp::kube::webhook

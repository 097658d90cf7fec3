#include "kube/tls/certificate_authority.hpp"

#include <cstdio>
#include <ctime>
#include <memory>

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

namespace kueuepp::kube::tls {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
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

void add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                             0);
}

/// An unsigned certificate for `key`: a random serial, the validity, the subject.
Expected<Owned<X509>> new_certificate(EVP_PKEY* key, const std::string& common_name,
                                      const std::vector<std::string>& organizations,
                                      CertificateClock::time_point now, std::chrono::seconds validity) {
  Owned<X509> cert(X509_new());
  if (!cert) return fail(openssl_error("X509_new"));
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return fail(openssl_error("RAND_bytes"));
  serial[0] &= 0x7f;
  Owned<BIGNUM> bn(BN_bin2bn(serial, sizeof(serial), nullptr));
  if (!bn || BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return fail(openssl_error("certificate serial number"));
  }
  // Valid from an hour before `now`: the clocks of the peers differ.
  const std::time_t from = CertificateClock::to_time_t(now - std::chrono::hours(1));
  const std::time_t until = CertificateClock::to_time_t(now + validity);
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), from) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), until) == nullptr) {
    return fail(openssl_error("certificate validity"));
  }
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& o : organizations) add_name_entry(name, "O", o);
  add_name_entry(name, "CN", common_name);
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

Expected<CertifiedKey> encode(X509* cert, EVP_PKEY* key) {
  auto cert_pem = pem_of(cert);
  if (!cert_pem) return unexpected(cert_pem.error());
  auto key_pem = pem_of(key);
  if (!key_pem) return unexpected(key_pem.error());
  return CertifiedKey{std::move(*cert_pem), std::move(*key_pem)};
}

Owned<X509> read_certificate(const std::string& pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Owned<X509>(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Owned<EVP_PKEY> read_key(const std::string& pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Owned<EVP_PKEY>(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

CertificateClock::time_point time_of(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return CertificateClock::time_point{};
  return CertificateClock::from_time_t(timegm(&tm));
}

std::string subject_alt_names(const std::vector<std::string>& hosts) {
  std::string san;
  for (const auto& h : hosts) {
    if (!san.empty()) san += ",";
    san += (is_ip(h) ? "IP:" : "DNS:") + h;
  }
  return san;
}

}  // namespace

Expected<CertifiedKey> make_certificate_authority(const std::string& common_name, CertificateClock::time_point now,
                                                  std::chrono::seconds validity) {
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (!key) return fail(openssl_error("generating an EC P-256 key"));
  auto cert = new_certificate(key.get(), common_name, {"kueuepp"}, now, validity);
  if (!cert) return unexpected(cert.error());
  X509* c = cert->get();
  X509_set_issuer_name(c, X509_get_subject_name(c));
  if (!add_extension(c, c, NID_basic_constraints, "critical,CA:TRUE") ||
      !add_extension(c, c, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
      !add_extension(c, c, NID_subject_key_identifier, "hash")) {
    return fail(openssl_error("CA certificate extensions"));
  }
  if (X509_sign(c, key.get(), EVP_sha256()) == 0) return fail(openssl_error("signing the CA certificate"));
  return encode(c, key.get());
}

Expected<CertifiedKey> issue_certificate(const CertifiedKey& ca, const LeafCertificateRequest& request) {
  const bool serving = request.usage == LeafCertificateRequest::Usage::Server;
  if (serving && request.hosts.empty()) return fail("a serving certificate needs at least one DNS name or address");
  Owned<X509> ca_cert = read_certificate(ca.cert_pem);
  Owned<EVP_PKEY> ca_key = read_key(ca.key_pem);
  if (!ca_cert || !ca_key) return fail(openssl_error("reading the CA certificate and key"));
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (!key) return fail(openssl_error("generating an EC P-256 key"));
  auto cert = new_certificate(key.get(), request.common_name, request.organizations, request.now, request.validity);
  if (!cert) return unexpected(cert.error());
  X509* c = cert->get();
  X509_set_issuer_name(c, X509_get_subject_name(ca_cert.get()));
  const std::string san = subject_alt_names(request.hosts);
  if (!add_extension(c, ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(c, ca_cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_extension(c, ca_cert.get(), NID_ext_key_usage, serving ? "serverAuth" : "clientAuth") ||
      !add_extension(c, ca_cert.get(), NID_authority_key_identifier, "keyid:always") ||
      (!san.empty() && !add_extension(c, ca_cert.get(), NID_subject_alt_name, san))) {
    return fail(openssl_error(fmt::format("{} certificate extensions", request.common_name)));
  }
  if (X509_sign(c, ca_key.get(), EVP_sha256()) == 0) {
    return fail(openssl_error(fmt::format("signing {}", request.common_name)));
  }
  return encode(c, key.get());
}

Expected<CertificateInfo> inspect_certificate(const std::string& pem) {
  Owned<X509> cert = read_certificate(pem);
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

Status verify_certified_key(const CertifiedKey& leaf, const std::string& ca_bundle_pem) {
  Owned<X509> cert = read_certificate(leaf.cert_pem);
  if (!cert) return fail(openssl_error("the serving certificate is not PEM"));
  Owned<EVP_PKEY> key = read_key(leaf.key_pem);
  if (!key) return fail(openssl_error("the serving key is not PEM"));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return fail("the serving key does not belong to the serving certificate");
  }
  if (ca_bundle_pem.empty()) return {};  // files without a CA: trust is the API server's business
  Owned<X509_STORE> store(X509_STORE_new());
  for (const auto& pem : split_pem_certificates(ca_bundle_pem)) {
    Owned<X509> ca = read_certificate(pem);
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

}  // namespace kueuepp::kube::tls

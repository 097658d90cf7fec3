#include "kube/apiserver/server/auth/jws_key.hpp"

#include <array>
#include <optional>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "core/base64.hpp"

namespace kueuepp::kube::server::auth {

namespace {

struct Free {
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(char* p) const { OPENSSL_free(p); }
  void operator()(unsigned char* p) const { OPENSSL_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

// P-256 coordinates (and so ES256's r and s) are 32 bytes.
constexpr std::size_t kEs256Half = 32;

// The error queue is per thread and the server's TLS sessions share the thread: what a
// failed parse or verification leaves behind must not be read as theirs.
std::string take_openssl_error() {
  unsigned long code = ERR_get_error();
  char buf[256] = {0};
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return code != 0 ? std::string(buf) : std::string("unknown OpenSSL error");
}

std::shared_ptr<EVP_PKEY> share(EVP_PKEY* key) { return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free); }

/// The JWS algorithm a key signs with, or an error naming what it is instead.
Expected<std::string> algorithm_of(EVP_PKEY* key) {
  int id = EVP_PKEY_get_base_id(key);
  if (id == EVP_PKEY_RSA) return std::string("RS256");
  if (id == EVP_PKEY_EC) {
    std::array<char, 64> group{};
    std::size_t len = 0;
    if (EVP_PKEY_get_group_name(key, group.data(), group.size(), &len) != 1) {
      return fail("an EC key whose curve cannot be read: " + take_openssl_error());
    }
    std::string curve(group.data(), len);
    if (curve == "prime256v1" || curve == "P-256") return std::string("ES256");
    return fail("an EC key on curve " + curve + ", where ServiceAccount tokens need P-256 (ES256) or an RSA key (RS256)");
  }
  return fail(fmt::format("a key of type {}, where ServiceAccount tokens need an RSA (RS256) or EC P-256 (ES256) key",
                          OBJ_nid2sn(id)));
}

Expected<std::string> key_id_of(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return fail("cannot encode the public key: " + take_openssl_error());
  Owned<unsigned char> owned(der);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_len = 0;
  if (EVP_Digest(der, static_cast<std::size_t>(len), digest.data(), &digest_len, EVP_sha256(), nullptr) != 1) {
    return fail("cannot hash the public key: " + take_openssl_error());
  }
  return core::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest_len));
}

/// DER ECDSA-Sig-Value to JWS's fixed-width r||s, and back.
Expected<std::string> der_to_raw_ecdsa(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  Owned<ECDSA_SIG> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) return fail("cannot read the ECDSA signature: " + take_openssl_error());
  std::string raw(2 * kEs256Half, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), out, kEs256Half) != static_cast<int>(kEs256Half) ||
      BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), out + kEs256Half, kEs256Half) != static_cast<int>(kEs256Half)) {
    return fail("the ECDSA signature does not fit P-256");
  }
  return raw;
}

std::optional<std::string> raw_to_der_ecdsa(std::string_view raw) {
  if (raw.size() != 2 * kEs256Half) return std::nullopt;
  const auto* in = reinterpret_cast<const unsigned char*>(raw.data());
  BIGNUM* r = BN_bin2bn(in, kEs256Half, nullptr);
  BIGNUM* s = BN_bin2bn(in + kEs256Half, kEs256Half, nullptr);
  Owned<ECDSA_SIG> sig(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || !sig || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return std::nullopt;
  Owned<unsigned char> owned(der);
  return std::string(reinterpret_cast<const char*>(der), static_cast<std::size_t>(len));
}

/// The key of one PEM block, null for a block that holds none (EC PARAMETERS, ...).
Expected<EVP_PKEY*> key_of_block(std::string_view type, const unsigned char* data, long len, bool& is_private) {
  const unsigned char* p = data;
  is_private = false;
  if (type == "PRIVATE KEY" || type == "RSA PRIVATE KEY" || type == "EC PRIVATE KEY") {
    is_private = true;
    EVP_PKEY* key = d2i_AutoPrivateKey(nullptr, &p, len);
    if (key == nullptr) return fail(fmt::format("a {} block that does not parse: {}", type, take_openssl_error()));
    return key;
  }
  if (type == "PUBLIC KEY") {
    EVP_PKEY* key = d2i_PUBKEY(nullptr, &p, len);
    if (key == nullptr) return fail("a PUBLIC KEY block that does not parse: " + take_openssl_error());
    return key;
  }
  if (type == "RSA PUBLIC KEY") {
    EVP_PKEY* key = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, len);
    if (key == nullptr) return fail("an RSA PUBLIC KEY block that does not parse: " + take_openssl_error());
    return key;
  }
  if (type == "CERTIFICATE") {
    Owned<X509> cert(d2i_X509(nullptr, &p, len));
    if (!cert) return fail("a CERTIFICATE block that does not parse: " + take_openssl_error());
    EVP_PKEY* key = X509_get_pubkey(cert.get());
    if (key == nullptr) return fail("a certificate whose public key cannot be read: " + take_openssl_error());
    return key;
  }
  return static_cast<EVP_PKEY*>(nullptr);
}

}  // namespace

JwsKey::JwsKey(std::shared_ptr<evp_pkey_st> key, bool can_sign) : key_(std::move(key)), can_sign_(can_sign) {}

Expected<JwsKey> JwsKey::generate() {
  EVP_PKEY* raw = EVP_EC_gen("P-256");
  if (raw == nullptr) return fail("cannot generate an EC P-256 key for ServiceAccount tokens: " + take_openssl_error());
  JwsKey key(share(raw), true);
  key.algorithm_ = "ES256";
  auto id = key_id_of(raw);
  if (!id) return unexpected(id.error());
  key.key_id_ = std::move(*id);
  return key;
}

Expected<std::vector<JwsKey>> JwsKey::from_pem(std::string_view pem, std::string_view source) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return fail(fmt::format("{}: {}", source, take_openssl_error()));
  std::vector<JwsKey> keys;
  for (int block = 1;; ++block) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) break;
    Owned<char> owned_name(name), owned_header(header);
    Owned<unsigned char> owned_data(data);
    if (header != nullptr && std::string_view(header).find("ENCRYPTED") != std::string_view::npos) {
      return fail(fmt::format("{}: PEM block {} is encrypted; give the key unencrypted", source, block));
    }
    bool is_private = false;
    auto key = key_of_block(name, data, len, is_private);
    if (!key) return fail(fmt::format("{}: PEM block {} is {}", source, block, key.error().message));
    if (*key == nullptr) continue;
    std::shared_ptr<EVP_PKEY> shared = share(*key);
    auto algorithm = algorithm_of(shared.get());
    if (!algorithm) return fail(fmt::format("{}: PEM block {} is {}", source, block, algorithm.error().message));
    auto id = key_id_of(shared.get());
    if (!id) return fail(fmt::format("{}: PEM block {}: {}", source, block, id.error().message));
    JwsKey k(std::move(shared), is_private);
    k.algorithm_ = std::move(*algorithm);
    k.key_id_ = std::move(*id);
    keys.push_back(std::move(k));
  }
  // The loop ends on the read that finds no more blocks, which leaves an error queued.
  ERR_clear_error();
  if (keys.empty()) return fail(fmt::format("{}: holds no PEM private key, public key or certificate", source));
  return keys;
}

Expected<std::vector<JwsKey>> JwsKey::from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read the key file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return from_pem(text.str(), path);
}

Expected<std::string> JwsKey::private_pem() const {
  if (!can_sign_) return fail("a public key has no private PEM");
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return fail("cannot write the ServiceAccount signing key: " + take_openssl_error());
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

Expected<std::string> JwsKey::sign(std::string_view signing_input) const {
  if (!key_) return fail("no key to sign with");
  if (!can_sign_) return fail("key " + key_id_ + " is a public key: it cannot sign");
  Owned<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  std::size_t len = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(signing_input.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, in, signing_input.size()) != 1) {
    return fail("cannot sign a ServiceAccount token: " + take_openssl_error());
  }
  std::string signature(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &len, in, signing_input.size()) != 1) {
    return fail("cannot sign a ServiceAccount token: " + take_openssl_error());
  }
  signature.resize(len);
  if (algorithm_ == "ES256") return der_to_raw_ecdsa(signature);
  return signature;
}

bool JwsKey::verify(std::string_view signing_input, std::string_view signature) const {
  if (!key_) return false;
  std::string der;
  if (algorithm_ == "ES256") {
    auto converted = raw_to_der_ecdsa(signature);
    if (!converted) {
      ERR_clear_error();
      return false;
    }
    der = std::move(*converted);
    signature = der;
  }
  Owned<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) == 1 &&
            EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace kueuepp::kube::server::auth

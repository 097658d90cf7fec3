#pragma once

// A key that signs or verifies JSON Web Signatures (RFC 7515) as kube-apiserver's
// ServiceAccount tokens use them: RSA keys sign RS256, EC P-256 keys ES256. Keys come from
// PEM files as kube-apiserver's --service-account-signing-key-file (a private key) and
// --service-account-key-file (private or public keys, or certificates: verification only)
// take them, or are generated (EC P-256). OpenSSL stays behind this interface.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

struct evp_pkey_st;

namespace kueuepp::kube::server::auth {

class JwsKey {
 public:
  /// No key: signs nothing, verifies nothing.
  JwsKey() = default;
  /// A new EC P-256 private key (ES256).
  static Expected<JwsKey> generate();
  /// Every key of a PEM text (private keys, public keys, certificates' public keys), in
  /// order. The error names `source` and says what it holds that is not a usable key
  /// (none at all, an unsupported curve or key type, a block that does not parse).
  static Expected<std::vector<JwsKey>> from_pem(std::string_view pem, std::string_view source);
  /// Reads a PEM file (from_pem).
  static Expected<std::vector<JwsKey>> from_file(const std::string& path);

  /// "RS256" or "ES256".
  std::string_view algorithm() const { return algorithm_; }
  /// kube-apiserver's key id: the unpadded base64url of the SHA-256 of the public key's
  /// DER (SubjectPublicKeyInfo), so that verifiers can pick the key.
  const std::string& key_id() const { return key_id_; }
  bool can_sign() const { return can_sign_; }

  /// The private key as PKCS#8 PEM (for the data directory); an error for a public key.
  Expected<std::string> private_pem() const;
  /// The JWS signature of `signing_input` (raw bytes: PKCS#1 v1.5 for RS256, r||s for ES256).
  Expected<std::string> sign(std::string_view signing_input) const;
  /// Whether `signature` is this key's signature of `signing_input`.
  bool verify(std::string_view signing_input, std::string_view signature) const;

 private:
  JwsKey(std::shared_ptr<evp_pkey_st> key, bool can_sign);
  std::shared_ptr<evp_pkey_st> key_;
  std::string algorithm_;
  std::string key_id_;
  bool can_sign_ = false;
};

}  // namespace kueuepp::kube::server::auth

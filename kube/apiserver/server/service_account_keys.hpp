#pragma once

// Where the keys of ServiceAccount tokens come from, as kube-apiserver's flags name them:
// --service-account-signing-key-file (the private key that signs, also verifying) and
// --service-account-key-file (more keys that verify, e.g. a previous signing key's). With
// no signing key file, the key is the data directory's (<data-dir>/pki/service-account.key,
// made on first start, so that tokens stay valid across restarts), or, memory only, one
// made at start.

#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/auth/jws_key.hpp"

namespace kueuepp::kube::server {

struct ServiceAccountKeys {
  auth::JwsKey signing_key;
  std::vector<auth::JwsKey> verification_keys;
};

/// The error names the file and what is wrong (unreadable, no private key where one is
/// needed, an unsupported key type).
Expected<ServiceAccountKeys> load_service_account_keys(const std::string& signing_key_file,
                                                       const std::vector<std::string>& key_files,
                                                       const std::string& data_dir);

}  // namespace kueuepp::kube::server

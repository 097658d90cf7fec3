#pragma once

// kubeconfig files as kubectl reads them: clusters, users, contexts, current-context;
// file references resolved relative to the file that names them; `*-data` fields
// base64-decoded; several files (KUBECONFIG=a:b) merged with "the first file to set a
// value wins".

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/client_config.hpp"

namespace kueuepp::kube::client {

struct KubeconfigCluster {
  std::string server;
  std::string certificate_authority;       ///< a path (absolute after loading)
  std::string certificate_authority_data;  ///< decoded PEM
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
};

struct KubeconfigUser {
  std::string client_certificate;       ///< a path
  std::string client_certificate_data;  ///< decoded PEM
  std::string client_key;               ///< a path
  std::string client_key_data;          ///< decoded PEM
  std::string token;
  std::string token_file;               ///< a path
  bool has_unsupported_auth = false;    ///< exec / auth-provider / username+password
};

struct KubeconfigContext {
  std::string cluster;
  std::string user;
  std::string namespace_name;
};

struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters;
  std::map<std::string, KubeconfigUser> users;
  std::map<std::string, KubeconfigContext> contexts;
  std::string current_context;
};

/// Parses one kubeconfig document. `file_path` is used to resolve relative file
/// references and in error messages.
Expected<Kubeconfig> parse_kubeconfig(std::string_view yaml, std::string_view file_path);

/// Merges configs in priority order: for each named cluster, user and context and for
/// current-context, the first config that sets it wins (kubectl's rule).
Kubeconfig merge_kubeconfigs(const std::vector<Kubeconfig>& configs);

/// Resolves `context` (empty: current-context) to a ClientConfig, reading the files it
/// references. `source` describes the origin for messages.
Expected<ClientConfig> resolve_kubeconfig(const Kubeconfig& config, std::string_view context,
                                          std::string_view source);

/// Environment lookup (injectable for tests); returns nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
EnvLookup process_environment();

struct KubeconfigLoadOptions {
  /// --kubeconfig: only this file is read (it must exist).
  std::string explicit_path;
  /// --context: overrides current-context.
  std::string context;
  EnvLookup env = process_environment();
};

/// kubectl's loading rules: the explicit path; else every file of KUBECONFIG
/// (colon-separated; missing files skipped; merged); else $HOME/.kube/config.
Expected<ClientConfig> load_kubeconfig(const KubeconfigLoadOptions& options);

}  // namespace kueuepp::kube::client

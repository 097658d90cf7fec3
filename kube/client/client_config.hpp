#pragma once

// Where the API server is and how to authenticate to it: the result of reading a
// kubeconfig or the in-cluster service account, and the input of Client::create.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::kube::client {

struct ClientConfig {
  /// `https://host:port[/prefix]` or `http://host:port[/prefix]`.
  std::string server;
  /// Name to verify the server certificate against (and send as SNI) instead of the
  /// host in `server` (kubeconfig `tls-server-name`).
  std::string tls_server_name;
  /// PEM text of the CA certificates to trust. Empty: the system trust store.
  std::string ca_pem;
  /// Skips server certificate verification (kubeconfig `insecure-skip-tls-verify`).
  bool insecure_skip_tls_verify = false;
  /// PEM text of a client certificate (chain) and its private key (mutual TLS).
  std::string client_certificate_pem;
  std::string client_key_pem;
  /// A static bearer token.
  std::string token;
  /// A file holding the bearer token, re-read periodically and on 401 because it
  /// rotates (service-account tokens). Takes precedence over `token` once readable.
  std::string token_file;
  /// The namespace of the context (in-cluster: the pod's namespace).
  std::string default_namespace = "default";
  /// Where this configuration came from, for messages (`kubeconfig /x context y`).
  std::string source;
};

/// The parts of `ClientConfig::server`.
struct ServerEndpoint {
  bool tls = true;
  std::string host;  ///< without IPv6 brackets
  std::uint16_t port = 443;
  std::string path_prefix;  ///< "" or "/prefix" (no trailing slash), prepended to targets

  /// `host:port` with IPv6 brackets, for the Host header.
  std::string host_header() const;
};

/// Parses `https://host[:port][/prefix]`; a bare `host:port` is taken as https.
Expected<ServerEndpoint> parse_server_url(std::string_view server);

}  // namespace kueuepp::kube::client

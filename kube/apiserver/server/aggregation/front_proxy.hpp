#pragma once

// The front proxy, as kube-apiserver is one for aggregated API servers: it tells the
// backend who the caller is in request headers (X-Remote-User, one X-Remote-Group per
// group, X-Remote-Extra-<key> per extra value), which the backend trusts only because the
// connection presents a client certificate signed by the front-proxy CA. The CA and the
// header names are published in ConfigMap kube-system/extension-apiserver-authentication
// (keys requestheader-*), where aggregated servers read them. Pure, but for the
// certificate generation.

#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/http/headers.hpp"
#include "kube/apiserver/server/api/request_user.hpp"

namespace kueuepp::kube::server {

inline constexpr std::string_view kFrontProxyClientName = "front-proxy-client";
inline constexpr std::string_view kAuthenticationConfigMapNamespace = "kube-system";
inline constexpr std::string_view kAuthenticationConfigMapName = "extension-apiserver-authentication";

struct FrontProxyCredentials {
  std::string ca_pem;           ///< requestheader-client-ca-file
  std::string client_cert_pem;  ///< presented to backends, CN front-proxy-client
  std::string client_key_pem;
};

/// The front-proxy CA and the client certificate it signs, kept in `pki_dir`
/// (front-proxy-ca.crt, front-proxy-client.crt, ...) so that a restarted server publishes
/// the same CA; made afresh when `pki_dir` is empty.
Expected<FrontProxyCredentials> front_proxy_credentials(const std::string& pki_dir);

/// The headers sent to a backend: the caller's, but for hop-by-hop ones, Host,
/// Authorization and any X-Remote-* (a caller must not name itself), then the
/// front-proxy headers naming `user`.
http::Headers proxied_request_headers(const http::Headers& incoming, const RequestUser& user);

/// Whether a backend's response header is passed on to the caller (not hop-by-hop, and
/// not one the server writes itself: Content-Length, Content-Type, Transfer-Encoding).
bool passed_back(std::string_view header_name);

/// ConfigMap kube-system/extension-apiserver-authentication as kube-apiserver writes it.
/// `client_ca_pem` (client-ca-file) is left out when empty: the server authenticates no
/// client certificates.
json::value authentication_config_map(const FrontProxyCredentials& credentials, std::string_view client_ca_pem);

}  // namespace kueuepp::kube::server

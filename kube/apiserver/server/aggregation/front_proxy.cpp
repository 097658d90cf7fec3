#include "kube/apiserver/server/aggregation/front_proxy.hpp"

#include <array>
#include <cctype>

#include "kube/apiserver/server/tls/certificates.hpp"
#include "kube/apiserver/server/tls/tls_setup.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::array<std::string_view, 9> kHopByHop{"connection",        "keep-alive", "proxy-authenticate",
                                                     "proxy-authorization", "proxy-connection", "te",
                                                     "trailer",             "transfer-encoding", "upgrade"};

bool hop_by_hop(std::string_view name) {
  for (std::string_view h : kHopByHop) {
    if (http::iequals(name, h)) return true;
  }
  return false;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && http::iequals(s.substr(0, prefix.size()), prefix);
}

/// Extra keys travel percent-encoded in header names, as client-go's SetAuthProxyHeaders
/// escapes them (url.PathEscape).
std::string escape_extra_key(std::string_view key) {
  std::string out;
  for (unsigned char c : key) {
    bool plain = std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

}  // namespace

Expected<FrontProxyCredentials> front_proxy_credentials(const std::string& pki_dir) {
  auto certs = load_or_make_certificates(pki_dir, "front-proxy", [] {
    return generate_client_certificates("front-proxy-ca", std::string(kFrontProxyClientName));
  });
  if (!certs) return fail("making the front-proxy CA and client certificate: " + certs.error().message);
  return FrontProxyCredentials{std::move(certs->ca_cert_pem), std::move(certs->server_cert_pem),
                               std::move(certs->server_key_pem)};
}

http::Headers proxied_request_headers(const http::Headers& incoming, const RequestUser& user) {
  http::Headers out;
  for (const auto& [name, value] : incoming) {
    if (hop_by_hop(name) || http::iequals(name, "host") || http::iequals(name, "authorization") ||
        starts_with_ci(name, "x-remote-")) {
      continue;
    }
    out.emplace_back(name, value);
  }
  out.emplace_back("X-Remote-User", user.name);
  for (const auto& group : user.groups) out.emplace_back("X-Remote-Group", group);
  for (const auto& [key, values] : user.extra) {
    for (const auto& value : values) out.emplace_back("X-Remote-Extra-" + escape_extra_key(key), value);
  }
  return out;
}

bool passed_back(std::string_view header_name) {
  return !hop_by_hop(header_name) && !http::iequals(header_name, "content-length") &&
         !http::iequals(header_name, "content-type") && !http::iequals(header_name, "cache-control");
}

json::value authentication_config_map(const FrontProxyCredentials& credentials, std::string_view client_ca_pem) {
  json::object data;
  if (!client_ca_pem.empty()) data["client-ca-file"] = client_ca_pem;
  data["requestheader-allowed-names"] = json::dump(json::array{std::string(kFrontProxyClientName)});
  data["requestheader-client-ca-file"] = credentials.ca_pem;
  data["requestheader-extra-headers-prefix"] = json::dump(json::array{"X-Remote-Extra-"});
  data["requestheader-group-headers"] = json::dump(json::array{"X-Remote-Group"});
  data["requestheader-username-headers"] = json::dump(json::array{"X-Remote-User"});
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", json::object{{"name", kAuthenticationConfigMapName},
                                                {"namespace", kAuthenticationConfigMapNamespace}}},
                      {"data", std::move(data)}};
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/outbound/client_config.hpp"

#include <fmt/format.h>

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

std::string text(const json::value& v, std::string_view key) { return std::string(json::get_string(v, key)); }

/// https://host[:port][/path] split for the transport.
struct UrlParts {
  std::string host;
  std::string port = "443";
  std::string path = "/";
};

std::optional<UrlParts> split_url(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  std::string_view rest = url.substr(kScheme.size());
  std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  UrlParts out;
  if (slash != std::string_view::npos) out.path = std::string(rest.substr(slash));
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = std::string(authority.substr(close + 2));
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    out.host = std::string(authority.substr(0, colon));
    out.port = std::string(authority.substr(colon + 1));
  } else {
    out.host = std::string(authority);
  }
  if (out.host.empty()) return std::nullopt;
  return out;
}

std::string with_query(std::string path, std::string_view query) {
  if (query.empty()) return path;
  path += path.find('?') == std::string::npos ? '?' : '&';
  path += query;
  return path;
}

}  // namespace

ServicePort service_port(const json::value& service, int port) {
  ServicePort out;
  out.target = port;
  const json::value* spec = json::find(service, "spec");
  const json::value* ports = spec != nullptr ? json::find(*spec, "ports") : nullptr;
  if (ports == nullptr || !ports->is_array()) return out;
  for (const auto& p : ports->as_array()) {
    const json::value* number = json::find(p, "port");
    if (number == nullptr || !number->is_int64() || number->get_int64() != port) continue;
    out.listed = true;
    out.name = std::string(json::get_string(p, "name"));
    const json::value* target = json::find(p, "targetPort");
    if (target != nullptr && target->is_int64()) out.target = static_cast<int>(target->get_int64());
    break;
  }
  return out;
}

WebhookClientConfig read_client_config(const json::value& cc) {
  WebhookClientConfig out;
  if (!cc.is_object()) return out;
  out.url = text(cc, "url");
  if (const json::value* svc = json::find(cc, "service"); svc != nullptr && svc->is_object()) {
    out.service_namespace = text(*svc, "namespace");
    out.service_name = text(*svc, "name");
    out.service_path = text(*svc, "path");
    if (const json::value* port = json::find(*svc, "port"); port != nullptr && port->is_int64()) {
      out.service_port = static_cast<int>(port->get_int64());
    }
  }
  if (auto ca = core::base64_decode(json::get_string(cc, "caBundle"))) out.ca_bundle_pem = std::move(*ca);
  return out;
}

Expected<WebhookTarget> resolve_webhook_target(const WebhookClientConfig& config, std::string_view query,
                                               const ServiceLookup& services, const std::string& service_host) {
  WebhookTarget t;
  t.ca_pem = config.ca_bundle_pem;
  if (!config.url.empty()) {
    auto parts = split_url(config.url);
    if (!parts) return fail(fmt::format("could not get REST client: invalid URL \"{}\"", config.url));
    t.host = parts->host;
    t.port = parts->port;
    t.path = with_query(parts->path, query);
    t.server_name = parts->host;
    t.display_url = query.empty() ? config.url : config.url + "?" + std::string(query);
    return t;
  }
  std::string path = config.service_path.empty() ? "/" : config.service_path;
  t.server_name = fmt::format("{}.{}.svc", config.service_name, config.service_namespace);
  t.display_url = with_query(fmt::format("https://{}:{}{}", t.server_name, config.service_port, path), query);
  t.path = with_query(path, query);
  std::optional<json::value> svc = services ? services(config.service_namespace, config.service_name) : std::nullopt;
  if (!svc) {
    return fail(fmt::format("Post \"{}\": service \"{}\" not found", t.display_url, config.service_name));
  }
  t.host = service_host;
  t.port = std::to_string(service_port(*svc, config.service_port).target);
  return t;
}

std::string unsuccessful_answer(const WebhookReply& reply) {
  if (auto doc = json::parse(reply.body); doc && doc->is_object() && json::get_string(*doc, "kind") == "Status") {
    std::string_view message = json::get_string(*doc, "message");
    if (!message.empty()) return std::string(message);
  }
  switch (reply.status) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "Unauthorized";
    case 403: return "forbidden";
    case 404: return "the server could not find the requested resource";
    case 409: return "the server reported a conflict";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504: return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default: break;
  }
  if (reply.status >= 500) {
    std::string body = reply.body.substr(0, 256);
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
    return fmt::format("an error on the server (\"{}\") has prevented the request from succeeding", body);
  }
  return fmt::format("the server responded with the status code {} but did not return more information", reply.status);
}

}  // namespace kueuepp::kube::server

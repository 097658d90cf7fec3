#include "cmd/standalone/visibility_registration.hpp"

#include <fmt/format.h>

#include "kube/client/blocking_client.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::cmd {

namespace {

Status apply(kube::client::BlockingClient& client, const std::string& path, const json::object& object) {
  kube::client::HttpRequest req;
  req.method = "PATCH";
  req.target = path + "?fieldManager=kueuepp&force=true";
  req.headers.emplace_back("Content-Type", "application/apply-patch+yaml");
  req.headers.emplace_back("Accept", "application/json");
  req.body = json::dump(object);
  auto r = client.raw(std::move(req));
  if (!r) return fail(path + ": " + r.error().describe());
  if (r->status / 100 != 2) return fail(fmt::format("{}: the API server answered {}: {}", path, r->status, r->body));
  return {};
}

json::object api_service(const std::string& version, const std::string& ns) {
  json::object spec;
  spec["group"] = "visibility.kueue.x-k8s.io";
  spec["version"] = version;
  spec["groupPriorityMinimum"] = 100;
  spec["versionPriority"] = 100;
  spec["insecureSkipTLSVerify"] = true;
  spec["service"] = json::object{{"name", "kueuepp-visibility-server"}, {"namespace", ns}, {"port", 443}};
  json::object o;
  o["apiVersion"] = "apiregistration.k8s.io/v1";
  o["kind"] = "APIService";
  o["metadata"] = json::object{{"name", version + ".visibility.kueue.x-k8s.io"}};
  o["spec"] = std::move(spec);
  return o;
}

}  // namespace

Status register_visibility(kube::client::Client& c, const std::string& ns, std::uint16_t port) {
  kube::client::BlockingClient client(c);
  json::object namespace_object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns}}}};
  if (auto st = apply(client, "/api/v1/namespaces/" + ns, namespace_object); !st) return st;
  json::object service;
  service["apiVersion"] = "v1";
  service["kind"] = "Service";
  service["metadata"] = json::object{{"name", "kueuepp-visibility-server"}, {"namespace", ns}};
  service["spec"] = json::object{
      {"ports", json::array{json::object{{"name", "https"}, {"port", 443}, {"targetPort", port}, {"protocol", "TCP"}}}}};
  if (auto st = apply(client, "/api/v1/namespaces/" + ns + "/services/kueuepp-visibility-server", service); !st) {
    return st;
  }
  for (const std::string version : {"v1beta2", "v1beta1"}) {
    auto st = apply(client, "/apis/apiregistration.k8s.io/v1/apiservices/" + version + ".visibility.kueue.x-k8s.io",
                    api_service(version, ns));
    if (!st) return fail("the APIServices are not registered (" + st.error().message + ")");
  }
  return {};
}

}  // namespace kueuepp::cmd

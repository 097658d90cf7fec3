#include "kube/apiserver/server/api/openapi.hpp"

#include <cctype>

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

/// "kueue.x-k8s.io" -> "io.x-k8s.kueue" (how kube-apiserver names CRD schemas).
std::string reversed_group(std::string_view group) {
  std::string out;
  while (!group.empty()) {
    std::size_t dot = group.rfind('.');
    std::string_view part = dot == std::string_view::npos ? group : group.substr(dot + 1);
    if (!out.empty()) out.push_back('.');
    out.append(part);
    group = dot == std::string_view::npos ? std::string_view() : group.substr(0, dot);
  }
  return out;
}

std::string schema_name(const ResourceType& t) {
  return fmt::format("{}.{}.{}", reversed_group(t.group), t.version, t.kind);
}

std::string capitalized(std::string_view s) {
  std::string out;
  bool up = true;
  for (char c : s) {
    if (c == '.' || c == '-') {
      up = true;
      continue;
    }
    out.push_back(up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    up = false;
  }
  return out;
}

json::object gvk(const ResourceType& t) {
  return json::object{{"group", t.group}, {"version", t.version}, {"kind", t.kind}};
}

json::object query_param(std::string_view name) {
  return json::object{{"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}}}};
}

json::object operation(const ResourceType& t, std::string_view action, std::string_view verb, std::string_view scope,
                       bool has_schema, std::string_view media_body = {}) {
  json::object op;
  op["operationId"] = fmt::format("{}{}{}{}", verb, capitalized(t.group.empty() ? "core" : t.group),
                                  capitalized(t.version), std::string(scope) + t.kind);
  json::array params;
  if (action == "patch" || action == "put" || action == "post") {
    for (auto p : {"dryRun", "fieldManager", "fieldValidation"}) params.push_back(query_param(p));
    if (action == "patch") params.push_back(query_param("force"));
  }
  op["parameters"] = std::move(params);
  json::object schema = has_schema ? json::object{{"$ref", "#/components/schemas/" + schema_name(t)}}
                                   : json::object{{"type", "object"}};
  if (!media_body.empty()) {
    json::object content;
    for (std::string_view m : {std::string_view("application/json-patch+json"), std::string_view("application/merge-patch+json"),
                               std::string_view("application/apply-patch+yaml")}) {
      if (media_body == "patch") content[m] = json::object{{"schema", json::object{{"type", "object"}}}};
    }
    if (media_body != "patch") content["application/json"] = json::object{{"schema", schema}};
    op["requestBody"] = json::object{{"content", std::move(content)}, {"required", true}};
  }
  op["responses"] = json::object{{"200", json::object{{"description", "OK"},
                                                      {"content", json::object{{"application/json", json::object{{"schema", schema}}}}}}}};
  op["x-kubernetes-action"] = action;
  op["x-kubernetes-group-version-kind"] = gvk(t);
  return op;
}

void add_paths(json::object& paths, const ResourceType& t) {
  std::string base = t.group.empty() ? fmt::format("/api/{}", t.version) : fmt::format("/apis/{}/{}", t.group, t.version);
  std::string collection = t.namespaced ? fmt::format("{}/namespaces/{{namespace}}/{}", base, t.plural)
                                        : fmt::format("{}/{}", base, t.plural);
  std::string scope = t.namespaced ? "Namespaced" : "";
  bool schema = t.openapi_schema != nullptr;
  json::object coll;
  coll["get"] = operation(t, "list", "list", scope, schema);
  coll["post"] = operation(t, "post", "create", scope, schema, "object");
  coll["delete"] = operation(t, "deletecollection", "deleteCollection", scope, schema);
  paths[collection] = std::move(coll);
  json::object item;
  item["get"] = operation(t, "get", "read", scope, schema);
  item["put"] = operation(t, "put", "replace", scope, schema, "object");
  item["patch"] = operation(t, "patch", "patch", scope, schema, "patch");
  item["delete"] = operation(t, "delete", "delete", scope, schema);
  paths[collection + "/{name}"] = std::move(item);
  if (t.status_subresource) {
    json::object status;
    status["get"] = operation(t, "get", "read", scope + "Status", schema);
    status["put"] = operation(t, "put", "replace", scope + "Status", schema, "object");
    status["patch"] = operation(t, "patch", "patch", scope + "Status", schema, "patch");
    paths[collection + "/{name}/status"] = std::move(status);
  }
}

std::string gv_path(std::string_view group, std::string_view version) {
  return group.empty() ? fmt::format("api/{}", version) : fmt::format("apis/{}/{}", group, version);
}

}  // namespace

json::value openapi_v3_index(const ResourceRegistry& registry) {
  json::object paths;
  std::string hash = fmt::format("{:016X}", registry.revision());
  paths["api/v1"] = json::object{{"serverRelativeURL", fmt::format("/openapi/v3/api/v1?hash={}", hash)}};
  for (const auto& g : registry.groups()) {
    for (const auto& v : g.versions) {
      std::string p = gv_path(g.group, v);
      paths[p] = json::object{{"serverRelativeURL", fmt::format("/openapi/v3/{}?hash={}", p, hash)}};
    }
  }
  return json::object{{"paths", std::move(paths)}};
}

json::value openapi_v3_document(const ResourceRegistry& registry, std::string_view path) {
  std::string group;
  std::string version;
  if (path.substr(0, 4) == "api/") {
    version = std::string(path.substr(4));
  } else if (path.substr(0, 5) == "apis/") {
    std::string_view rest = path.substr(5);
    std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return nullptr;
    group = std::string(rest.substr(0, slash));
    version = std::string(rest.substr(slash + 1));
  } else {
    return nullptr;
  }
  auto types = registry.resources(group, version);
  if (types.empty()) return nullptr;
  json::object paths;
  json::object schemas;
  for (const auto& t : types) {
    add_paths(paths, *t);
    if (t->openapi_schema) {
      json::value s = *t->openapi_schema;
      if (s.is_object()) s.as_object()["x-kubernetes-group-version-kind"] = json::array{gvk(*t)};
      schemas[schema_name(*t)] = std::move(s);
    }
  }
  return json::object{{"openapi", "3.0.0"},
                      {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.28.0"}}},
                      {"paths", std::move(paths)},
                      {"components", json::object{{"schemas", std::move(schemas)}}}};
}

json::value openapi_v2_document(const ResourceRegistry&) {
  return json::object{{"swagger", "2.0"},
                      {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.28.0"}}},
                      {"paths", json::object{}},
                      {"definitions", json::object{}}};
}

namespace {

/// A length-delimited protobuf field.
void proto_field(std::string& out, int number, std::string_view bytes) {
  out.push_back(static_cast<char>((number << 3) | 2));
  std::size_t n = bytes.size();
  do {
    auto b = static_cast<unsigned char>(n & 0x7f);
    n >>= 7;
    out.push_back(static_cast<char>(n != 0 ? (b | 0x80) : b));
  } while (n != 0);
  out.append(bytes);
}

}  // namespace

std::string openapi_v2_protobuf() {
  std::string info;
  proto_field(info, 1, "Kubernetes");  // Info.title
  proto_field(info, 2, "v1.28.0");     // Info.version
  std::string doc;
  proto_field(doc, 1, "2.0");  // Document.swagger
  proto_field(doc, 2, info);   // Document.info
  proto_field(doc, 8, "");     // Document.paths (none)
  return doc;
}

}  // namespace kueuepp::kube::server

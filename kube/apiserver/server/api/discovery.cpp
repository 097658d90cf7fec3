#include "kube/apiserver/server/api/discovery.hpp"

#include <algorithm>
#include <functional>

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

json::object group_version(std::string_view group, std::string_view version) {
  return json::object{{"groupVersion", group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version)},
                      {"version", version}};
}

json::array strings(const std::vector<std::string>& list) {
  json::array out;
  for (const auto& s : list) out.emplace_back(s);
  return out;
}

/// A stable 8-byte hash of the storage identity, as storageVersionHash.
std::string storage_version_hash(const ResourceType& t) {
  std::size_t h = std::hash<std::string>{}(t.group + "/" + t.storage_version + "/" + t.kind);
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((h >> (8 * i)) & 0xff);
  return core::base64_encode(bytes);
}

json::value group_entry(const ResourceRegistry::GroupVersions& g) {
  json::array versions;
  for (const auto& v : g.versions) versions.push_back(group_version(g.group, v));
  json::object entry;
  entry["name"] = g.group;
  entry["versions"] = std::move(versions);
  entry["preferredVersion"] = group_version(g.group, g.versions.front());
  return entry;
}

json::object response_kind(const ResourceType& t) {
  return json::object{{"group", t.group}, {"version", t.version}, {"kind", t.kind}};
}

/// The registry's groups with the remote group-versions added: to a group served here,
/// or as groups of their own, in the order `remote` lists them.
std::vector<ResourceRegistry::GroupVersions> merged_groups(const ResourceRegistry& registry,
                                                           std::span<const RemoteGroupVersion> remote) {
  std::vector<ResourceRegistry::GroupVersions> groups = registry.groups();
  for (const auto& r : remote) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group == r.group; });
    if (it == groups.end()) {
      groups.push_back({r.group, {r.version}});
    } else if (std::find(it->versions.begin(), it->versions.end(), r.version) == it->versions.end()) {
      it->versions.push_back(r.version);
    }
  }
  return groups;
}

/// An APIResourceList's resources (as an aggregated API server lists them) in the
/// aggregated discovery form: subresources ("x/status") under their resource.
json::array aggregated_resources(const json::value& resources, std::string_view group, std::string_view version) {
  json::array out;
  if (!resources.is_array()) return out;
  auto kind_of = [&](const json::value& r) {
    return json::object{{"group", json::get_string(r, "group", group)},
                        {"version", json::get_string(r, "version", version)},
                        {"kind", json::get_string(r, "kind")}};
  };
  for (const auto& r : resources.as_array()) {
    std::string_view name = json::get_string(r, "name");
    if (name.empty() || name.find('/') != std::string_view::npos) continue;
    json::object entry;
    entry["resource"] = name;
    entry["responseKind"] = kind_of(r);
    const json::value* namespaced = json::find(r, "namespaced");
    entry["scope"] = namespaced != nullptr && namespaced->is_bool() && namespaced->get_bool() ? "Namespaced" : "Cluster";
    entry["singularResource"] = json::get_string(r, "singularName");
    for (std::string_view key : {"verbs", "shortNames", "categories"}) {
      if (const json::value* v = json::find(r, key); v != nullptr && v->is_array() && !v->as_array().empty()) {
        entry[key] = *v;
      }
    }
    json::array subresources;
    std::string prefix = std::string(name) + "/";
    for (const auto& sub : resources.as_array()) {
      std::string_view sub_name = json::get_string(sub, "name");
      if (sub_name.substr(0, prefix.size()) != prefix) continue;
      json::object s{{"subresource", sub_name.substr(prefix.size())}, {"responseKind", kind_of(sub)}};
      if (const json::value* v = json::find(sub, "verbs"); v != nullptr && v->is_array()) s["verbs"] = *v;
      subresources.push_back(std::move(s));
    }
    if (!subresources.empty()) entry["subresources"] = std::move(subresources);
    if (!entry.contains("verbs")) entry["verbs"] = json::array{};
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

json::value core_versions(std::string_view server_address) {
  json::object doc;
  doc["kind"] = "APIVersions";
  doc["versions"] = json::array{"v1"};
  doc["serverAddressByClientCIDRs"] =
      json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}};
  return doc;
}

json::value group_list(const ResourceRegistry& registry, std::span<const RemoteGroupVersion> remote) {
  json::array groups;
  for (const auto& g : merged_groups(registry, remote)) groups.push_back(group_entry(g));
  return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

json::value group_document(const ResourceRegistry& registry, std::string_view group,
                           std::span<const RemoteGroupVersion> remote) {
  for (const auto& g : merged_groups(registry, remote)) {
    if (g.group != group) continue;
    json::value entry = group_entry(g);
    json::object doc{{"kind", "APIGroup"}, {"apiVersion", "v1"}};
    for (auto& kv : entry.as_object()) doc[kv.key()] = kv.value();
    return doc;
  }
  return nullptr;
}

/// A ServiceAccount's token subresource (api/token_request.hpp), which kube-apiserver
/// lists with the TokenRequest kind of authentication.k8s.io/v1.
bool has_token_subresource(const ResourceType& t) { return t.group.empty() && t.plural == "serviceaccounts"; }

json::object token_request_kind() {
  return json::object{{"group", "authentication.k8s.io"}, {"version", "v1"}, {"kind", "TokenRequest"}};
}

json::value resource_list(const ResourceRegistry& registry, std::string_view group, std::string_view version) {
  json::array resources;
  for (const auto& t : registry.resources(group, version)) {
    json::object r;
    r["name"] = t->plural;
    r["singularName"] = t->singular;
    r["namespaced"] = t->namespaced;
    r["kind"] = t->kind;
    r["verbs"] = strings(t->verbs);
    if (!t->short_names.empty()) r["shortNames"] = strings(t->short_names);
    if (!t->categories.empty()) r["categories"] = strings(t->categories);
    r["storageVersionHash"] = storage_version_hash(*t);
    resources.push_back(std::move(r));
    if (t->status_subresource) {
      resources.push_back(json::object{{"name", t->plural + "/status"},
                                       {"singularName", ""},
                                       {"namespaced", t->namespaced},
                                       {"kind", t->kind},
                                       {"verbs", json::array{"get", "patch", "update"}}});
    }
    if (has_token_subresource(*t)) {
      resources.push_back(json::object{{"name", t->plural + "/token"},
                                       {"singularName", ""},
                                       {"namespaced", true},
                                       {"group", "authentication.k8s.io"},
                                       {"version", "v1"},
                                       {"kind", "TokenRequest"},
                                       {"verbs", json::array{"create"}}});
    }
  }
  std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  return json::object{{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv},
                      {"resources", std::move(resources)}};
}

json::value aggregated_discovery(const ResourceRegistry& registry, bool core, std::string_view api_version,
                                 std::span<const RemoteGroupVersion> remote) {
  auto version_entry = [&](std::string_view group, std::string_view version) {
    json::array resources;
    for (const auto& t : registry.resources(group, version)) {
      json::object r;
      r["resource"] = t->plural;
      r["responseKind"] = response_kind(*t);
      r["scope"] = t->namespaced ? "Namespaced" : "Cluster";
      r["singularResource"] = t->singular;
      r["verbs"] = strings(t->verbs);
      if (!t->short_names.empty()) r["shortNames"] = strings(t->short_names);
      if (!t->categories.empty()) r["categories"] = strings(t->categories);
      if (t->status_subresource) {
        r["subresources"] = json::array{json::object{{"subresource", "status"},
                                                     {"responseKind", response_kind(*t)},
                                                     {"verbs", json::array{"get", "patch", "update"}}}};
      }
      if (has_token_subresource(*t)) {
        r["subresources"] = json::array{json::object{
            {"subresource", "token"}, {"responseKind", token_request_kind()}, {"verbs", json::array{"create"}}}};
      }
      resources.push_back(std::move(r));
    }
    return json::object{{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}};
  };
  json::array items;
  if (core) {
    json::object item;
    item["metadata"] = json::object{{"creationTimestamp", nullptr}};
    item["versions"] = json::array{version_entry("", "v1")};
    items.push_back(std::move(item));
  } else {
    for (const auto& g : merged_groups(registry, remote)) {
      json::array versions;
      for (const auto& v : g.versions) {
        auto r = std::find_if(remote.begin(), remote.end(),
                              [&](const RemoteGroupVersion& x) { return x.group == g.group && x.version == v; });
        if (r == remote.end()) {
          versions.push_back(version_entry(g.group, v));
          continue;
        }
        versions.push_back(json::object{{"version", v},
                                        {"resources", aggregated_resources(r->resources, g.group, v)},
                                        {"freshness", r->current ? "Current" : "Stale"}});
      }
      json::object item;
      item["metadata"] = json::object{{"name", g.group}, {"creationTimestamp", nullptr}};
      item["versions"] = std::move(versions);
      items.push_back(std::move(item));
    }
  }
  return json::object{{"kind", "APIGroupDiscoveryList"}, {"apiVersion", api_version},
                      {"metadata", json::object{}}, {"items", std::move(items)}};
}

}  // namespace kueuepp::kube::server

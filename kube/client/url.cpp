#include "kube/client/url.hpp"

namespace kueuepp::kube::client {

const char* patch_content_type(PatchType type) {
  switch (type) {
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::Json: return "application/json-patch+json";
    case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::Apply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

json::value DeleteOptions::to_body() const {
  json::object body;
  if (precondition_uid || precondition_resource_version) {
    json::object pre;
    if (precondition_uid) pre["uid"] = *precondition_uid;
    if (precondition_resource_version) pre["resourceVersion"] = *precondition_resource_version;
    body["preconditions"] = std::move(pre);
  }
  if (propagation_policy) body["propagationPolicy"] = *propagation_policy;
  if (grace_period_seconds) body["gracePeriodSeconds"] = *grace_period_seconds;
  if (dry_run) body["dryRun"] = json::array{"All"};
  if (body.empty()) return nullptr;
  body["kind"] = "DeleteOptions";
  body["apiVersion"] = "v1";
  return body;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string resource_path(const ResourceDescriptor& resource, std::string_view ns,
                          std::string_view name, std::string_view subresource) {
  std::string path = resource.group.empty() ? "/api/" : "/apis/" + std::string(resource.group) + "/";
  path += resource.version;
  if (resource.namespaced && !ns.empty()) path += "/namespaces/" + percent_encode(ns);
  path += "/";
  path += resource.plural;
  if (!name.empty()) {
    path += "/" + percent_encode(name);
    if (!subresource.empty()) path += "/" + std::string(subresource);
  }
  return path;
}

Query& Query::add(std::string_view key, std::string_view value) {
  params_.emplace_back(key, value);
  return *this;
}
Query& Query::add_if(bool condition, std::string_view key, std::string_view value) {
  return condition ? add(key, value) : *this;
}
Query& Query::add_nonempty(std::string_view key, std::string_view value) {
  return add_if(!value.empty(), key, value);
}

std::string Query::str() const {
  std::string out;
  for (const auto& [key, value] : params_) {
    out += out.empty() ? "?" : "&";
    out += percent_encode(key) + "=" + percent_encode(value);
  }
  return out;
}

std::string get_target(const ResourceDescriptor& r, std::string_view ns, std::string_view name,
                       const GetOptions& options) {
  return resource_path(r, ns, name) +
         Query().add_nonempty("resourceVersion", options.resource_version).str();
}

std::string list_target(const ResourceDescriptor& r, std::string_view ns,
                        const ListOptions& options) {
  Query q;
  q.add_nonempty("labelSelector", options.label_selector)
      .add_nonempty("fieldSelector", options.field_selector)
      .add_if(options.limit > 0, "limit", std::to_string(options.limit))
      .add_nonempty("continue", options.continue_token)
      .add_nonempty("resourceVersion", options.resource_version)
      .add_nonempty("resourceVersionMatch", options.resource_version_match);
  return resource_path(r, ns) + q.str();
}

std::string watch_target(const ResourceDescriptor& r, std::string_view ns,
                         const WatchOptions& options) {
  Query q;
  q.add("watch", "1")
      .add_nonempty("resourceVersion", options.resource_version)
      .add_if(options.allow_bookmarks, "allowWatchBookmarks", "true")
      .add_nonempty("labelSelector", options.label_selector)
      .add_nonempty("fieldSelector", options.field_selector)
      .add_if(options.timeout_seconds > 0, "timeoutSeconds",
              std::to_string(options.timeout_seconds));
  return resource_path(r, ns) + q.str();
}

std::string write_target(const ResourceDescriptor& r, std::string_view ns, std::string_view name,
                         const WriteOptions& options, std::string_view default_manager,
                         bool force) {
  Query q;
  q.add("fieldManager", options.field_manager.empty() ? default_manager : options.field_manager)
      .add_if(options.dry_run, "dryRun", "All")
      .add_nonempty("fieldValidation", options.field_validation)
      .add_if(force, "force", "true");
  return resource_path(r, ns, name, options.status_subresource ? "status" : "") + q.str();
}

std::string delete_target(const ResourceDescriptor& r, std::string_view ns,
                          std::string_view name, const DeleteOptions& options) {
  // The options travel in the body too (client-go's way); propagationPolicy and dryRun
  // are also in the query so they work with servers that ignore DELETE bodies.
  Query q;
  if (options.propagation_policy) q.add("propagationPolicy", *options.propagation_policy);
  q.add_if(options.dry_run, "dryRun", "All");
  return resource_path(r, ns, name) + q.str();
}

}  // namespace kueuepp::kube::client

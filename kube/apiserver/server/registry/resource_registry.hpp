#pragma once

// The resources the server serves: the built-in kinds plus whatever the installed
// CustomResourceDefinitions add. Requests are routed by it, discovery is generated from it.
// Lives on the store thread (CRD writes change it).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kube/apiserver/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

class ResourceRegistry {
 public:
  struct GroupVersions {
    std::string group;
    std::vector<std::string> versions;  ///< preferred first
  };

  void add_builtin(ResourceTypePtr type);
  /// The resource types a CRD serves (empty: the CRD no longer serves anything).
  void set_custom(const std::string& crd_name, std::vector<ResourceTypePtr> types);

  const ResourceType* find(std::string_view group, std::string_view version, std::string_view plural) const;
  ResourceTypePtr find_shared(std::string_view group, std::string_view version,
                              std::string_view plural) const;
  /// A resource of `group` with this Kind in any served version (preferred first).
  const ResourceType* find_kind(std::string_view group, std::string_view kind) const;
  /// The resource named `plural` of `group`, preferred version.
  const ResourceType* find_resource(std::string_view group, std::string_view plural) const;

  bool serves_group(std::string_view group) const;
  bool serves_group_version(std::string_view group, std::string_view version) const;

  /// The non-core API groups: built-ins in registration order, then CRD groups by name.
  std::vector<GroupVersions> groups() const;
  /// The resources of one group-version, in registration order.
  std::vector<ResourceTypePtr> resources(std::string_view group, std::string_view version) const;
  /// Every served version of the resource stored in `bucket` (kube-apiserver's
  /// equivalent resources: one storage, several group-versions).
  std::vector<ResourceTypePtr> sharing_bucket(std::string_view bucket) const;
  /// One resource type per storage bucket (preferred version), e.g. for namespace cleanup.
  std::vector<ResourceTypePtr> storage_types() const;

  /// Changes with every add/set_custom (discovery caches key on it).
  std::uint64_t revision() const { return revision_; }

 private:
  void rebuild();
  static std::string index_key(std::string_view group, std::string_view version, std::string_view plural);

  std::vector<ResourceTypePtr> builtins_;
  std::map<std::string, std::vector<ResourceTypePtr>> custom_;  // by CRD name
  std::vector<ResourceTypePtr> all_;                            // builtins, then custom by CRD name
  std::unordered_map<std::string, ResourceTypePtr> index_;
  std::uint64_t revision_ = 0;
};

}  // namespace kueuepp::kube::server

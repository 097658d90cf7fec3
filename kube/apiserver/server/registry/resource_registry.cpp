#include "kube/apiserver/server/registry/resource_registry.hpp"

#include <algorithm>
#include <set>

namespace kueuepp::kube::server {

std::string ResourceRegistry::index_key(std::string_view group, std::string_view version,
                                        std::string_view plural) {
  std::string key;
  key.reserve(group.size() + version.size() + plural.size() + 2);
  key.append(group).push_back('/');
  key.append(version).push_back('/');
  key.append(plural);
  return key;
}

void ResourceRegistry::add_builtin(ResourceTypePtr type) {
  builtins_.push_back(std::move(type));
  rebuild();
}

void ResourceRegistry::set_custom(const std::string& crd_name, std::vector<ResourceTypePtr> types) {
  if (types.empty()) {
    custom_.erase(crd_name);
  } else {
    custom_[crd_name] = std::move(types);
  }
  rebuild();
}

void ResourceRegistry::rebuild() {
  all_ = builtins_;
  for (const auto& [name, types] : custom_) all_.insert(all_.end(), types.begin(), types.end());
  index_.clear();
  for (const auto& t : all_) index_.emplace(index_key(t->group, t->version, t->plural), t);
  ++revision_;
}

const ResourceType* ResourceRegistry::find(std::string_view group, std::string_view version,
                                           std::string_view plural) const {
  auto it = index_.find(index_key(group, version, plural));
  return it == index_.end() ? nullptr : it->second.get();
}

ResourceTypePtr ResourceRegistry::find_shared(std::string_view group, std::string_view version,
                                              std::string_view plural) const {
  auto it = index_.find(index_key(group, version, plural));
  return it == index_.end() ? nullptr : it->second;
}

const ResourceType* ResourceRegistry::find_kind(std::string_view group, std::string_view kind) const {
  const ResourceType* best = nullptr;
  for (const auto& t : all_) {
    if (t->group != group || t->kind != kind) continue;
    if (best == nullptr || version_preferred(t->version, best->version)) best = t.get();
  }
  return best;
}

const ResourceType* ResourceRegistry::find_resource(std::string_view group, std::string_view plural) const {
  const ResourceType* best = nullptr;
  for (const auto& t : all_) {
    if (t->group != group || t->plural != plural) continue;
    if (best == nullptr || version_preferred(t->version, best->version)) best = t.get();
  }
  return best;
}

bool ResourceRegistry::serves_group(std::string_view group) const {
  return std::any_of(all_.begin(), all_.end(), [&](const auto& t) { return t->group == group; });
}

bool ResourceRegistry::serves_group_version(std::string_view group, std::string_view version) const {
  return std::any_of(all_.begin(), all_.end(),
                     [&](const auto& t) { return t->group == group && t->version == version; });
}

std::vector<ResourceRegistry::GroupVersions> ResourceRegistry::groups() const {
  std::vector<GroupVersions> out;
  auto add = [&](const ResourceType& t) {
    if (t.group.empty()) return;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.group == t.group; });
    if (it == out.end()) {
      out.push_back(GroupVersions{t.group, {}});
      it = std::prev(out.end());
    }
    if (std::find(it->versions.begin(), it->versions.end(), t.version) == it->versions.end()) {
      it->versions.push_back(t.version);
    }
  };
  for (const auto& t : builtins_) add(*t);
  std::size_t first_custom = out.size();
  std::set<std::string> custom_groups;
  for (const auto& [name, types] : custom_) {
    for (const auto& t : types) custom_groups.insert(t->group);
  }
  for (const auto& g : custom_groups) {
    for (const auto& [name, types] : custom_) {
      for (const auto& t : types) {
        if (t->group == g) add(*t);
      }
    }
  }
  for (std::size_t i = first_custom; i < out.size(); ++i) {
    auto& v = out[i].versions;
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return version_preferred(a, b); });
  }
  return out;
}

std::vector<ResourceTypePtr> ResourceRegistry::resources(std::string_view group, std::string_view version) const {
  std::vector<ResourceTypePtr> out;
  for (const auto& t : all_) {
    if (t->group == group && t->version == version) out.push_back(t);
  }
  return out;
}

std::vector<ResourceTypePtr> ResourceRegistry::storage_types() const {
  std::vector<ResourceTypePtr> out;
  for (const auto& t : all_) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& o) { return o->bucket == t->bucket; });
    if (it == out.end()) {
      out.push_back(t);
    } else if (t->version == t->storage_version && (*it)->version != (*it)->storage_version &&
               t->group == (*it)->group) {
      *it = t;
    }
  }
  return out;
}

std::vector<ResourceTypePtr> ResourceRegistry::sharing_bucket(std::string_view bucket) const {
  std::vector<ResourceTypePtr> out;
  for (const auto& t : all_) {
    if (t->bucket == bucket) out.push_back(t);
  }
  return out;
}

}  // namespace kueuepp::kube::server

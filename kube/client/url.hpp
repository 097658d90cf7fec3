#pragma once

// Request targets from resource descriptors: `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL
// [/NAME[/SUBRESOURCE]]` plus percent-encoded query parameters.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/client/request_options.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

/// Percent-encodes every byte except A-Z a-z 0-9 - . _ ~ (RFC 3986 unreserved).
std::string percent_encode(std::string_view text);

/// The path of a collection (`name` empty) or of one object. Cluster-scoped resources
/// ignore `ns`; namespaced ones with an empty `ns` address all namespaces (lists and
/// watches only).
std::string resource_path(const ResourceDescriptor& resource, std::string_view ns,
                          std::string_view name = {}, std::string_view subresource = {});

/// `?k=v&k2=v2` builder; values are percent-encoded, empty builders add nothing.
class Query {
 public:
  Query& add(std::string_view key, std::string_view value);
  Query& add_if(bool condition, std::string_view key, std::string_view value);
  Query& add_nonempty(std::string_view key, std::string_view value);
  /// "" or "?..." .
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

/// Targets for the verbs.
std::string get_target(const ResourceDescriptor& r, std::string_view ns, std::string_view name,
                       const GetOptions& options);
std::string list_target(const ResourceDescriptor& r, std::string_view ns,
                        const ListOptions& options);
std::string watch_target(const ResourceDescriptor& r, std::string_view ns,
                         const WatchOptions& options);
/// create (name empty) / update / patch: fieldManager always set (`field_manager`
/// falls back to `default_manager`), plus dryRun, fieldValidation and (patch) force.
std::string write_target(const ResourceDescriptor& r, std::string_view ns, std::string_view name,
                         const WriteOptions& options, std::string_view default_manager,
                         bool force = false);
std::string delete_target(const ResourceDescriptor& r, std::string_view ns,
                          std::string_view name, const DeleteOptions& options);

}  // namespace kueuepp::kube::client

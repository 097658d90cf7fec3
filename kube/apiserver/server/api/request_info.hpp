#pragma once

// What a request URL names, as kube-apiserver's RequestInfoFactory reads it:
// /api/v1/namespaces/ns/configmaps/name/status?watch=1 -> group "", version v1,
// namespace ns, resource configmaps, name, subresource status; plus the decoded query.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::kube::server {

/// The decoded query string. Repeated keys keep every value; get() returns the first.
class Query {
 public:
  static Query parse(std::string_view raw);
  std::optional<std::string_view> get(std::string_view key) const;
  std::string_view get_or(std::string_view key, std::string_view fallback) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  /// Present and neither "0" nor "false" in any case (how kube-apiserver reads boolean
  /// parameters like watch and force: "maybe" is true).
  bool flag(std::string_view key) const;

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

struct RequestInfo {
  std::string path;            ///< decoded path
  bool is_resource = false;    ///< under /api/<v>/... or /apis/<g>/<v>/... with a resource
  std::string prefix;          ///< "api" or "apis" (empty for other paths)
  std::string group;
  std::string version;
  std::string ns;
  std::string resource;
  std::string name;
  std::string subresource;
  /// The deprecated /watch/ form (/api/v1/watch/namespaces/ns/pods): a watch whatever
  /// the query says.
  bool watch_path = false;
  std::vector<std::string> parts;  ///< decoded path segments
};

/// Percent-decodes (`plus_is_space` for query strings). nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space);

/// Splits a request target into RequestInfo and Query. nullopt when the path has a
/// malformed escape.
std::optional<std::pair<RequestInfo, Query>> parse_target(std::string_view target);

}  // namespace kueuepp::kube::server

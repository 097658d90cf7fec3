#pragma once

// Content negotiation: which representation a request's Accept header asks for, and what
// a Content-Type names. kube-apiserver serves JSON, YAML and (for kubectl get) Tables;
// discovery also in the aggregated format.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::kube::server {

struct MediaType {
  std::string type;     ///< "application"
  std::string subtype;  ///< "json"
  std::vector<std::pair<std::string, std::string>> params;
  std::string_view param(std::string_view name) const;
  bool is(std::string_view t, std::string_view s) const { return type == t && subtype == s; }
};

/// Parses one media type ("application/json;as=Table;v=v1;g=meta.k8s.io").
MediaType parse_media_type(std::string_view text);
/// Parses an Accept header into its ranges, in order.
std::vector<MediaType> parse_accept(std::string_view header);

enum class Representation {
  Json,
  Yaml,
  Table,                 ///< meta.k8s.io/v1 Table
  PartialMetadata,       ///< meta.k8s.io/v1 PartialObjectMetadata(List)
  AggregatedDiscovery,   ///< apidiscovery.k8s.io/v2 APIGroupDiscoveryList
  AggregatedDiscoveryBeta,  ///< apidiscovery.k8s.io/v2beta1
  None,                  ///< nothing acceptable (406)
};

/// The representation for a resource request (GET/list/watch, or a write's answer).
Representation negotiate_resource(std::string_view accept);
/// The representation for /api and /apis.
Representation negotiate_discovery(std::string_view accept);
/// The representation for plain JSON documents (/version, /openapi, group documents):
/// Json or Yaml, None when neither is acceptable.
Representation negotiate_plain(std::string_view accept);

/// The Content-Type of a representation.
std::string content_type_of(Representation r);

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/api/media.hpp"

#include <algorithm>
#include <cctype>

namespace kueuepp::kube::server {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// ASCII only, as std::tolower in the "C" locale the server runs in (it never sets
// another), without a library call per character: every request parses a media type.
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool json_like(const MediaType& m) {
  return (m.type == "application" || m.type == "*") && (m.subtype == "json" || m.subtype == "*");
}

}  // namespace

std::string_view MediaType::param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return {};
}

MediaType parse_media_type(std::string_view text) {
  MediaType m;
  std::size_t semi = text.find(';');
  std::string_view main = trim(text.substr(0, semi));
  std::size_t slash = main.find('/');
  m.type = lower(trim(main.substr(0, slash)));
  m.subtype = slash == std::string_view::npos ? std::string() : lower(trim(main.substr(slash + 1)));
  while (semi != std::string_view::npos) {
    text.remove_prefix(semi + 1);
    semi = text.find(';');
    std::string_view p = trim(text.substr(0, semi));
    std::size_t eq = p.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = trim(p.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    m.params.emplace_back(lower(trim(p.substr(0, eq))), std::string(value));
  }
  return m;
}

std::vector<MediaType> parse_accept(std::string_view header) {
  std::vector<MediaType> out;
  while (true) {
    std::size_t comma = header.find(',');
    std::string_view part = trim(header.substr(0, comma));
    if (!part.empty()) out.push_back(parse_media_type(part));
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return out;
}

Representation negotiate_resource(std::string_view accept) {
  if (trim(accept).empty()) return Representation::Json;
  for (const MediaType& m : parse_accept(accept)) {
    if (m.is("application", "yaml")) return Representation::Yaml;
    if (!json_like(m)) continue;
    std::string_view as = m.param("as");
    if (as.empty()) return Representation::Json;
    if (m.param("g") != "meta.k8s.io" || (m.param("v") != "v1" && m.param("v") != "v1beta1")) continue;
    if (as == "Table") return Representation::Table;
    if (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") return Representation::PartialMetadata;
  }
  return Representation::None;
}

Representation negotiate_discovery(std::string_view accept) {
  if (trim(accept).empty()) return Representation::Json;
  for (const MediaType& m : parse_accept(accept)) {
    if (m.is("application", "yaml")) return Representation::Yaml;
    if (!json_like(m)) continue;
    std::string_view as = m.param("as");
    if (as.empty()) return Representation::Json;
    if (as == "APIGroupDiscoveryList" && m.param("g") == "apidiscovery.k8s.io") {
      if (m.param("v") == "v2") return Representation::AggregatedDiscovery;
      if (m.param("v") == "v2beta1") return Representation::AggregatedDiscoveryBeta;
    }
  }
  return Representation::None;
}

Representation negotiate_plain(std::string_view accept) {
  if (trim(accept).empty()) return Representation::Json;
  for (const MediaType& m : parse_accept(accept)) {
    if (m.is("application", "yaml")) return Representation::Yaml;
    if (json_like(m) && m.param("as").empty()) return Representation::Json;
  }
  return Representation::None;
}

std::string content_type_of(Representation r) {
  switch (r) {
    case Representation::Yaml: return "application/yaml";
    case Representation::Table: return "application/json;as=Table;v=v1;g=meta.k8s.io";
    case Representation::PartialMetadata: return "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
    case Representation::AggregatedDiscovery:
      return "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    case Representation::AggregatedDiscoveryBeta:
      return "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    default: return "application/json";
  }
}

}  // namespace kueuepp::kube::server

#pragma once

// ResourceType: one resource as one API group-version serves it (what discovery lists
// and what request URLs name), with the strategy that knows the kind's rules and the
// store bucket its objects live in.

#include <memory>
#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/conversion/crd_converter.hpp"

namespace kueuepp::kube::server {

class Strategy;

/// An additionalPrinterColumn of a CRD (or a built-in's table column).
struct PrinterColumn {
  std::string name;
  std::string type;         ///< "string", "integer", "date", ...
  std::string format;
  std::string description;
  int priority = 0;
  std::string json_path;    ///< ".spec.foo" (empty for computed built-in columns)
};

struct ResourceType {
  std::string group;        ///< "" for the core group
  std::string version;      ///< "v1"
  std::string plural;       ///< "jobs"
  std::string singular;     ///< "job"
  std::string kind;         ///< "Job"
  std::string list_kind;    ///< "JobList"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  /// Discovery verbs in the order kube-apiserver lists them.
  std::vector<std::string> verbs;
  bool status_subresource = false;
  bool custom = false;      ///< served from a CustomResourceDefinition
  std::string storage_version;
  /// The store bucket: "<group>/<plural>" of the storage resource.
  std::string bucket;
  std::shared_ptr<const Strategy> strategy;
  std::vector<PrinterColumn> columns;
  /// The OpenAPI v3 schema of the kind (custom resources; null for built-ins), for
  /// /openapi/v3 (kubectl explain).
  std::shared_ptr<const json::value> openapi_schema;
  /// How objects of a CustomResourceDefinition are converted between its versions (null
  /// for built-ins; shared by every version of one CRD).
  CrdConverterPtr converter;

  /// "batch/v1", or "v1" for the core group.
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  std::string storage_api_version() const {
    return group.empty() ? storage_version : group + "/" + storage_version;
  }
  bool has_verb(std::string_view verb) const;
};
using ResourceTypePtr = std::shared_ptr<const ResourceType>;

/// The standard verb lists: built-ins sorted, custom resources in CRD handler order.
std::vector<std::string> builtin_verbs(bool deletecollection = true);
std::vector<std::string> custom_resource_verbs();

/// Orders Kubernetes versions by priority (v1 > v1beta2 > v1beta1 > v1alpha1 > other):
/// true when `a` is preferred over `b`.
bool version_preferred(std::string_view a, std::string_view b);

}  // namespace kueuepp::kube::server

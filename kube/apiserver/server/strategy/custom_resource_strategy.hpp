#pragma once

// The strategy of one served version of a CustomResourceDefinition: the OpenAPI v3
// schema applied as kube-apiserver applies it (pruning with unknown-field warnings or
// strict errors, defaults, validation with CEL rules), the status subresource, printer
// columns and selectable fields.

#include <memory>
#include <string>
#include <vector>

#include "kube/apiserver/schema/schema.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

struct CustomResourceVersion {
  std::string group;
  std::string version;
  std::string kind;
  schema::SchemaPtr schema;  ///< null: no schema (everything kept)
  bool status_subresource = false;
  /// selectableFields as field selector names ("spec.queueName").
  std::vector<std::string> selectable_fields;
  /// additionalPrinterColumns (empty: the default Age column).
  std::vector<PrinterColumn> columns;
};

std::shared_ptr<const Strategy> make_custom_resource_strategy(CustomResourceVersion version);

}  // namespace kueuepp::kube::server

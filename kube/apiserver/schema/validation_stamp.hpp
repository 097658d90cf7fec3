#pragma once

// What a validation that found no errors establishes about an object (kube/apiserver/schema's
// validate()), for the next validation of a new version of it. Apart from schema.hpp so
// that whoever keeps it with an object (the API server's store) need not see schemas.

#include <cstdint>

namespace kueuepp::kube::schema {

struct ValidationStamp {
  /// The serial of the schema the object passed (schema::serial()); 0: not known to be
  /// valid.
  std::uint64_t schema_serial = 0;
  /// An upper bound of what the object's CEL rules without oldSelf cost.
  std::uint64_t cel_cost = 0;
};

}  // namespace kueuepp::kube::schema

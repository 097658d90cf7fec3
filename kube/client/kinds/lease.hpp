#pragma once

// coordination.k8s.io/v1 Lease for leader election. acquireTime/renewTime are
// MicroTime (6 fractional digits; the API server rejects other precisions).

#include <optional>

#include "kube/client/micro_time.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

class Lease : public Object {
 public:
  using Object::Object;
  Lease() = default;
  explicit Lease(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kLease; }

  /// A new Lease object (apiVersion/kind/name/namespace set, empty spec).
  static Lease make(std::string_view ns, std::string_view name);

  std::string_view holder_identity() const { return string_at({"spec", "holderIdentity"}); }
  void set_holder_identity(std::string_view holder);
  std::optional<std::int64_t> lease_duration_seconds() const {
    return int_at({"spec", "leaseDurationSeconds"});
  }
  void set_lease_duration_seconds(std::int64_t seconds);
  std::optional<TimePoint> acquire_time() const;
  void set_acquire_time(TimePoint t);
  std::optional<TimePoint> renew_time() const;
  void set_renew_time(TimePoint t);
  std::int64_t lease_transitions() const {
    return int_at({"spec", "leaseTransitions"}).value_or(0);
  }
  void set_lease_transitions(std::int64_t transitions);
};

}  // namespace kueuepp::kube::client

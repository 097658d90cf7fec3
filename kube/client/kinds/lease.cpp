#include "kube/client/kinds/lease.hpp"

namespace kueuepp::kube::client {

Lease Lease::make(std::string_view ns, std::string_view name) {
  Lease lease;
  lease.set_type(resource().api_version(), resource().kind);
  lease.set_namespace(ns);
  lease.set_name(name);
  lease.ensure({"spec"}) = json::object{};
  return lease;
}

void Lease::set_holder_identity(std::string_view holder) {
  ensure({"spec", "holderIdentity"}) = holder;
}
void Lease::set_lease_duration_seconds(std::int64_t seconds) {
  ensure({"spec", "leaseDurationSeconds"}) = seconds;
}
std::optional<TimePoint> Lease::acquire_time() const {
  return parse_time(string_at({"spec", "acquireTime"}));
}
void Lease::set_acquire_time(TimePoint t) {
  ensure({"spec", "acquireTime"}) = format_micro_time(t);
}
std::optional<TimePoint> Lease::renew_time() const {
  return parse_time(string_at({"spec", "renewTime"}));
}
void Lease::set_renew_time(TimePoint t) { ensure({"spec", "renewTime"}) = format_micro_time(t); }
void Lease::set_lease_transitions(std::int64_t transitions) {
  ensure({"spec", "leaseTransitions"}) = transitions;
}

}  // namespace kueuepp::kube::client

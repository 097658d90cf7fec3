#include "kube/leader/lease_record.hpp"

namespace kueuepp::kube::leader {

namespace {

std::optional<client::TimePoint> time_at(const client::Object& lease, std::string_view field) {
  std::string_view text = lease.string_at({"spec", field});
  if (text.empty()) return std::nullopt;
  return client::parse_time(text);
}

void set_time(client::Object& lease, std::string_view field, const std::optional<client::TimePoint>& t) {
  if (t) {
    // MicroTime: the API server rejects Lease times without exactly 6 fractional digits.
    lease.ensure({"spec", field}) = client::format_micro_time(*t);
  } else {
    lease.erase({"spec", field});
  }
}

}  // namespace

LeaseRecord decode_lease_record(const client::Object& lease) {
  LeaseRecord r;
  r.holder_identity = std::string(lease.string_at({"spec", "holderIdentity"}));
  r.lease_duration_seconds = lease.int_at({"spec", "leaseDurationSeconds"}).value_or(0);
  r.acquire_time = time_at(lease, "acquireTime");
  r.renew_time = time_at(lease, "renewTime");
  r.lease_transitions = lease.int_at({"spec", "leaseTransitions"}).value_or(0);
  return r;
}

ObservedLease decode_observed_lease(const client::Object& lease) {
  return ObservedLease{decode_lease_record(lease), std::string(lease.resource_version())};
}

void encode_lease_record(const LeaseRecord& record, client::Object& lease) {
  lease.ensure({"spec", "holderIdentity"}) = record.holder_identity;
  lease.ensure({"spec", "leaseDurationSeconds"}) = record.lease_duration_seconds;
  set_time(lease, "acquireTime", record.acquire_time);
  set_time(lease, "renewTime", record.renew_time);
  lease.ensure({"spec", "leaseTransitions"}) = record.lease_transitions;
}

}  // namespace kueuepp::kube::leader

#include "kube/leader/lease_observation.hpp"

namespace kueuepp::kube::leader {

void LeaseObservation::observe(const std::optional<ObservedLease>& lease, LocalTime now) {
  const bool was_missing = known_ && !lease_;
  const bool changed = !known_ || (lease ? (!lease_ || lease_->record != lease->record) : !was_missing);
  known_ = true;
  lease_ = lease;
  if (changed) changed_at_ = now;
}

std::string_view LeaseObservation::holder() const {
  return lease_ ? std::string_view(lease_->record.holder_identity) : std::string_view();
}

LocalTime LeaseObservation::expires_at() const {
  return changed_at_ + std::chrono::seconds(lease_ ? lease_->record.lease_duration_seconds : 0);
}

bool LeaseObservation::expired(LocalTime now) const {
  return !holder().empty() && now >= expires_at();
}

bool LeaseObservation::held(LocalTime now) const { return !holder().empty() && now < expires_at(); }

std::optional<LocalTime> LeaseObservation::free_since(LocalTime now) const {
  if (!known_) return std::nullopt;
  if (holder().empty()) return changed_at_;
  if (expired(now)) return expires_at();
  return std::nullopt;
}

}  // namespace kueuepp::kube::leader

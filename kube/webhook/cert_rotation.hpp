#pragma once

// When the webhook's certificates are made again, decided from what is stored and the
// time given (no clock read here): everything when nothing usable is stored or the CA
// nears its end; the serving certificate alone when it nears its end or does not name
// the hosts wanted. "Nears its end" is well before expiry (renew_before), so a replica
// that cannot reach the API server for a while still serves a valid certificate.

#include <optional>
#include <string>
#include <vector>

#include "kube/webhook/certificates.hpp"

namespace kueuepp::kube::webhook {

struct RotationPolicy {
  std::chrono::seconds ca_validity{std::chrono::hours(24 * 365 * 10)};
  std::chrono::seconds serving_validity{std::chrono::hours(24 * 365)};
  std::chrono::seconds ca_renew_before{std::chrono::hours(24 * 365)};
  std::chrono::seconds serving_renew_before{std::chrono::hours(24 * 90)};
};

/// The policy is usable: each validity is longer than its renewal margin (or the new
/// certificate would be renewed at once, again and again).
Status check_policy(const RotationPolicy& policy);

enum class RotationAction : std::uint8_t { Keep, IssueServing, IssueAll };

struct RotationDecision {
  RotationAction action = RotationAction::Keep;
  std::string why;  ///< for the log: what was found
  /// When to look again at the latest (the serving certificate's renewal time, or the CA's).
  Clock::time_point renew_at;
};

RotationDecision decide_rotation(const std::optional<CertificateBundle>& current, const std::vector<std::string>& hosts,
                                 Clock::time_point now, const RotationPolicy& policy);

/// Carries a decision out: a new serving certificate (same CA), or a new CA and serving
/// certificate whose caBundle keeps the previous CAs still valid at `now`. Keep returns
/// `current` as it is.
Expected<CertificateBundle> rotate(const std::optional<CertificateBundle>& current, const RotationDecision& decision,
                                   const std::vector<std::string>& hosts, Clock::time_point now,
                                   const RotationPolicy& policy);

}  // namespace kueuepp::kube::webhook

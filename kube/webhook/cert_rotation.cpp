#include "kube/webhook/cert_rotation.hpp"

#include <algorithm>

namespace kueuepp::kube::webhook {

Status check_policy(const RotationPolicy& policy) {
  if (policy.serving_validity <= policy.serving_renew_before) {
    return fail("the serving certificate's validity must be longer than its renewal margin");
  }
  if (policy.ca_validity <= policy.ca_renew_before) return fail("the CA's validity must be longer than its renewal margin");
  if (policy.ca_validity < policy.serving_validity) return fail("the CA must be valid at least as long as the serving certificate");
  return {};
}

RotationDecision decide_rotation(const std::optional<CertificateBundle>& current, const std::vector<std::string>& hosts,
                                 Clock::time_point now, const RotationPolicy& policy) {
  auto issue_all = [&](std::string why) {
    return RotationDecision{RotationAction::IssueAll, std::move(why), now + policy.serving_validity - policy.serving_renew_before};
  };
  if (!current || current->ca_cert_pem.empty() || current->cert_pem.empty() || current->key_pem.empty() ||
      current->ca_key_pem.empty()) {
    return issue_all("no certificates stored yet");
  }
  auto ca = inspect_certificate(current->ca_cert_pem);  // the first of the bundle: the current CA
  if (!ca) return issue_all("the stored CA certificate is unreadable: " + ca.error().message);
  if (auto fits = verify_serving(*current); !fits) return issue_all("the stored certificates do not fit together: " + fits.error().message);
  const Clock::time_point ca_renew_at = ca->not_after - policy.ca_renew_before;
  if (now >= ca_renew_at) return issue_all("the CA expires soon (or has expired)");
  auto serving = inspect_certificate(current->cert_pem);
  if (!serving) return issue_all("the stored serving certificate is unreadable: " + serving.error().message);
  auto renew = [&](std::string why) {
    return RotationDecision{RotationAction::IssueServing, std::move(why),
                            std::min(ca_renew_at, now + policy.serving_validity - policy.serving_renew_before)};
  };
  for (const auto& host : hosts) {
    if (std::find(serving->hosts.begin(), serving->hosts.end(), host) == serving->hosts.end()) {
      return renew("the serving certificate does not name " + host);
    }
  }
  const Clock::time_point serving_renew_at = serving->not_after - policy.serving_renew_before;
  if (now >= serving_renew_at) return renew("the serving certificate expires soon (or has expired)");
  if (now < serving->not_before) return renew("the serving certificate is not valid yet");
  return RotationDecision{RotationAction::Keep, "the stored certificates are valid", std::min(ca_renew_at, serving_renew_at)};
}

Expected<CertificateBundle> rotate(const std::optional<CertificateBundle>& current, const RotationDecision& decision,
                                   const std::vector<std::string>& hosts, Clock::time_point now,
                                   const RotationPolicy& policy) {
  CertificateRequest request{hosts, now, policy.ca_validity, policy.serving_validity};
  switch (decision.action) {
    case RotationAction::Keep:
      if (!current) return fail("nothing to keep");
      return *current;
    case RotationAction::IssueServing:
      if (!current) return fail("no CA to sign with");
      return reissue_serving(*current, request);
    case RotationAction::IssueAll: break;
  }
  auto fresh = generate_bundle(request);
  if (!fresh) return fresh;
  // The previous CAs still valid stay in the bundle: a replica still serving a
  // certificate one of them signed is trusted until it loads the new one.
  if (current) {
    for (const auto& pem : split_pem_certificates(current->ca_cert_pem)) {
      auto info = inspect_certificate(pem);
      if (info && info->not_after > now && fresh->ca_cert_pem.find(pem) == std::string::npos) fresh->ca_cert_pem += pem;
    }
  }
  return fresh;
}

}  // namespace kueuepp::kube::webhook

#include "actors/read_back.hpp"

#include <algorithm>

#include "kube/jobs/workload_status.hpp"

namespace kueuepp::actors {

namespace {

ReadVerdict by_version(const kube::client::Object& read, std::string_view based_on) {
  return read.resource_version() == based_on ? ReadVerdict::NotLanded : ReadVerdict::Overtaken;
}

}  // namespace

ReadVerdict judge_admission(const kube::client::Object& read, const core::AdmissionDecision& admission,
                            std::string_view based_on) {
  if (kube::jobs::holds_quota_reservation(read) &&
      read.string_at({"status", "admission", "clusterQueue"}) == admission.admission.cluster_queue) {
    return ReadVerdict::Landed;
  }
  return by_version(read, based_on);
}

ReadVerdict judge_eviction(const kube::client::Object& read, std::string_view based_on) {
  if (read.condition_true("Evicted") || !kube::jobs::holds_quota_reservation(read)) return ReadVerdict::Landed;
  return by_version(read, based_on);
}

ReadVerdict judge_by_version(const kube::client::Object& read, std::string_view based_on) {
  return by_version(read, based_on);
}

std::chrono::milliseconds read_back_delay(std::uint32_t attempt) {
  if (attempt == 0) return std::chrono::milliseconds(0);
  const std::uint32_t doublings = std::min<std::uint32_t>(attempt - 1, 6);
  return std::min(std::chrono::milliseconds(200) * (1u << doublings), std::chrono::milliseconds(10000));
}

}  // namespace kueuepp::actors

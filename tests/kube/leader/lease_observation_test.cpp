// Expiry measured on the local clock from the moment a record was first seen.

#include <gtest/gtest.h>

#include "kube/leader/lease_observation.hpp"

namespace kueuepp::kube::leader {
namespace {

using namespace std::chrono_literals;

const LocalTime kStart = LocalTime{} + 1h;

ObservedLease held_by(std::string holder, std::string rv, int renewed_second = 0) {
  ObservedLease l;
  l.record.holder_identity = std::move(holder);
  l.record.lease_duration_seconds = 15;
  l.record.renew_time = client::TimePoint{} + std::chrono::seconds(renewed_second);
  l.resource_version = std::move(rv);
  return l;
}

TEST(LeaseObservation, NothingKnownIsNeitherHeldNorFree) {
  LeaseObservation o;
  EXPECT_FALSE(o.known());
  EXPECT_FALSE(o.held(kStart));
  EXPECT_FALSE(o.free_since(kStart));
}

TEST(LeaseObservation, ExpiresOneLeaseDurationAfterTheRecordWasFirstSeen) {
  LeaseObservation o;
  o.observe(held_by("a", "1"), kStart);
  o.observe(held_by("a", "1"), kStart + 10s);  // same record again: no renewal
  EXPECT_TRUE(o.held(kStart + 14999ms));
  EXPECT_TRUE(o.expired(kStart + 15s));
  EXPECT_EQ(o.free_since(kStart + 20s), kStart + 15s);
}

TEST(LeaseObservation, ARenewalRestartsTheClockButALabelChangeDoesNot) {
  LeaseObservation o;
  o.observe(held_by("a", "1", 0), kStart);
  o.observe(held_by("a", "2", 0), kStart + 10s);  // another resourceVersion, same record
  EXPECT_TRUE(o.expired(kStart + 15s));
  o.observe(held_by("a", "3", 12), kStart + 12s);  // renewTime moved: a renewal
  EXPECT_TRUE(o.held(kStart + 26s));
  EXPECT_TRUE(o.expired(kStart + 27s));
  EXPECT_EQ(o.lease()->resource_version, "3");
}

TEST(LeaseObservation, MissingAndReleasedLeasesAreFreeSinceFirstSeenSo) {
  LeaseObservation o;
  o.observe(std::nullopt, kStart);
  o.observe(std::nullopt, kStart + 5s);
  EXPECT_EQ(o.free_since(kStart + 6s), kStart);
  EXPECT_EQ(o.lease(), nullptr);
  o.observe(held_by("", "4"), kStart + 7s);
  EXPECT_EQ(o.free_since(kStart + 8s), kStart + 7s);
  EXPECT_FALSE(o.expired(kStart + 60s));  // nobody to expire
}

}  // namespace
}  // namespace kueuepp::kube::leader

// Decoding and encoding the leader election fields of a Lease, keeping everything else.

#include <gtest/gtest.h>

#include "kube/leader/lease_record.hpp"

namespace kueuepp::kube::leader {
namespace {

client::Object parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << text;
  return client::Object(v ? *v : json::value{});
}

constexpr const char* kLease = R"({
  "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
  "metadata": {"name": "kueuepp-shard-0", "namespace": "ns", "resourceVersion": "17",
               "labels": {"other.tool/owner": "x"}},
  "spec": {"holderIdentity": "pod-a_00ff", "leaseDurationSeconds": 15,
           "acquireTime": "2023-07-04T21:58:48.065888Z", "renewTime": "2023-07-04T21:58:49.565888Z",
           "leaseTransitions": 3, "strategy": "OldestEmulationVersion", "preferredHolder": "pod-b"}
})";

TEST(LeaseRecord, DecodesTheElectionFields) {
  ObservedLease seen = decode_observed_lease(parse(kLease));
  EXPECT_EQ(seen.resource_version, "17");
  EXPECT_EQ(seen.record.holder_identity, "pod-a_00ff");
  EXPECT_EQ(seen.record.lease_duration_seconds, 15);
  EXPECT_EQ(seen.record.lease_transitions, 3);
  ASSERT_TRUE(seen.record.acquire_time && seen.record.renew_time);
  EXPECT_EQ(*seen.record.renew_time - *seen.record.acquire_time, std::chrono::milliseconds(1500));
}

TEST(LeaseRecord, MissingFieldsDecodeAsEmpty) {
  LeaseRecord r = decode_lease_record(parse(R"({"metadata": {"name": "l"}, "spec": {}})"));
  EXPECT_EQ(r, LeaseRecord{});
}

TEST(LeaseRecord, EncodingKeepsUnknownFieldsAndWritesMicroTime) {
  client::Object lease = parse(kLease);
  LeaseRecord r = decode_lease_record(lease);
  r.holder_identity = "pod-b_0a";
  r.renew_time = *r.renew_time + std::chrono::microseconds(1);
  r.lease_transitions = 4;
  encode_lease_record(r, lease);
  EXPECT_EQ(lease.string_at({"spec", "strategy"}), "OldestEmulationVersion");
  EXPECT_EQ(lease.string_at({"spec", "preferredHolder"}), "pod-b");
  EXPECT_EQ(lease.label("other.tool/owner"), "x");
  EXPECT_EQ(lease.string_at({"spec", "renewTime"}), "2023-07-04T21:58:49.565889Z");
  EXPECT_EQ(decode_lease_record(lease), r);
}

TEST(LeaseRecord, ReleaseWritesAnEmptyHolderAndDropsAbsentTimes) {
  client::Object lease = parse(kLease);
  LeaseRecord released;
  released.lease_duration_seconds = 1;
  released.lease_transitions = 3;
  encode_lease_record(released, lease);
  ASSERT_NE(lease.find({"spec", "holderIdentity"}), nullptr);
  EXPECT_EQ(lease.string_at({"spec", "holderIdentity"}), "");
  EXPECT_EQ(lease.find({"spec", "acquireTime"}), nullptr);
  EXPECT_EQ(lease.find({"spec", "renewTime"}), nullptr);
  EXPECT_EQ(lease.int_at({"spec", "leaseDurationSeconds"}), 1);
}

}  // namespace
}  // namespace kueuepp::kube::leader

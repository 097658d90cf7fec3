#pragma once

// Names of the Leases of leader election and sharding, and of this replica.
//
//   <prefix>-shard-<i>          one per shard; with one shard, the classic leader lease
//   <prefix>-member-<identity>  one per replica (membership), holderIdentity = identity
//
// Every Lease carries the label kueuepp.x-k8s.io/lease-role (shard or member) so that
// one list with a label selector observes all of them.

#include <cstdint>
#include <string>
#include <string_view>

namespace kueuepp::kube::leader {

inline constexpr std::string_view kLeaseRoleLabel = "kueuepp.x-k8s.io/lease-role";
inline constexpr std::string_view kRoleShard = "shard";
inline constexpr std::string_view kRoleMember = "member";
inline constexpr std::string_view kDefaultLeasePrefix = "kueuepp";

/// A valid DNS subdomain (RFC 1123: lower-case alphanumerics, '-' and '.', labels start
/// and end alphanumeric, at most 253 characters) made from `text`: lower-cased, other
/// characters become '-', empty labels dropped. Names that had to be shortened end in a
/// hash of the whole text, so different long texts stay different names.
std::string sanitize_subdomain(std::string_view text);

std::string shard_lease_name(std::string_view prefix, std::uint32_t shard);
/// What every member Lease name of this prefix starts with (`<prefix>-member-`).
std::string member_lease_prefix(std::string_view prefix);
std::string member_lease_name(std::string_view prefix, std::string_view identity);

/// `<pod name>_<16 hex digits of random_bits>`: a restarted process (same pod name) is a
/// new identity and never renews its predecessor's leases.
std::string make_identity(std::string_view pod_name, std::uint64_t random_bits);
/// The same with bits from std::random_device.
std::string make_identity(std::string_view pod_name);

}  // namespace kueuepp::kube::leader

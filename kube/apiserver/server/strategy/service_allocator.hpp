#pragma once

// The cluster IPs (10.96.0.0/12, single-stack IPv4) and node ports (30000-32767) of
// core/v1 Services: which are taken and which to hand out next. What is taken is read
// from the stored Services whenever a Service is written (such writes are rare), so
// deletions, namespace cleanup, dry runs, refused writes and restarts need no
// bookkeeping: an address is free exactly when no stored Service holds it. Everything
// runs on the store thread, between reading the store and the write that follows, so
// nothing can take an address in between.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "kube/apiserver/server/store/object_store.hpp"

namespace kueuepp::kube::server {

class ServiceAllocator {
 public:
  /// What the stored Services hold.
  struct InUse {
    std::set<std::uint32_t> ips;
    std::set<std::int64_t> node_ports;
  };

  static constexpr std::string_view kClusterIpRange = "10.96.0.0/12";
  static constexpr std::int64_t kFirstNodePort = 30000;
  static constexpr std::int64_t kLastNodePort = 32767;

  ServiceAllocator(const ObjectStore& store, BucketId services) : store_(store), services_(services) {}

  /// The addresses and ports held by the stored Services other than the one at store
  /// key `self` ("namespace/name"; its own may be kept or changed by the write).
  InUse in_use(std::string_view self) const;

  /// A free cluster IP, added to `in_use` ("" when the range is full). Addresses are
  /// handed out in turn above the first 256 (kube-apiserver keeps that band for the
  /// addresses users choose), so a released address is not reused at once.
  std::string allocate_ip(InUse& in_use);
  /// A free node port, added to `in_use` (0 when every port is taken).
  std::int64_t allocate_node_port(InUse& in_use);

  /// Why `ip` cannot be a cluster IP (kube-apiserver's allocator wording; empty: it can).
  static std::string ip_problem(std::string_view ip, const InUse& in_use);
  /// Why `port` cannot be a node port (empty: it can).
  static std::string node_port_problem(std::int64_t port, const InUse& in_use);

  /// The IPv4 address as a number; nullopt when `text` is not a dotted quad.
  static std::optional<std::uint32_t> parse_ipv4(std::string_view text);

 private:
  const ObjectStore& store_;
  BucketId services_;
  std::uint32_t next_ip_offset_ = 256;
  std::int64_t next_node_port_ = kFirstNodePort;
};

}  // namespace kueuepp::kube::server

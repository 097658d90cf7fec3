#include "kube/apiserver/server/strategy/service_allocator.hpp"

#include <charconv>

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

constexpr std::uint32_t kBase = (10u << 24) | (96u << 16);  // 10.96.0.0
constexpr std::uint32_t kSize = 1u << 20;                   // a /12
constexpr std::uint32_t kStaticBand = 256;

std::string ipv4_text(std::uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

/// The first usable offset at or after `from` (wrapping), skipping the network and
/// broadcast addresses and the taken ones; kSize when there is none.
std::uint32_t free_offset(std::uint32_t from, const std::set<std::uint32_t>& taken) {
  for (std::uint32_t n = 0; n < kSize; ++n) {
    std::uint32_t offset = (from + n) % kSize;
    if (offset == 0 || offset == kSize - 1) continue;
    if (!taken.contains(kBase + offset)) return offset;
  }
  return kSize;
}

void add_ip(const json::value& v, ServiceAllocator::InUse& in_use) {
  if (!v.is_string()) return;
  if (auto ip = ServiceAllocator::parse_ipv4(v.get_string())) in_use.ips.insert(*ip);
}

void add_held(const json::value& spec, ServiceAllocator::InUse& in_use) {
  if (const json::value* ip = json::find(spec, "clusterIP")) add_ip(*ip, in_use);
  if (const json::value* ips = json::find(spec, "clusterIPs"); ips != nullptr && ips->is_array()) {
    for (const auto& v : ips->as_array()) add_ip(v, in_use);
  }
  if (const json::value* ports = json::find(spec, "ports"); ports != nullptr && ports->is_array()) {
    for (const auto& p : ports->as_array()) {
      const json::value* np = json::find(p, "nodePort");
      if (np != nullptr && np->is_int64() && np->get_int64() != 0) in_use.node_ports.insert(np->get_int64());
    }
  }
  const json::value* health = json::find(spec, "healthCheckNodePort");
  if (health != nullptr && health->is_int64() && health->get_int64() != 0) in_use.node_ports.insert(health->get_int64());
}

}  // namespace

std::optional<std::uint32_t> ServiceAllocator::parse_ipv4(std::string_view text) {
  std::uint32_t ip = 0;
  for (int part = 0; part < 4; ++part) {
    std::size_t dot = text.find('.');
    if ((part < 3) != (dot != std::string_view::npos)) return std::nullopt;
    std::string_view digits = text.substr(0, dot);
    unsigned value = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    // No sign, no leading zero (Go's netip refuses "010"), at most 255.
    if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || value > 255 ||
        (digits.size() > 1 && digits[0] == '0')) {
      return std::nullopt;
    }
    ip = (ip << 8) | value;
    text = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  }
  return ip;
}

ServiceAllocator::InUse ServiceAllocator::in_use(std::string_view self) const {
  InUse out;
  store_.scan(services_, "", "", 0, [&](const ObjectPtr& o) {
    if (o->key != self) {
      if (const json::value* spec = json::find(o->doc, "spec")) add_held(*spec, out);
    }
    return true;
  });
  return out;
}

std::string ServiceAllocator::allocate_ip(InUse& in_use) {
  std::uint32_t offset = free_offset(next_ip_offset_, in_use.ips);
  if (offset == kSize) return "";
  // Wrapping past the end starts again above the band kept for chosen addresses.
  next_ip_offset_ = offset + 1 >= kSize - 1 ? kStaticBand : offset + 1;
  in_use.ips.insert(kBase + offset);
  return ipv4_text(kBase + offset);
}

std::int64_t ServiceAllocator::allocate_node_port(InUse& in_use) {
  constexpr std::int64_t count = kLastNodePort - kFirstNodePort + 1;
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t port = kFirstNodePort + (next_node_port_ - kFirstNodePort + n) % count;
    if (in_use.node_ports.contains(port)) continue;
    next_node_port_ = port == kLastNodePort ? kFirstNodePort : port + 1;
    in_use.node_ports.insert(port);
    return port;
  }
  return 0;
}

std::string ServiceAllocator::ip_problem(std::string_view ip, const InUse& in_use) {
  auto parsed = parse_ipv4(ip);
  if (!parsed) return fmt::format("failed to allocate IP {}: not a valid IPv4 address", ip);
  std::uint32_t offset = *parsed - kBase;
  if (*parsed < kBase || offset >= kSize || offset == 0 || offset == kSize - 1) {
    return fmt::format("failed to allocate IP {}: the provided IP ({}) is not in the valid range. The range of valid "
                       "IPs is {}",
                       ip, ip, kClusterIpRange);
  }
  if (in_use.ips.contains(*parsed)) return fmt::format("failed to allocate IP {}: provided IP is already allocated", ip);
  return "";
}

std::string ServiceAllocator::node_port_problem(std::int64_t port, const InUse& in_use) {
  if (port < kFirstNodePort || port > kLastNodePort) {
    return fmt::format("provided port is not in the valid range. The range of valid ports is {}-{}", kFirstNodePort,
                       kLastNodePort);
  }
  if (in_use.node_ports.contains(port)) return "provided port is already allocated";
  return "";
}

}  // namespace kueuepp::kube::server

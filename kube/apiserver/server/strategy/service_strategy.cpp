// core/v1 Service: kube-apiserver 1.28's defaulting (type ClusterIP, sessionAffinity
// None, port protocol TCP and targetPort = port, traffic policies), what its Service
// registry adds on create (a cluster IP from 10.96.0.0/12 unless headless, clusterIPs,
// single-stack IPv4 families, node ports for NodePort and LoadBalancer Services, an
// empty load-balancer status), the allocated values an update keeps when the client
// leaves them out, and the validation (ports, types, addresses, the immutable cluster
// IP). There is no proxy: Services route nothing, they are stored and served.

#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "kube/apiserver/server/store/stored_object.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/service_allocator.hpp"
#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::array kServiceFields{
    TypedField{"spec", FieldType::Object},
    TypedField{"spec.ports", FieldType::ObjectList},
    TypedField{"spec.ports[].name", FieldType::String},
    TypedField{"spec.ports[].protocol", FieldType::String},
    TypedField{"spec.ports[].appProtocol", FieldType::String},
    TypedField{"spec.ports[].port", FieldType::Integer},
    TypedField{"spec.ports[].nodePort", FieldType::Integer},
    TypedField{"spec.selector", FieldType::StringMap},
    TypedField{"spec.clusterIP", FieldType::String},
    TypedField{"spec.clusterIPs", FieldType::StringList},
    TypedField{"spec.type", FieldType::String},
    TypedField{"spec.externalIPs", FieldType::StringList},
    TypedField{"spec.sessionAffinity", FieldType::String},
    TypedField{"spec.sessionAffinityConfig", FieldType::Object},
    TypedField{"spec.loadBalancerIP", FieldType::String},
    TypedField{"spec.loadBalancerSourceRanges", FieldType::StringList},
    TypedField{"spec.externalName", FieldType::String},
    TypedField{"spec.externalTrafficPolicy", FieldType::String},
    TypedField{"spec.healthCheckNodePort", FieldType::Integer},
    TypedField{"spec.publishNotReadyAddresses", FieldType::Bool},
    TypedField{"spec.ipFamilies", FieldType::StringList},
    TypedField{"spec.ipFamilyPolicy", FieldType::String},
    TypedField{"spec.allocateLoadBalancerNodePorts", FieldType::Bool},
    TypedField{"spec.loadBalancerClass", FieldType::String},
    TypedField{"spec.internalTrafficPolicy", FieldType::String},
    TypedField{"status", FieldType::Object},
    TypedField{"status.loadBalancer", FieldType::Object},
    TypedField{"status.loadBalancer.ingress", FieldType::ObjectList},
    TypedField{"status.conditions", FieldType::ObjectList},
};

constexpr std::array<std::string_view, 19> kSpecOrder{
    "ports", "selector", "clusterIP", "clusterIPs", "type", "externalIPs", "sessionAffinity", "loadBalancerIP",
    "loadBalancerSourceRanges", "externalName", "externalTrafficPolicy", "healthCheckNodePort",
    "publishNotReadyAddresses", "sessionAffinityConfig", "ipFamilies", "ipFamilyPolicy",
    "allocateLoadBalancerNodePorts", "loadBalancerClass", "internalTrafficPolicy"};
constexpr std::array<std::string_view, 6> kPortOrder{"name", "protocol", "appProtocol", "port", "targetPort", "nodePort"};

constexpr std::string_view kNotDualStack = "this cluster is not configured for dual-stack services";

ListTable service_lists() {
  // Ports: patchMergeKey port; for apply, +listMapKey port and protocol (TCP when omitted).
  ListRule ports{"spec.ports", ListMerge{ListMerge::Kind::Map, "port"}, ListMerge{ListMerge::Kind::Map, "port", "protocol", "TCP"}};
  return ListTable({ports, atomic_object("spec.selector"), keyed_list("status.conditions", "type")});
}

// -- what a Service is ------------------------------------------------------------------

std::string_view type_of(const json::object& spec) { return string_at(spec, {"type"}); }
bool needs_cluster_ip(const json::object& spec) { return type_of(spec) != "ExternalName"; }
bool is_headless(const json::object& spec) { return string_at(spec, {"clusterIP"}) == "None"; }

bool needs_node_ports(const json::object& spec) {
  std::string_view type = type_of(spec);
  if (type == "NodePort") return true;
  const json::value* allocate = spec.if_contains("allocateLoadBalancerNodePorts");
  return type == "LoadBalancer" && !(allocate != nullptr && allocate->is_bool() && !allocate->get_bool());
}

/// ExternallyAccessible: reachable from outside the cluster, so externalTrafficPolicy applies.
bool externally_accessible(const json::object& spec) {
  std::string_view type = type_of(spec);
  const json::value* external = spec.if_contains("externalIPs");
  bool has_external = external != nullptr && external->is_array() && !external->as_array().empty();
  return type == "LoadBalancer" || type == "NodePort" || (type == "ClusterIP" && has_external);
}

bool empty_member(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) return true;
  if (v->is_array()) return v->as_array().empty();
  if (v->is_object()) return v->as_object().empty();
  if (v->is_string()) return v->get_string().empty();
  return false;
}

json::array* ports_of(json::object& spec) {
  json::value* ports = spec.if_contains("ports");
  return ports != nullptr && ports->is_array() ? &ports->as_array() : nullptr;
}
const json::array* ports_of(const json::object& spec) {
  const json::value* ports = spec.if_contains("ports");
  return ports != nullptr && ports->is_array() ? &ports->as_array() : nullptr;
}

std::int64_t node_port_of(const json::value& port) {
  const json::value* np = json::find(port, "nodePort");
  return np != nullptr && np->is_int64() ? np->get_int64() : 0;
}

std::string store_key_of(const json::object& obj) { return object_key(meta_string(obj, "namespace"), meta_string(obj, "name")); }

// -- defaults and allocation ----------------------------------------------------------

void default_port(json::object& port) {
  default_string(port, "protocol", "TCP");
  const json::value* target = port.if_contains("targetPort");
  bool unset_target = target == nullptr || target->is_null() || (target->is_int64() && target->get_int64() == 0) ||
                      (target->is_string() && target->get_string().empty());
  if (unset_target) {
    // A copy first: inserting targetPort may grow the object's table and free the
    // member p points to.
    if (const json::value* p = port.if_contains("port")) {
      json::value number = *p;
      port["targetPort"] = std::move(number);
    }
  }
  order_members(port, kPortOrder);
}

void default_session_affinity(json::object& spec) {
  default_string(spec, "sessionAffinity", "None");
  std::string_view affinity = string_at(spec, {"sessionAffinity"});
  if (affinity == "None") spec.erase("sessionAffinityConfig");
  if (affinity == "ClientIP" && at(spec, {"sessionAffinityConfig", "clientIP", "timeoutSeconds"}) == nullptr) {
    spec["sessionAffinityConfig"] = json::object{{"clientIP", json::object{{"timeoutSeconds", 10800}}}};
  }
}

/// SetDefaults_Service.
void apply_defaults(json::object& obj) {
  json::object& spec = object_member(obj, "spec");
  default_session_affinity(spec);
  default_string(spec, "type", "ClusterIP");
  if (json::array* ports = ports_of(spec)) {
    for (auto& p : *ports) {
      if (p.is_object()) default_port(p.as_object());
    }
  }
  if (externally_accessible(spec)) default_string(spec, "externalTrafficPolicy", "Cluster");
  std::string_view type = type_of(spec);
  if (type == "ClusterIP" || type == "NodePort" || type == "LoadBalancer") {
    default_string(spec, "internalTrafficPolicy", "Cluster");
  }
  if (type == "LoadBalancer") set_default(spec, "allocateLoadBalancerNodePorts", true);
}

/// A cluster IP for a Service that has none (clusterIPs[0] when only that was given).
void allocate_cluster_ip(json::object& spec, ServiceAllocator& allocator, ServiceAllocator::InUse& in_use) {
  if (empty_member(spec, "clusterIP")) {
    const json::value* ips = spec.if_contains("clusterIPs");
    if (ips != nullptr && ips->is_array() && !ips->as_array().empty() && ips->as_array()[0].is_string()) {
      spec["clusterIP"] = ips->as_array()[0];
    } else {
      // A full range leaves the field empty; validation then says so.
      spec["clusterIP"] = allocator.allocate_ip(in_use);
    }
  }
  if (empty_member(spec, "clusterIPs") && !string_at(spec, {"clusterIP"}).empty()) {
    spec["clusterIPs"] = json::array{spec.at("clusterIP")};
  }
}

/// The IP family fields of a single-stack IPv4 cluster. A headless Service without a
/// selector gets RequireDualStack, as kube-apiserver gives it (its endpoints are
/// managed by hand and may be of any family).
void default_ip_families(json::object& spec) {
  if (empty_member(spec, "ipFamilies")) spec["ipFamilies"] = json::array{"IPv4"};
  bool selectorless_headless = is_headless(spec) && empty_member(spec, "selector");
  default_string(spec, "ipFamilyPolicy", selectorless_headless ? "RequireDualStack" : "SingleStack");
}

/// Node ports for the ports that have none.
void allocate_node_ports(json::object& spec, ServiceAllocator& allocator, ServiceAllocator::InUse& in_use) {
  json::array* ports = ports_of(spec);
  if (ports == nullptr) return;
  for (auto& p : *ports) {
    if (p.is_object() && node_port_of(p) == 0) {
      std::int64_t port = allocator.allocate_node_port(in_use);
      if (port != 0) p.as_object()["nodePort"] = port;
    }
  }
}

/// patchAllocatedValues: an update that leaves out what was allocated keeps it.
void keep_allocated(json::object& spec, const json::object& old_spec) {
  if (needs_cluster_ip(spec) && needs_cluster_ip(old_spec)) {
    for (std::string_view key : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
      if (empty_member(spec, key) && !empty_member(old_spec, key)) spec[key] = old_spec.at(key);
    }
  }
  if (!needs_node_ports(spec) || !needs_node_ports(old_spec)) return;
  json::array* ports = ports_of(spec);
  const json::array* old_ports = ports_of(old_spec);
  if (ports == nullptr || old_ports == nullptr) return;
  std::set<std::int64_t> used;
  for (const auto& p : *ports) used.insert(node_port_of(p));
  for (auto& p : *ports) {
    if (!p.is_object() || node_port_of(p) != 0) continue;
    for (const auto& o : *old_ports) {
      std::int64_t old_port = node_port_of(o);
      if (json::get_string(o, "name") == json::get_string(p, "name") && old_port != 0 && !used.contains(old_port)) {
        p.as_object()["nodePort"] = old_port;
        used.insert(old_port);
        break;
      }
    }
  }
}

/// dropTypeDependentFields: a type change that no longer needs cluster IPs or node
/// ports drops them, when the client left them as they were.
void drop_type_dependent(json::object& spec, const json::object& old_spec) {
  if (!needs_cluster_ip(spec) && needs_cluster_ip(old_spec)) {
    for (std::string_view key : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
      const json::value* v = spec.if_contains(key);
      const json::value* o = old_spec.if_contains(key);
      if (v != nullptr && o != nullptr && *v == *o) spec.erase(key);
    }
  }
  if (needs_node_ports(spec) || !needs_node_ports(old_spec)) return;
  json::array* ports = ports_of(spec);
  const json::array* old_ports = ports_of(old_spec);
  if (ports == nullptr || old_ports == nullptr) return;
  for (auto& p : *ports) {
    std::int64_t np = node_port_of(p);
    bool was_allocated = std::any_of(old_ports->begin(), old_ports->end(),
                                     [&](const json::value& o) { return np != 0 && node_port_of(o) == np; });
    if (was_allocated) p.as_object().erase("nodePort");
  }
}

// -- validation -----------------------------------------------------------------------

/// IsValidPortName: an IANA service name.
Problems port_name_problems(std::string_view name) {
  Problems out;
  if (name.size() > 15) out.emplace_back("must be no more than 15 characters");
  bool letter = false;
  bool valid_chars = true;
  for (char c : name) {
    letter = letter || (c >= 'a' && c <= 'z');
    valid_chars = valid_chars && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  }
  if (!valid_chars) out.emplace_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) out.emplace_back("must contain at least one letter (a-z)");
  if (name.find("--") != std::string_view::npos) out.emplace_back("must not contain consecutive hyphens");
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) out.emplace_back("must not begin or end with a hyphen");
  return out;
}

bool valid_port_number(const json::value* v) {
  return v != nullptr && v->is_int64() && v->get_int64() >= 1 && v->get_int64() <= 65535;
}

void validate_target_port(const json::value* target, const std::string& path, FieldErrors& errs) {
  if (target == nullptr || target->is_null()) return;
  if (target->is_string()) {
    for (const auto& p : port_name_problems(target->get_string())) errs.push_back(invalid_error(path, *target, p));
  } else if (!valid_port_number(target)) {
    errs.push_back(invalid_error(path, *target, "must be between 1 and 65535, inclusive"));
  }
}

void validate_port(const json::value& port, std::size_t i, bool require_name, std::string_view type,
                   std::set<std::string>& names, FieldErrors& errs) {
  std::string base = fmt::format("spec.ports[{}]", i);
  std::string_view name = json::get_string(port, "name");
  if (name.empty()) {
    if (require_name) errs.push_back(required_error(base + ".name"));
  } else {
    for (const auto& p : dns1123_label_problems(name)) errs.push_back(invalid_error(base + ".name", json::value(name), p));
    if (!names.insert(std::string(name)).second) errs.push_back(duplicate_error(base + ".name", json::value(name)));
  }
  const json::value* number = json::find(port, "port");
  if (!valid_port_number(number)) {
    errs.push_back(invalid_error(base + ".port", number != nullptr ? *number : json::value(0),
                                 "must be between 1 and 65535, inclusive"));
  }
  std::string_view protocol = json::get_string(port, "protocol");
  if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
    errs.push_back(not_supported_error(base + ".protocol", json::value(protocol), {"SCTP", "TCP", "UDP"}));
  }
  validate_target_port(json::find(port, "targetPort"), base + ".targetPort", errs);
  std::int64_t node_port = node_port_of(port);
  if (node_port != 0 && type == "ClusterIP") {
    errs.push_back(forbidden_error(base + ".nodePort", "may not be used when `type` is 'ClusterIP'"));
  }
}

void validate_ports(const json::object& spec, FieldErrors& errs) {
  const json::array* ports = ports_of(spec);
  bool none = ports == nullptr || ports->empty();
  if (none) {
    if (!is_headless(spec) && needs_cluster_ip(spec)) errs.push_back(required_error("spec.ports"));
    return;
  }
  std::set<std::string> names;
  std::set<std::string> seen;  // port/protocol pairs
  for (std::size_t i = 0; i < ports->size(); ++i) {
    const json::value& p = (*ports)[i];
    if (!p.is_object()) continue;
    validate_port(p, i, ports->size() > 1, type_of(spec), names, errs);
    const json::value* number = json::find(p, "port");
    std::string pair = fmt::format("{}/{}", number != nullptr ? json::dump(*number) : "", json::get_string(p, "protocol"));
    if (!seen.insert(pair).second) errs.push_back(duplicate_error(fmt::format("spec.ports[{}]", i), p));
  }
}

void validate_node_ports(const json::object& spec, const ServiceAllocator::InUse& in_use, FieldErrors& errs) {
  const json::array* ports = ports_of(spec);
  if (ports == nullptr || !needs_node_ports(spec)) return;
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < ports->size(); ++i) {
    std::int64_t np = node_port_of((*ports)[i]);
    if (np == 0) continue;
    std::string path = fmt::format("spec.ports[{}].nodePort", i);
    if (!seen.insert(np).second) {
      errs.push_back(duplicate_error(path, json::value(np)));
    } else if (std::string problem = ServiceAllocator::node_port_problem(np, in_use); !problem.empty()) {
      errs.push_back(invalid_error(path, json::value(np), problem));
    }
  }
}

/// The primary cluster IP: headless, or a free address of the range.
void validate_cluster_ip(const json::object& spec, const ServiceAllocator::InUse& in_use, FieldErrors& errs) {
  std::string_view ip = string_at(spec, {"clusterIP"});
  std::string_view type = type_of(spec);
  if (ip.empty()) {
    errs.push_back(invalid_error("spec.clusterIPs", json::value(ip),
                                 fmt::format("failed to allocate a cluster IP: the range {} is full",
                                             ServiceAllocator::kClusterIpRange)));
    return;
  }
  if (ip == "None") {
    if (type == "NodePort" || type == "LoadBalancer") {
      errs.push_back(invalid_error("spec.clusterIPs[0]", json::value(ip), fmt::format("may not be set to 'None' for {} services", type)));
    }
    return;
  }
  if (!ServiceAllocator::parse_ipv4(ip)) {
    errs.push_back(invalid_error("spec.clusterIPs[0]", json::value(ip), "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    return;
  }
  if (std::string problem = ServiceAllocator::ip_problem(ip, in_use); !problem.empty()) {
    errs.push_back(invalid_error("spec.clusterIPs", spec.contains("clusterIPs") ? spec.at("clusterIPs") : json::value(ip), problem));
  }
}

void validate_cluster_ips(const json::object& spec, const ServiceAllocator::InUse& in_use, FieldErrors& errs) {
  validate_cluster_ip(spec, in_use, errs);
  const json::value* ips = spec.if_contains("clusterIPs");
  if (ips == nullptr || !ips->is_array()) return;
  const json::array& list = ips->as_array();
  if (!list.empty() && list[0] != spec.at("clusterIP")) {
    errs.push_back(invalid_error("spec.clusterIPs[0]", list[0], "must match `clusterIP`"));
  }
  for (std::size_t i = 1; i < list.size(); ++i) {
    errs.push_back(invalid_error(fmt::format("spec.clusterIPs[{}]", i), list[i], kNotDualStack));
  }
}

void validate_ip_families(const json::object& spec, FieldErrors& errs) {
  std::string_view policy = string_at(spec, {"ipFamilyPolicy"});
  if (policy != "SingleStack" && policy != "PreferDualStack" && policy != "RequireDualStack") {
    errs.push_back(not_supported_error("spec.ipFamilyPolicy", json::value(policy),
                                       {"PreferDualStack", "RequireDualStack", "SingleStack"}));
  } else if (policy == "RequireDualStack" && !(is_headless(spec) && empty_member(spec, "selector"))) {
    errs.push_back(invalid_error("spec.ipFamilyPolicy", json::value(policy), kNotDualStack));
  }
  const json::value* families = spec.if_contains("ipFamilies");
  if (families == nullptr || !families->is_array()) return;
  const json::array& list = families->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string path = fmt::format("spec.ipFamilies[{}]", i);
    std::string_view family = list[i].is_string() ? std::string_view(list[i].get_string()) : std::string_view();
    if (family == "IPv6") {
      errs.push_back(invalid_error(path, list[i], "not configured on this cluster"));
    } else if (family != "IPv4") {
      errs.push_back(not_supported_error(path, list[i], {"IPv4", "IPv6"}));
    } else if (i > 0) {
      errs.push_back(duplicate_error(path, list[i]));
    }
  }
}

void validate_external_name(const json::object& spec, FieldErrors& errs) {
  if (!empty_member(spec, "clusterIP")) {
    errs.push_back(forbidden_error("spec.clusterIP", "may not be set for ExternalName services"));
  }
  std::string_view name = string_at(spec, {"externalName"});
  if (name.empty()) {
    errs.push_back(required_error("spec.externalName"));
    return;
  }
  // A fully qualified name may end with a dot.
  std::string_view bare = name.back() == '.' ? name.substr(0, name.size() - 1) : name;
  for (const auto& p : dns1123_subdomain_problems(bare)) errs.push_back(invalid_error("spec.externalName", json::value(name), p));
}

void validate_policies(const json::object& spec, FieldErrors& errs) {
  std::string_view type = type_of(spec);
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName") {
    errs.push_back(not_supported_error("spec.type", json::value(type), {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
  }
  std::string_view affinity = string_at(spec, {"sessionAffinity"});
  if (affinity != "None" && affinity != "ClientIP") {
    errs.push_back(not_supported_error("spec.sessionAffinity", json::value(affinity), {"ClientIP", "None"}));
  }
  if (auto timeout = int_at(spec, {"sessionAffinityConfig", "clientIP", "timeoutSeconds"}); timeout && (*timeout <= 0 || *timeout > 86400)) {
    errs.push_back(invalid_error("spec.sessionAffinityConfig.clientIP.timeoutSeconds", json::value(*timeout),
                                 "must be greater than 0 and less than 86400"));
  }
  std::string_view external = string_at(spec, {"externalTrafficPolicy"});
  if (!externally_accessible(spec)) {
    if (!external.empty()) {
      errs.push_back(invalid_error("spec.externalTrafficPolicy", json::value(external), "may only be set for externally-accessible services"));
    }
  } else if (external != "Cluster" && external != "Local") {
    errs.push_back(not_supported_error("spec.externalTrafficPolicy", json::value(external), {"Cluster", "Local"}));
  }
  std::string_view internal = string_at(spec, {"internalTrafficPolicy"});
  if (needs_cluster_ip(spec) && internal != "Cluster" && internal != "Local") {
    errs.push_back(not_supported_error("spec.internalTrafficPolicy", json::value(internal), {"Cluster", "Local"}));
  }
}

void validate_selector(const json::object& spec, FieldErrors& errs) {
  const json::value* selector = spec.if_contains("selector");
  if (selector == nullptr || !selector->is_object()) return;
  for (const auto& [k, v] : selector->as_object()) {
    for (const auto& p : qualified_name_problems(k)) errs.push_back(invalid_error("spec.selector", json::value(k), p));
    std::string_view value = v.is_string() ? std::string_view(v.get_string()) : std::string_view();
    for (const auto& p : label_value_problems(value)) errs.push_back(invalid_error("spec.selector", v, p));
  }
}

/// ValidateService; `in_use` holds the other Services' addresses.
FieldErrors validate_spec(const json::object& obj, const ServiceAllocator::InUse& in_use) {
  FieldErrors errs;
  const json::value* spec_v = obj.if_contains("spec");
  if (spec_v == nullptr || !spec_v->is_object()) {
    errs.push_back(required_error("spec"));
    return errs;
  }
  const json::object& spec = spec_v->as_object();
  validate_ports(spec, errs);
  validate_policies(spec, errs);
  validate_selector(spec, errs);
  if (type_of(spec) == "ExternalName") {
    validate_external_name(spec, errs);
    return errs;
  }
  validate_cluster_ips(spec, in_use, errs);
  validate_ip_families(spec, errs);
  validate_node_ports(spec, in_use, errs);
  return errs;
}

FieldErrors validate_status(const json::object& obj) {
  FieldErrors errs;
  const json::value* ingress = at(obj, {"status", "loadBalancer", "ingress"});
  if (ingress == nullptr || !ingress->is_array()) return errs;
  const json::array& list = ingress->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string_view ip = json::get_string(list[i], "ip");
    if (!ip.empty() && !ServiceAllocator::parse_ipv4(ip)) {
      errs.push_back(invalid_error(fmt::format("status.loadBalancer.ingress[{}].ip", i), json::value(ip), "must be a valid IP address"));
    }
  }
  return errs;
}

// -- table ----------------------------------------------------------------------------

std::string joined_strings(const json::value* list) {
  std::string out;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& v : list->as_array()) {
    if (!v.is_string()) continue;
    if (!out.empty()) out += ",";
    out += v.get_string();
  }
  return out;
}

std::string external_ip_cell(const json::object& obj) {
  const json::object* spec = at(obj, {"spec"}) != nullptr ? at(obj, {"spec"})->if_object() : nullptr;
  if (spec == nullptr) return "<none>";
  std::string external = joined_strings(spec->if_contains("externalIPs"));
  std::string_view type = type_of(*spec);
  if (type == "ExternalName") return std::string(string_at(*spec, {"externalName"}));
  if (type == "LoadBalancer") {
    std::string lb;
    if (const json::value* ingress = at(obj, {"status", "loadBalancer", "ingress"}); ingress != nullptr && ingress->is_array()) {
      for (const auto& i : ingress->as_array()) {
        std::string_view addr = json::get_string(i, "ip");
        if (addr.empty()) addr = json::get_string(i, "hostname");
        if (addr.empty()) continue;
        if (!lb.empty()) lb += ",";
        lb += addr;
      }
    }
    if (!external.empty()) lb += lb.empty() ? external : "," + external;
    return lb.empty() ? "<pending>" : lb;
  }
  return external.empty() ? "<none>" : external;
}

std::string ports_cell(const json::object& obj) {
  std::string out;
  const json::value* ports = at(obj, {"spec", "ports"});
  if (ports == nullptr || !ports->is_array() || ports->as_array().empty()) return "<none>";
  for (const auto& p : ports->as_array()) {
    if (!out.empty()) out += ",";
    const json::value* number = json::find(p, "port");
    out += number != nullptr ? json::dump(*number) : "0";
    if (std::int64_t np = node_port_of(p); np != 0) out += fmt::format(":{}", np);
    out += fmt::format("/{}", json::get_string(p, "protocol"));
  }
  return out;
}

std::string selector_cell(const json::object& obj) {
  std::string out;
  const json::value* selector = at(obj, {"spec", "selector"});
  if (selector == nullptr || !selector->is_object() || selector->as_object().empty()) return "<none>";
  for (const auto& [k, v] : selector->as_object()) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}={}", std::string_view(k), v.is_string() ? std::string_view(v.get_string()) : "");
  }
  return out;
}

class ServiceStrategy final : public BuiltinStrategy {
 public:
  explicit ServiceStrategy(std::shared_ptr<ServiceAllocator> allocator)
      : BuiltinStrategy("", "Service", service_lists()), allocator_(std::move(allocator)) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kServiceFields); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    apply_defaults(decoded->as_object());
    return decoded;
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    obj["status"] = json::object{{"loadBalancer", json::object{}}};
    json::object& spec = object_member(obj, "spec");
    ServiceAllocator::InUse in_use = allocator_->in_use(store_key_of(obj));
    if (needs_cluster_ip(spec)) {
      allocate_cluster_ip(spec, *allocator_, in_use);
      default_ip_families(spec);
    }
    if (needs_node_ports(spec)) allocate_node_ports(spec, *allocator_, in_use);
    order_members(spec, kSpecOrder);
  }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    BuiltinStrategy::prepare_for_update(obj, old, ctx);
    const json::value* old_spec_v = old.if_contains("spec");
    if (ctx.status || old_spec_v == nullptr || !old_spec_v->is_object()) return;
    const json::object& old_spec = old_spec_v->as_object();
    json::object& spec = object_member(obj, "spec");
    keep_allocated(spec, old_spec);
    drop_type_dependent(spec, old_spec);
    ServiceAllocator::InUse in_use = allocator_->in_use(store_key_of(obj));
    if (needs_cluster_ip(spec) && !needs_cluster_ip(old_spec)) {
      allocate_cluster_ip(spec, *allocator_, in_use);
      default_ip_families(spec);
    }
    if (needs_node_ports(spec)) allocate_node_ports(spec, *allocator_, in_use);
    order_members(spec, kSpecOrder);
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (ctx.status) return validate_status(obj);
    ServiceAllocator::InUse in_use = allocator_->in_use(store_key_of(obj));
    return validate_spec(obj, in_use);
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (ctx.status) return errs;
    const json::value* spec = obj.if_contains("spec");
    const json::value* old_spec = old.if_contains("spec");
    if (spec == nullptr || old_spec == nullptr || !spec->is_object() || !old_spec->is_object()) return errs;
    // The primary cluster IP stays for the Service's life (unless it changes to or from ExternalName).
    std::string_view ip = string_at(spec->as_object(), {"clusterIP"});
    std::string_view old_ip = string_at(old_spec->as_object(), {"clusterIP"});
    if (needs_cluster_ip(spec->as_object()) && needs_cluster_ip(old_spec->as_object()) && !old_ip.empty() && ip != old_ip) {
      errs.push_back(invalid_error("spec.clusterIPs[0]", json::value(ip), "may not change once set"));
    }
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Type", "string", "", "The type of the service.", 0, ""},
            {"Cluster-IP", "string", "", "The cluster IP of the service.", 0, ""},
            {"External-IP", "string", "", "The external IP of the service.", 0, ""},
            {"Port(s)", "string", "", "The ports exposed by the service.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""},
            {"Selector", "string", "", "Route service traffic to pods with label keys and values matching this selector.", 1, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    std::string_view ip = string_at(obj, {"spec", "clusterIP"});
    return json::array{json::value(string_at(obj, {"spec", "type"})), json::value(ip.empty() ? "<none>" : ip),
                       json::value(external_ip_cell(obj)), json::value(ports_cell(obj)), json::value(age_of(obj)),
                       json::value(selector_cell(obj))};
  }

 private:
  std::shared_ptr<ServiceAllocator> allocator_;
};

}  // namespace

StrategyPtr make_service_strategy(std::shared_ptr<ServiceAllocator> allocator) {
  return std::make_shared<ServiceStrategy>(std::move(allocator));
}

}  // namespace kueuepp::kube::server

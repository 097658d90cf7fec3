// core/v1 Service: defaults, cluster IP and node port allocation (distinct, freed by
// deletion, kept by updates that leave them out, immutable), headless Services, port
// validation, dry run and server-side apply, over HTTP.

#include <set>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/service_allocator.hpp"
#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kServices = "/api/v1/namespaces/team/services";

std::string service(std::string_view name, std::string_view spec_extra = "",
                    std::string_view ports = "  - {name: http, port: 80, targetPort: http}\n  - {name: metrics, port: 9090}\n") {
  return fmt::format("apiVersion: v1\nkind: Service\nmetadata:\n  name: {}\nspec:\n  selector: {{app: web}}\n{}  ports:\n{}",
                     name, spec_extra, ports);
}

std::string path_of(std::string_view name) { return std::string(kServices) + "/" + std::string(name); }

bool in_cluster_range(const std::string& ip) {
  auto parsed = ServiceAllocator::parse_ipv4(ip);
  return parsed && (*parsed >> 20) == ((10u << 24 | 96u << 16) >> 20);
}

class ServiceStrategy : public BuiltinKindTest {};

TEST_F(ServiceStrategy, CreateFillsDefaultsAndAllocatesAClusterIp) {
  json::value created = create_yaml(kServices, service("web"));
  EXPECT_EQ(str(created, "/spec/type"), "ClusterIP");
  EXPECT_EQ(str(created, "/spec/sessionAffinity"), "None");
  EXPECT_EQ(str(created, "/spec/ports/0/protocol"), "TCP");
  EXPECT_EQ(str(created, "/spec/ports/0/targetPort"), "http");  // a named target port stays
  EXPECT_EQ(num(created, "/spec/ports/1/targetPort"), 9090);     // defaults to the port
  std::string ip = str(created, "/spec/clusterIP");
  EXPECT_TRUE(in_cluster_range(ip)) << ip;
  EXPECT_EQ(json::dump(*at(created, "/spec/clusterIPs")), "[\"" + ip + "\"]");
  EXPECT_EQ(json::dump(*at(created, "/spec/ipFamilies")), R"(["IPv4"])");
  EXPECT_EQ(str(created, "/spec/ipFamilyPolicy"), "SingleStack");
  EXPECT_EQ(str(created, "/spec/internalTrafficPolicy"), "Cluster");
  EXPECT_EQ(at(created, "/spec/externalTrafficPolicy"), nullptr);
  EXPECT_EQ(json::dump(*at(created, "/status")), R"({"loadBalancer":{}})");
  EXPECT_EQ(str(get_ok(path_of("web")), "/spec/clusterIP"), ip);
}

TEST_F(ServiceStrategy, ClusterIpsAreDistinctAndAChosenOneMustBeFree) {
  std::set<std::string> ips;
  for (int i = 0; i < 5; ++i) ips.insert(str(create_yaml(kServices, service(fmt::format("s{}", i))), "/spec/clusterIP"));
  EXPECT_EQ(ips.size(), 5u);

  json::value chosen = create_yaml(kServices, service("chosen", "  clusterIP: 10.96.0.42\n"));
  EXPECT_EQ(str(chosen, "/spec/clusterIP"), "10.96.0.42");
  auto taken = invalid(post_yaml(kServices, service("again", "  clusterIP: 10.96.0.42\n")));
  EXPECT_TRUE(any_contains(taken, "spec.clusterIPs: Invalid value: [\"10.96.0.42\"]: failed to allocate IP 10.96.0.42: provided IP is already allocated"))
      << taken.front();
  auto outside = invalid(post_yaml(kServices, service("outside", "  clusterIP: 192.168.0.1\n")));
  EXPECT_TRUE(any_contains(outside, "is not in the valid range. The range of valid IPs is 10.96.0.0/12")) << outside.front();
  auto garbage = invalid(post_yaml(kServices, service("garbage", "  clusterIP: not-an-ip\n")));
  EXPECT_TRUE(any_contains(garbage, "spec.clusterIPs[0]: Invalid value: \"not-an-ip\": must be a valid IP address")) << garbage.front();

  // Deleting the Service frees its address.
  expect(200, api().del(path_of("chosen")));
  EXPECT_EQ(str(create_yaml(kServices, service("again", "  clusterIP: 10.96.0.42\n")), "/spec/clusterIP"), "10.96.0.42");
}

TEST_F(ServiceStrategy, HeadlessServicesHaveNoAddressAndNeedNoPorts) {
  json::value headless = create_yaml(kServices, "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector: {app: db}\n");
  EXPECT_EQ(str(headless, "/spec/clusterIP"), "None");
  EXPECT_EQ(json::dump(*at(headless, "/spec/clusterIPs")), R"(["None"])");
  EXPECT_EQ(str(headless, "/spec/ipFamilyPolicy"), "SingleStack");
  // Without a selector its endpoints are managed by hand, in any family.
  json::value manual = create_yaml(kServices, "apiVersion: v1\nkind: Service\nmetadata:\n  name: manual\nspec:\n  clusterIP: None\n");
  EXPECT_EQ(str(manual, "/spec/ipFamilyPolicy"), "RequireDualStack");
}

TEST_F(ServiceStrategy, PortsAreValidated) {
  auto none = invalid(post_yaml(kServices, "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  selector: {app: web}\n"));
  EXPECT_EQ(none, std::vector<std::string>{"spec.ports: Required value"});
  auto bad = invalid(post_yaml(kServices, service("x", "", "  - {name: a, port: 0}\n  - {name: a, port: 70000, protocol: ICMP}\n  - {port: 81, targetPort: bad_name}\n")));
  EXPECT_TRUE(any_contains(bad, "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"));
  EXPECT_TRUE(any_contains(bad, "spec.ports[1].name: Duplicate value: \"a\""));
  EXPECT_TRUE(any_contains(bad, "spec.ports[1].port: Invalid value: 70000"));
  EXPECT_TRUE(any_contains(bad, "spec.ports[1].protocol: Unsupported value: \"ICMP\""));
  EXPECT_TRUE(any_contains(bad, "spec.ports[2].name: Required value"));
  EXPECT_TRUE(any_contains(bad, "spec.ports[2].targetPort: Invalid value: \"bad_name\": must contain only alpha-numeric characters"));
  auto duplicate = invalid(post_yaml(kServices, service("x", "", "  - {name: a, port: 80}\n  - {name: b, port: 80}\n")));
  EXPECT_TRUE(any_contains(duplicate, "spec.ports[1]: Duplicate value"));
  // One port may go without a name.
  create_yaml(kServices, service("single", "", "  - {port: 80}\n"));
}

TEST_F(ServiceStrategy, UpdatesKeepTheAddressAndMayNotChangeIt) {
  json::value created = create_yaml(kServices, service("web"));
  std::string ip = str(created, "/spec/clusterIP");
  // A PUT that leaves the allocated values out keeps them (as kubectl replace sends it).
  std::string replaced = service("web", "", "  - {name: http, port: 8080}\n");
  replaced.insert(replaced.find("  name: web\n") + 12, fmt::format("  resourceVersion: \"{}\"\n", rv_of(created)));
  json::value put = expect(200, put_yaml(path_of("web"), replaced));
  EXPECT_EQ(str(put, "/spec/clusterIP"), ip);
  EXPECT_EQ(num(put, "/spec/ports/0/port"), 8080);
  auto errs = invalid(api().patch(path_of("web"), json::object{{"spec", json::object{{"clusterIP", "10.96.0.99"}, {"clusterIPs", nullptr}}}}));
  EXPECT_TRUE(any_contains(errs, "spec.clusterIPs[0]: Invalid value: \"10.96.0.99\": may not change once set")) << errs.front();
}

TEST_F(ServiceStrategy, NodePortsAreAllocatedInRangeAndKept) {
  json::value created = create_yaml(kServices, service("np", "  type: NodePort\n"));
  std::int64_t first = num(created, "/spec/ports/0/nodePort").value_or(0);
  std::int64_t second = num(created, "/spec/ports/1/nodePort").value_or(0);
  EXPECT_GE(first, ServiceAllocator::kFirstNodePort);
  EXPECT_LE(second, ServiceAllocator::kLastNodePort);
  EXPECT_NE(first, second);
  EXPECT_EQ(str(created, "/spec/externalTrafficPolicy"), "Cluster");
  // A merge patch replaces the ports list without node ports: the named ones keep theirs.
  json::value patched = expect(200, api().patch(path_of("np"), json::object{{"spec", json::object{{"ports", json::array{
                                                                                   json::object{{"name", "http"}, {"port", 80}}}}}}}));
  EXPECT_EQ(num(patched, "/spec/ports/0/nodePort"), first);
  auto taken = invalid(post_yaml(kServices, service("np2", "  type: NodePort\n", fmt::format("  - {{port: 80, nodePort: {}}}\n", first))));
  EXPECT_TRUE(any_contains(taken, "provided port is already allocated"));
  auto clusterip = invalid(post_yaml(kServices, service("np3", "", "  - {port: 80, nodePort: 30500}\n")));
  EXPECT_EQ(clusterip, std::vector<std::string>{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"});
}

TEST_F(ServiceStrategy, DryRunAllocatesNothingDurable) {
  json::value dry = expect(201, api().request("POST", std::string(kServices) + "?dryRun=All",
                                              service("dry", "  clusterIP: 10.96.0.77\n"), "application/yaml"));
  EXPECT_EQ(str(dry, "/spec/clusterIP"), "10.96.0.77");
  EXPECT_EQ(api().get(path_of("dry")).status, 404);
  EXPECT_EQ(str(create_yaml(kServices, service("real", "  clusterIP: 10.96.0.77\n")), "/spec/clusterIP"), "10.96.0.77");
}

TEST_F(ServiceStrategy, ServerSideApplyMatchesPortsWithTheirDefaultProtocol) {
  json::value created = expect(201, apply_yaml(path_of("web"), service("web")));
  json::value again = expect(200, apply_yaml(path_of("web"), service("web")));
  EXPECT_EQ(rv_of(again), rv_of(created));
  EXPECT_EQ(str(again, "/spec/clusterIP"), str(created, "/spec/clusterIP"));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

// deploy/rbac: the controller's ClusterRole and Role allow every API request the
// controller makes, and every rule in them is used by some request (least privilege).
//
// The embedded API server runs in-process with deploy/crds and a request observer; the
// controller runs against it (leader election over two shard Leases, as the Deployment
// runs it) and is driven by a separate setup client (its own User-Agent) through
// admission, preemption (eviction, Job suspended, its startTime cleared, its template
// restored), finishing, re-admission, a Job that stops matching its Workload (the
// Workload deleted), Events created and repeated, a shard Lease another writer left
// behind (read by name) and a clean stop (member Lease deleted); its webhook server fills
// the certificate Secret deploy/ ships and sets the caBundle of the webhook
// configurations. Each request of the controller's User-Agent is checked against the
// rules parsed from deploy/rbac/*.yaml: ClusterRole rules anywhere, Role rules in the
// Role's namespace only, rules with resourceNames for those names only. A rule of a
// group the server does not serve (admissionregistration.k8s.io on a server without
// it, jobset.x-k8s.io without the JobSet CRD) cannot be used and is said, not failed. The controller
// talks through the fault proxy (tests/faults), which loses the answers of its first Job
// patch and its first Workload status patch: the reads it then makes to settle them are
// requests the roles must allow too.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "actors/controller.hpp"
#include "config/kueue_configuration.hpp"
#include "core/model/time.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "kube/webhook/webhook_configurations.hpp"
#include "tests/faults/fault_proxy.hpp"
#include "tests/support/source_tree.hpp"

namespace kueuepp {
namespace {

using test_support::source_dir;
using test_support::read_file;

namespace fs = std::filesystem;
namespace kc = kube::client;
using namespace std::chrono_literals;

constexpr const char* kControllerAgent = "kueuepp-rbac-coverage-controller";
constexpr const char* kSetupAgent = "kueuepp-rbac-coverage-setup";
constexpr const char* kTeam = "team";

json::value yaml(std::string_view text) {
  auto doc = json::parse_yaml(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : json::value();
}

// -- the rules ------------------------------------------------------------------------------

/// One (group, resource[/subresource], verb) a rule grants, and where.
struct Grant {
  std::string role;       ///< "ClusterRole/kueuepp", "Role/kueuepp-system/..."
  std::string ns;         ///< "" for a ClusterRole: every namespace and cluster scope
  std::string group;
  std::string resource;   ///< `workloads` or `workloads/status`
  std::string verb;
  std::set<std::string> names;  ///< resourceNames: only these objects (empty: any)
  bool operator<(const Grant& o) const {
    return std::tie(role, group, resource, verb) < std::tie(o.role, o.group, o.resource, o.verb);
  }
  std::string str() const { return fmt::format("{} {}/{} {}", role, group.empty() ? "core" : group, resource, verb); }
};

std::vector<std::string> strings(const json::value* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& s : v->as_array()) out.emplace_back(s.get_string());
  return out;
}

/// Every grant of the ClusterRoles and Roles of deploy/rbac (wildcards are refused:
/// least privilege names what it grants).
std::vector<Grant> load_grants() {
  std::vector<Grant> out;
  for (const auto& entry : fs::directory_iterator(source_dir() + "/deploy/rbac")) {
    auto docs = json::parse_yaml_documents(read_file(entry.path()));
    EXPECT_TRUE(docs) << entry.path();
    if (!docs) continue;
    for (const auto& doc : *docs) {
      if (doc.is_null()) continue;
      std::string kind(json::get_string(doc, "kind"));
      if (kind != "ClusterRole" && kind != "Role") continue;
      const json::value& meta = *json::find(doc, "metadata");
      std::string ns = kind == "Role" ? std::string(json::get_string(meta, "namespace")) : "";
      std::string role = kind + "/" + (ns.empty() ? "" : ns + "/") + std::string(json::get_string(meta, "name"));
      const json::value* rules = json::find(doc, "rules");
      if (rules == nullptr || !rules->is_array()) continue;
      for (const auto& rule : rules->as_array()) {
        EXPECT_EQ(json::find(rule, "nonResourceURLs"), nullptr) << role << ": nonResourceURLs are not used";
        std::vector<std::string> names = strings(json::find(rule, "resourceNames"));
        for (const auto& g : strings(json::find(rule, "apiGroups"))) {
          for (const auto& r : strings(json::find(rule, "resources"))) {
            for (const auto& v : strings(json::find(rule, "verbs"))) {
              EXPECT_TRUE(g != "*" && r != "*" && v != "*") << role << " grants a wildcard";
              // A create names no object in its URL: resourceNames cannot restrict it.
              EXPECT_TRUE(names.empty() || v != "create") << role << ": resourceNames on create never match";
              out.push_back(Grant{role, ns, g, r, v, {names.begin(), names.end()}});
            }
          }
        }
      }
    }
  }
  return out;
}

// -- what the controller asks ---------------------------------------------------------------

struct Request {
  std::string verb, group, resource, ns, name;
  int status = 0;
  std::string resource_path() const { return resource; }
  std::string str() const {
    return fmt::format("{} {}/{}{}{} ({})", verb, group.empty() ? "core" : group, resource,
                       ns.empty() ? "" : " in " + ns, name.empty() ? "" : " " + name, status);
  }
};

class Recorder {
 public:
  void record(const kube::server::ApiRequestRecord& r) {
    std::lock_guard lock(mutex_);
    if (r.user_agent.rfind(kControllerAgent, 0) != 0) return;
    std::string resource = r.resource + (r.subresource.empty() ? "" : "/" + r.subresource);
    requests_.push_back(Request{r.verb, r.group, resource, r.ns, r.name, r.status});
  }
  std::vector<Request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
};

// -- the cluster ------------------------------------------------------------------------------

class DeployRbac : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::server::ApiServerOptions options;
    options.listen = "127.0.0.1:0";
    options.crd_paths = {source_dir() + "/deploy/crds"};
    options.fsync = false;
    options.request_observer = [this](const kube::server::ApiRequestRecord& r) { recorder_.record(r); };
    auto server = kube::server::ApiServer::start(options);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    auto plan = faults::parse_fault_plan(R"({"seed": 1, "rules": [
        {"match": {"methods": ["PATCH"], "path": "^/apis/batch/v1/namespaces/[^/]+/jobs/[^/]+$"},
         "fault": "drop_answer", "first": 1},
        {"match": {"methods": ["PATCH"], "path": "/workloads/[^/]+/status$"}, "fault": "drop_answer", "first": 1}]})");
    ASSERT_TRUE(plan) << plan.error().message;
    faults::FaultProxyOptions proxy_options;
    proxy_options.upstream_port = server_->port();
    proxy_options.plan = std::move(*plan);
    proxy_options.log_path = "/dev/null";
    auto proxy = faults::FaultProxy::start(std::move(proxy_options));
    ASSERT_TRUE(proxy) << proxy.error().message;
    proxy_ = std::move(*proxy);
    setup_client_ = make_client(kSetupAgent, server_->url());
    controller_client_ = make_client(kControllerAgent, proxy_->url());
    api_ = std::make_unique<kc::BlockingClient>(*setup_client_);
    auto cfg = config::decode_configuration(yaml(read_file(source_dir() + "/deploy/config/config.yaml")));
    ASSERT_TRUE(cfg) << cfg.error().message;
    config_ = *cfg;
  }

  void TearDown() override {
    if (controller_) controller_->stop();
    for (auto* c : {setup_client_.get(), controller_client_.get()}) {
      if (c != nullptr) c->shutdown();
    }
    if (proxy_) proxy_->stop();
    if (server_) server_->stop();
  }

  std::unique_ptr<kc::Client> make_client(const std::string& agent, const std::string& url) {
    kc::ClientConfig config;
    config.server = url;
    kc::ClientOptions options;
    options.user_agent = agent;
    options.qps = -1;
    auto client = kc::Client::create(config, options);
    EXPECT_TRUE(client) << client.error().message;
    return client ? std::move(*client) : nullptr;
  }

  /// The controller as the Deployment runs it: leader election over shard Leases in its
  /// namespace (short durations, so that renewals happen during the test).
  void start_controller() {
    actors::ControllerOptions o;
    o.engine = config_.engine;
    o.sharding.enabled = config_.leader_elect;
    o.sharding.shards = 2;
    o.sharding.lease_namespace = config_.ns;
    o.sharding.lease_prefix = config_.leader_election_id;
    o.sharding.identity = "rbac-coverage_0123abcd";
    o.sharding.lease_duration = 1500ms;
    o.sharding.renew_deadline = 1000ms;
    o.sharding.retry_period = 200ms;
    o.status_interval = 100ms;
    // The kinds of job deploy/config enables (JobSets: watched, their CRD absent here).
    o.jobs.frameworks = config_.frameworks;
    o.webhooks.policy.frameworks = config_.frameworks;
    // Its webhook server, as the Deployment runs it (--webhook-listen), on a free port.
    o.webhooks.enabled = true;
    o.webhooks.listen = "127.0.0.1:0";
    o.webhooks.ns = config_.ns;
    o.webhooks.cert_check_interval = 500ms;
    auto controller = actors::Controller::start(o, *controller_client_);
    ASSERT_TRUE(controller) << controller.error().message;
    controller_ = std::move(*controller);
  }

  kc::Object create(const kc::ResourceDescriptor& resource, std::string_view text) {
    auto r = api_->create(resource, kc::Object(yaml(text)));
    EXPECT_TRUE(r) << (r ? "" : r.error().message) << "\n" << text;
    return r ? std::move(*r) : kc::Object();
  }

  void patch(const kc::ResourceDescriptor& resource, std::string_view ns, std::string_view name, std::string_view body,
             bool status = false) {
    kc::PatchOptions options;
    options.status_subresource = status;
    auto r = api_->patch(resource, ns, name, kc::PatchType::Merge, yaml(body), options);
    EXPECT_TRUE(r) << (r ? "" : r.error().message) << "\n" << body;
  }

  std::optional<kc::Object> get(const kc::ResourceDescriptor& resource, std::string_view ns, std::string_view name) {
    auto r = api_->get(resource, ns, name);
    if (!r) return std::nullopt;
    return std::move(*r);
  }

  /// The Workload owned by Job `job` (by owner reference), if any.
  std::optional<kc::Object> workload_of(std::string_view job) {
    auto list = api_->list(kc::resources::kWorkload, kTeam);
    if (!list) return std::nullopt;
    for (auto& wl : list->items) {
      for (const auto& ref : wl.owner_references()) {
        if (ref.kind == "Job" && ref.name == job && !wl.being_deleted()) return std::move(wl);
      }
    }
    return std::nullopt;
  }

  /// Polls until `condition` holds (the test fails after the timeout, saying `what`).
  void wait_for(const std::string& what, const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = 30s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) {
        FAIL() << "timed out waiting for " << what;
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  bool admitted(std::string_view job) {
    auto wl = workload_of(job);
    return wl && wl->condition_true("Admitted");
  }
  bool suspended(std::string_view job) {
    auto j = get(kc::resources::kJob, kTeam, job);
    return j && j->bool_at({"spec", "suspend"}).value_or(false);
  }

  kc::Object job(std::string_view name, std::string_view priority_class) {
    return create(kc::resources::kJob, fmt::format(R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: {}
  namespace: {}
  labels:
    kueue.x-k8s.io/queue-name: lq
    kueue.x-k8s.io/priority-class: {}
spec:
  parallelism: 1
  completions: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sleep", "60"]
        resources:
          requests:
            cpu: "2"
)",
                                                   name, kTeam, priority_class));
  }

  Recorder recorder_;
  std::unique_ptr<kube::server::ApiServer> server_;
  std::unique_ptr<faults::FaultProxy> proxy_;
  std::unique_ptr<kc::Client> setup_client_;
  std::unique_ptr<kc::Client> controller_client_;
  std::unique_ptr<kc::BlockingClient> api_;
  std::unique_ptr<actors::Controller> controller_;
  config::KueueConfiguration config_;
};

std::string now_rfc3339() {
  return core::format_rfc3339(std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()));
}

TEST_F(DeployRbac, EveryRequestOfTheControllerIsAllowedAndEveryRuleIsUsed) {
  std::vector<Grant> grants = load_grants();
  ASSERT_FALSE(grants.empty());
  std::string controller_ns = config_.ns;
  for (const auto& g : grants) {
    if (!g.ns.empty()) {
      EXPECT_EQ(g.ns, controller_ns) << g.str() << ": a Role outside the controller's namespace";
    }
  }

  // -- the cluster's queueing objects ---------------------------------------------------
  for (std::string ns : {controller_ns, std::string(kTeam)}) {
    create(kc::resources::kNamespace, "{apiVersion: v1, kind: Namespace, metadata: {name: " + ns + "}}");
  }
  create(kc::resources::kResourceFlavor,
         "{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: default}}");
  create(kc::resources::kClusterQueue, R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 2}]
)");
  create(kc::resources::kLocalQueue, fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: {}}}
spec: {{clusterQueue: cq}}
)",
                                                 kTeam));
  for (auto [name, value] : {std::pair{"low", 10}, std::pair{"high", 1000}}) {
    create(kc::resources::kWorkloadPriorityClass,
           fmt::format("{{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, "
                       "metadata: {{name: {}}}, value: {}}}",
                       name, value));
  }

  // A shard Lease left behind by another writer (no kueuepp role label, so the
  // controller's labelled list does not show it): its create answers AlreadyExists and
  // the controller reads it by name.
  create(kc::resources::kLease, fmt::format(R"(
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {{name: {}-shard-1, namespace: {}}}
spec: {{}}
)",
                                            config_.leader_election_id, controller_ns));

  // The webhook certificates' Secret, as deploy/ ships it (empty).
  create(kube::webhook::resources::kSecret, read_file(source_dir() + "/deploy/manager/webhook_secret.yaml"));
  auto group_served = [&](const std::string& group) {
    kc::HttpRequest discovery;
    discovery.target = "/apis/" + group;
    auto answer = api_->raw(std::move(discovery));
    return answer && answer->status == 200;
  };
  const bool admissionregistration_served = group_served("admissionregistration.k8s.io");

  // The webhook configurations as deploy/ ships them (kubectl apply -k creates them).
  if (admissionregistration_served) {
    create(kube::webhook::resources::kMutatingWebhookConfiguration,
           read_file(source_dir() + "/deploy/webhook/mutating_webhook_configuration.yaml"));
    create(kube::webhook::resources::kValidatingWebhookConfiguration,
           read_file(source_dir() + "/deploy/webhook/validating_webhook_configuration.yaml"));
  }

  start_controller();
  ASSERT_NE(controller_, nullptr);
  if (admissionregistration_served) {
    // The webhook Service as deploy/ ships it; its named targetPort is resolved through a
    // pod in a cluster, here to the port this controller listens on.
    const std::string url = controller_->webhook_url();
    const std::string port = url.substr(url.rfind(':') + 1);
    json::value service = yaml(read_file(source_dir() + "/deploy/manager/webhook_service.yaml"));
    service.as_object()["spec"].as_object()["ports"].as_array()[0].as_object()["targetPort"] = std::stoi(port);
    static const kc::ResourceDescriptor kService{"", "v1", "services", "Service", true};
    auto created = api_->create(kService, kc::Object(std::move(service)));
    ASSERT_TRUE(created) << created.error().message;
  }
  wait_for("the controller's watches to sync", [&] { return controller_->synced(); });
  wait_for("the webhook server to serve the Secret's certificate",
           [&] { return controller_->not_ready_reason().empty(); });

  // -- admission: the Job is suspended, gets a Workload, is admitted and started ----------
  job("low", "low");
  wait_for("Job low admitted and started", [&] { return admitted("low") && !suspended("low"); });
  std::string first_low_workload(workload_of("low")->name());
  std::string first_low_workload_uid(workload_of("low")->uid());
  // The Job controller would report the running pod.
  patch(kc::resources::kJob, kTeam, "low", fmt::format("{{status: {{startTime: '{}', active: 1}}}}", now_rfc3339()),
        true);

  // -- preemption: low is evicted, stopped (suspend, startTime cleared, template restored) --
  job("high", "high");
  wait_for("Job low suspended after its preemption", [&] { return suspended("low"); });
  wait_for("Job low's startTime cleared", [&] {
    auto j = get(kc::resources::kJob, kTeam, "low");
    return j && j->find({"status", "startTime"}) == nullptr;
  });
  patch(kc::resources::kJob, kTeam, "low", "{status: {active: 0}}", true);  // its pod is gone
  wait_for("Job high admitted and started", [&] { return admitted("high") && !suspended("high"); });

  // -- finishing: high completes, its Workload finishes and loses its finalizer ------------
  patch(kc::resources::kJob, kTeam, "high",
        fmt::format("{{status: {{active: 0, succeeded: 1, startTime: '{0}', completionTime: '{0}', conditions: "
                    "[{{type: SuccessCriteriaMet, status: 'True'}}, {{type: Complete, status: 'True'}}]}}}}",
                    now_rfc3339()),
        true);
  wait_for("Job high's Workload finished without its finalizer", [&] {
    auto wl = workload_of("high");
    return wl && wl->condition_true("Finished") && wl->finalizers().empty();
  });

  // -- re-admission: low starts again (a repeated Event is patched, not created again) -----
  wait_for("Job low admitted and started again", [&] { return admitted("low") && !suspended("low"); });

  // -- a Job that no longer matches its Workload: the Workload is deleted, a new one made --
  // (A new maximum execution time: Kueue's Workload spec differs from the running Job's.
  // The Job webhook refuses that change while the Job runs, as Kueue's does: it is made
  // with the validating webhooks out of the way, as by an administrator.)
  if (admissionregistration_served) {
    auto removed = api_->remove(kube::webhook::resources::kValidatingWebhookConfiguration, "",
                                kube::webhook::kValidatingConfigurationName);
    ASSERT_TRUE(removed) << removed.error().message;
    wait_for("the validating webhooks gone", [&] {
      auto p = api_->patch(kc::resources::kJob, kTeam, "low", kc::PatchType::Merge,
                           json::value(json::object{{"metadata", json::object{{"labels", json::object{
                                                          {"kueue.x-k8s.io/max-exec-time-seconds", "600"}}}}}}));
      return p.has_value();
    });
  } else {
    patch(kc::resources::kJob, kTeam, "low", "{metadata: {labels: {kueue.x-k8s.io/max-exec-time-seconds: '600'}}}");
  }
  wait_for("Job low's Workload deleted", [&] {
    auto wl = get(kc::resources::kWorkload, kTeam, first_low_workload);
    return !wl || wl->uid() != first_low_workload_uid;
  });
  // The deletion's finalizer removal may answer after the DELETED event: the job actor
  // must not take the answer for a live Workload (it once did, and the Job waited).
  wait_for("Job low gets a new Workload", [&] {
    auto wl = workload_of("low");
    return wl && wl->uid() != first_low_workload_uid;
  });

  // Leases renewed at least once, then a clean stop (the member Lease is deleted).
  std::this_thread::sleep_for(1500ms);
  controller_->stop();
  controller_.reset();

  // -- the check, both ways --------------------------------------------------------------
  std::vector<Request> requests = recorder_.requests();
  ASSERT_FALSE(requests.empty()) << "no request of the controller was observed";
  std::map<std::string, int> counts;
  std::set<Grant> used;
  std::set<std::string> denied;
  for (const auto& r : requests) {
    ++counts[r.verb + " " + (r.group.empty() ? "core" : r.group) + "/" + r.resource];
    bool allowed = false;
    for (const auto& g : grants) {
      bool in_scope = g.ns.empty() || g.ns == r.ns;
      bool named = g.names.empty() || g.names.count(r.name) != 0;
      if (in_scope && named && g.group == r.group && g.resource == r.resource && g.verb == r.verb) {
        allowed = true;
        used.insert(g);
      }
    }
    if (!allowed) {
      denied.insert(fmt::format("{} - add to {}: apiGroups [\"{}\"], resources [{}], verbs [{}]", r.str(),
                                r.group == "coordination.k8s.io" || r.resource == "secrets"
                                    ? "the Role (deploy/rbac/role.yaml)"
                                                                 : "the ClusterRole (deploy/rbac/cluster_role.yaml)",
                                r.group, r.resource, r.verb));
    }
  }
  std::string summary;
  for (const auto& [what, n] : counts) summary += fmt::format("  {:5} {}\n", n, what);
  std::cout << "the controller's requests:\n" << summary;
  for (const auto& d : denied) ADD_FAILURE() << "not allowed by deploy/rbac: " << d;
  for (const auto& g : grants) {
    if (used.count(g)) continue;
    // A kind of job whose CRD is not installed (jobset.x-k8s.io here) is watched, and
    // its list fails with 404: its other rules cannot be used on this server.
    if (!g.group.empty() && !group_served(g.group)) {
      std::cout << "note: " << g.str() << " not exercised: the server does not serve " << g.group << "\n";
      continue;
    }
    ADD_FAILURE() << "unused (remove it from deploy/rbac): " << g.str();
  }
  EXPECT_EQ(proxy_->stats().faults_total(), 2u) << "both lost answers were settled by reads: " << proxy_->stats_json();
}

}  // namespace
}  // namespace kueuepp

// Storage semantics of create, get, list, update and delete for a built-in cluster-scoped
// kind (Namespace), a built-in namespaced kind with a status subresource (batch/v1 Job)
// and Kueue custom resources: server-set metadata (uid, resourceVersion,
// creationTimestamp, generation), generateName, optimistic concurrency, AlreadyExists,
// NotFound and dryRun.

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";

bool is_rfc3339(const std::string& s) {
  static const std::regex re(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)");
  return std::regex_match(s, re);
}

/// The resourceVersion a list reports (the store's latest write).
std::uint64_t list_rv(ApiClient& api, std::string_view collection) {
  HttpReply r = api.get(collection);
  EXPECT_EQ(r.status, 200) << r.body;
  return std::stoull(str(body_json(r), "/metadata/resourceVersion"));
}

class ApiServerStorage : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
};

TEST_F(ApiServerStorage, NamespaceLifecycle) {
  json::value ns = create("/api/v1/namespaces", name_space("alpha", {{"tier", "gold"}}));
  EXPECT_EQ(str(ns, "/kind"), "Namespace");
  EXPECT_FALSE(str(ns, "/metadata/uid").empty());
  EXPECT_GT(rv_of(ns), 0u);
  EXPECT_TRUE(is_rfc3339(str(ns, "/metadata/creationTimestamp"))) << str(ns, "/metadata/creationTimestamp");
  EXPECT_EQ(str(ns, "/status/phase"), "Active");
  EXPECT_EQ(json::dump(*at(ns, "/spec/finalizers")), R"(["kubernetes"])");

  json::value got = get_ok("/api/v1/namespaces/alpha");
  EXPECT_EQ(str(got, "/metadata/uid"), str(ns, "/metadata/uid"));
  EXPECT_EQ(rv_of(got), rv_of(ns));
  EXPECT_EQ(str(got, "/metadata/labels/tier"), "gold");

  std::vector<std::string> names = item_names(get_ok("/api/v1/namespaces"));
  for (const char* expected : {"alpha", "default", "kube-system", "team"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }

  json::value changed = got;
  changed.as_object()["metadata"].as_object()["labels"].as_object()["tier"] = "silver";
  json::value updated = expect(200, api().put("/api/v1/namespaces/alpha", changed));
  EXPECT_EQ(str(updated, "/metadata/labels/tier"), "silver");
  EXPECT_EQ(str(updated, "/metadata/uid"), str(ns, "/metadata/uid"));
  EXPECT_GT(rv_of(updated), rv_of(ns));

  json::value deleting = expect(200, api().del("/api/v1/namespaces/alpha"));
  EXPECT_EQ(str(deleting, "/kind"), "Namespace");
  EXPECT_EQ(str(deleting, "/status/phase"), "Terminating");
  EXPECT_FALSE(str(deleting, "/metadata/deletionTimestamp").empty());
  EXPECT_TRUE(wait_gone("/api/v1/namespaces/alpha"));
}

TEST_F(ApiServerStorage, JobCreateGetListUpdateDelete) {
  json::value created = create(kJobs, job("j1"));
  EXPECT_EQ(str(created, "/metadata/namespace"), "team");
  EXPECT_FALSE(str(created, "/metadata/uid").empty());
  EXPECT_EQ(num(created, "/metadata/generation"), 1);
  EXPECT_TRUE(is_rfc3339(str(created, "/metadata/creationTimestamp")));
  // kube-apiserver's defaults.
  EXPECT_EQ(num(created, "/spec/parallelism"), 1);
  EXPECT_EQ(num(created, "/spec/completions"), 1);
  EXPECT_EQ(num(created, "/spec/backoffLimit"), 6);
  EXPECT_EQ(str(created, "/spec/completionMode"), "NonIndexed");
  EXPECT_FALSE(str(created, "/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid").empty());

  json::value got = get_ok(std::string(kJobs) + "/j1");
  EXPECT_EQ(json::dump(got), json::dump(created));

  json::value list = get_ok(kJobs);
  EXPECT_EQ(str(list, "/kind"), "JobList");
  EXPECT_EQ(item_names(list), std::vector<std::string>{"j1"});
  EXPECT_GE(std::stoull(str(list, "/metadata/resourceVersion")), rv_of(created));

  // A spec change bumps generation.
  json::value spec_change = got;
  spec_change.as_object()["spec"].as_object()["parallelism"] = 3;
  json::value v2 = expect(200, api().put(std::string(kJobs) + "/j1", spec_change));
  EXPECT_EQ(num(v2, "/spec/parallelism"), 3);
  EXPECT_EQ(num(v2, "/metadata/generation"), 2);
  EXPECT_GT(rv_of(v2), rv_of(created));
  EXPECT_EQ(str(v2, "/metadata/uid"), str(created, "/metadata/uid"));
  EXPECT_EQ(str(v2, "/metadata/creationTimestamp"), str(created, "/metadata/creationTimestamp"));

  // A metadata-only change does not.
  json::value label_change = v2;
  label_change.as_object()["metadata"].as_object()["labels"].as_object()["tier"] = "b";
  json::value v3 = expect(200, api().put(std::string(kJobs) + "/j1", label_change));
  EXPECT_EQ(num(v3, "/metadata/generation"), 2);
  EXPECT_EQ(str(v3, "/metadata/labels/tier"), "b");
  EXPECT_GT(rv_of(v3), rv_of(v2));

  // An identical update writes nothing.
  json::value v4 = expect(200, api().put(std::string(kJobs) + "/j1", v3));
  EXPECT_EQ(rv_of(v4), rv_of(v3));

  json::value status = expect(200, api().del(std::string(kJobs) + "/j1?propagationPolicy=Background"));
  EXPECT_EQ(str(status, "/kind"), "Status");
  EXPECT_EQ(str(status, "/status"), "Success");
  EXPECT_EQ(str(status, "/details/name"), "j1");
  EXPECT_EQ(str(status, "/details/group"), "batch");
  EXPECT_EQ(str(status, "/details/kind"), "jobs");
  EXPECT_EQ(str(status, "/details/uid"), str(created, "/metadata/uid"));
  EXPECT_EQ(api().get(std::string(kJobs) + "/j1").status, 404);
  EXPECT_TRUE(item_names(get_ok(kJobs)).empty());
}

TEST_F(ApiServerStorage, ResourceVersionIsClusterWideAndIncreasing) {
  std::uint64_t last = list_rv(api(), "/api/v1/namespaces");
  std::set<std::string> uids;
  for (int i = 0; i < 5; ++i) {
    std::string n = std::to_string(i);
    json::value ns = create("/api/v1/namespaces", name_space("ns-" + n));
    EXPECT_GT(rv_of(ns), last);
    last = rv_of(ns);
    json::value j = create(kJobs, job("job-" + n));
    EXPECT_GT(rv_of(j), last);
    last = rv_of(j);
    json::value cm = create("/api/v1/namespaces/team/configmaps",
                            json::object{{"metadata", json::object{{"name", "cm-" + n}}}, {"data", json::object{{"k", n}}}});
    EXPECT_GT(rv_of(cm), last);
    last = rv_of(cm);
    uids.insert(str(ns, "/metadata/uid"));
    uids.insert(str(j, "/metadata/uid"));
    uids.insert(str(cm, "/metadata/uid"));
  }
  EXPECT_EQ(uids.size(), 15u);  // every object its own uid
  // Every collection's list reports the cluster-wide latest version.
  EXPECT_EQ(list_rv(api(), "/api/v1/namespaces"), last);
  EXPECT_EQ(list_rv(api(), kJobs), last);
  // A deletion takes a version too.
  ASSERT_EQ(api().del("/api/v1/namespaces/team/configmaps/cm-0").status, 200);
  EXPECT_GT(list_rv(api(), "/api/v1/namespaces/team/configmaps"), last);
}

TEST_F(ApiServerStorage, GenerateNameMakesDistinctNames) {
  json::value body = job("");
  body.as_object()["metadata"].as_object().erase("name");
  body.as_object()["metadata"].as_object()["generateName"] = "batch-";
  std::set<std::string> names;
  for (int i = 0; i < 5; ++i) {
    json::value created = create(kJobs, body);
    std::string name = str(created, "/metadata/name");
    EXPECT_EQ(name.rfind("batch-", 0), 0u) << name;
    EXPECT_EQ(name.size(), std::string("batch-").size() + 5) << name;
    EXPECT_EQ(str(created, "/metadata/generateName"), "batch-");
    names.insert(name);
    EXPECT_EQ(api().get(std::string(kJobs) + "/" + name).status, 200);
  }
  EXPECT_EQ(names.size(), 5u);
  // Neither name nor generateName: 422 on metadata.name.
  body.as_object()["metadata"].as_object().erase("generateName");
  json::value status = expect(422, api().post(kJobs, body));
  EXPECT_EQ(cause_fields(status), std::vector<std::string>{"metadata.name"});
}

TEST_F(ApiServerStorage, StaleResourceVersionConflicts) {
  json::value v1 = create(kJobs, job("j1"));
  json::value first = v1;
  first.as_object()["metadata"].as_object()["labels"].as_object()["x"] = "1";
  json::value v2 = expect(200, api().put(std::string(kJobs) + "/j1", first));

  json::value stale = v1;  // still carries v1's resourceVersion
  stale.as_object()["metadata"].as_object()["labels"].as_object()["x"] = "2";
  json::value status = expect(409, api().put(std::string(kJobs) + "/j1", stale));
  EXPECT_EQ(str(status, "/reason"), "Conflict");
  EXPECT_EQ(num(status, "/code"), 409);
  EXPECT_EQ(str(status, "/details/name"), "j1");
  EXPECT_NE(str(status, "/message").find("the object has been modified"), std::string::npos);

  // A merge patch carrying the stale version is refused the same way.
  json::value patch = json::object{
      {"metadata", json::object{{"resourceVersion", std::to_string(rv_of(v1))}, {"labels", json::object{{"x", "3"}}}}}};
  EXPECT_EQ(api().patch(std::string(kJobs) + "/j1", patch).status, 409);
  // So is a delete with a stale precondition.
  json::value opts = json::object{{"kind", "DeleteOptions"},
                                  {"apiVersion", "v1"},
                                  {"preconditions", json::object{{"resourceVersion", std::to_string(rv_of(v1))}}}};
  EXPECT_EQ(api().del(std::string(kJobs) + "/j1", json::dump(opts)).status, 409);

  json::value now = get_ok(std::string(kJobs) + "/j1");
  EXPECT_EQ(rv_of(now), rv_of(v2));
  EXPECT_EQ(str(now, "/metadata/labels/x"), "1");
}

TEST_F(ApiServerStorage, ConcurrentReadModifyWritesLoseNoUpdate) {
  // Eight clients increment one counter with GET + PUT (carrying the resourceVersion read),
  // retrying on 409: every increment lands exactly once.
  const std::string cm = "/api/v1/namespaces/team/configmaps/counter";
  create("/api/v1/namespaces/team/configmaps",
         json::object{{"metadata", json::object{{"name", "counter"}}}, {"data", json::object{{"n", "0"}}}});
  std::uint64_t before = list_rv(api(), "/api/v1/namespaces");
  constexpr int kClients = 8;
  constexpr int kIncrements = 25;
  std::atomic<int> conflicts{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      ApiClient own(port());
      for (int i = 0; i < kIncrements; ++i) {
        while (true) {
          HttpReply got = own.get(cm);
          if (got.status != 200) {
            ++failures;
            return;
          }
          json::value obj = body_json(got);
          int n = std::stoi(str(obj, "/data/n"));
          obj.as_object()["data"].as_object()["n"] = std::to_string(n + 1);
          HttpReply put = own.put(cm, obj);
          if (put.status == 200) break;
          if (put.status != 409) {
            ++failures;
            return;
          }
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(str(get_ok(cm), "/data/n"), std::to_string(kClients * kIncrements));
  // One write per increment, none for the refused ones.
  EXPECT_EQ(list_rv(api(), "/api/v1/namespaces"), before + kClients * kIncrements);
}

TEST_F(ApiServerStorage, AlreadyExistsAndNotFound) {
  create(kJobs, job("j1"));
  json::value exists = expect(409, api().post(kJobs, job("j1")));
  EXPECT_EQ(str(exists, "/reason"), "AlreadyExists");
  EXPECT_EQ(str(exists, "/message"), "jobs.batch \"j1\" already exists");
  EXPECT_EQ(str(exists, "/details/kind"), "jobs");

  std::string nope = std::string(kJobs) + "/nope";
  for (const HttpReply& r : {api().get(nope), api().put(nope, job("nope")), api().patch(nope, json::object{}),
                             api().del(nope)}) {
    json::value status = expect(404, r);
    EXPECT_EQ(str(status, "/kind"), "Status");
    EXPECT_EQ(str(status, "/reason"), "NotFound");
    EXPECT_EQ(str(status, "/message"), "jobs.batch \"nope\" not found");
    EXPECT_EQ(str(status, "/details/name"), "nope");
  }
  // A write into a namespace that does not exist.
  json::value missing = expect(404, api().post("/apis/batch/v1/namespaces/nowhere/jobs", job("j1")));
  EXPECT_EQ(str(missing, "/message"), "namespaces \"nowhere\" not found");
}

TEST_F(ApiServerStorage, DryRunStoresNothing) {
  json::value j1 = create(kJobs, job("j1"));
  std::uint64_t before = list_rv(api(), "/api/v1/namespaces");

  json::value would = expect(201, api().post(std::string(kJobs) + "?dryRun=All", job("j2")));
  EXPECT_EQ(str(would, "/metadata/name"), "j2");
  EXPECT_EQ(api().get(std::string(kJobs) + "/j2").status, 404);

  json::value changed = j1;
  changed.as_object()["metadata"].as_object()["labels"].as_object()["dry"] = "run";
  json::value updated = expect(200, api().put(std::string(kJobs) + "/j1?dryRun=All", changed));
  EXPECT_EQ(str(updated, "/metadata/labels/dry"), "run");
  json::value patched = expect(200, api().patch(std::string(kJobs) + "/j1?dryRun=All",
                                                json::object{{"metadata", json::object{{"labels", json::object{{"p", "q"}}}}}}));
  EXPECT_EQ(str(patched, "/metadata/labels/p"), "q");
  EXPECT_EQ(api().del(std::string(kJobs) + "/j1?dryRun=All&propagationPolicy=Background").status, 200);
  EXPECT_EQ(api().del("/api/v1/namespaces/team?dryRun=All").status, 200);

  json::value now = get_ok(std::string(kJobs) + "/j1");
  EXPECT_EQ(json::dump(now), json::dump(j1));
  EXPECT_EQ(str(get_ok("/api/v1/namespaces/team"), "/status/phase"), "Active");
  EXPECT_EQ(list_rv(api(), "/api/v1/namespaces"), before);  // nothing written at all
  // dryRun values other than All are refused.
  EXPECT_EQ(api().post(std::string(kJobs) + "?dryRun=Some", job("j3")).status, 422);
  EXPECT_EQ(api().get(std::string(kJobs) + "/j3").status, 404);
}

class ApiServerCustomResourceStorage : public KueueServerTest {};

TEST_F(ApiServerCustomResourceStorage, ClusterScopedCreateGetListUpdateDelete) {
  std::string cqs = std::string(kKueue) + "/clusterqueues";
  json::value cq = create(cqs, cluster_queue("cq"));
  EXPECT_EQ(str(cq, "/apiVersion"), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(str(cq, "/kind"), "ClusterQueue");
  EXPECT_FALSE(str(cq, "/metadata/uid").empty());
  EXPECT_EQ(num(cq, "/metadata/generation"), 1);
  EXPECT_TRUE(is_rfc3339(str(cq, "/metadata/creationTimestamp")));
  EXPECT_EQ(str(cq, "/spec/queueingStrategy"), "BestEffortFIFO");  // schema default
  EXPECT_EQ(at(cq, "/metadata/namespace"), nullptr);

  json::value list = get_ok(cqs);
  EXPECT_EQ(str(list, "/kind"), "ClusterQueueList");
  EXPECT_EQ(item_names(list), std::vector<std::string>{"cq"});
  EXPECT_EQ(str(list, "/items/0/kind"), "ClusterQueue");  // custom resource list items carry their kind

  // Spec change: generation 2. Label change: still 2.
  json::value v2 = cq;
  v2.as_object()["spec"].as_object()["stopPolicy"] = "Hold";
  v2 = expect(200, api().put(cqs + "/cq", v2));
  EXPECT_EQ(num(v2, "/metadata/generation"), 2);
  json::value v3 = v2;
  v3.as_object()["metadata"].as_object()["labels"] = json::object{{"tier", "gold"}};
  v3 = expect(200, api().put(cqs + "/cq", v3));
  EXPECT_EQ(num(v3, "/metadata/generation"), 2);
  EXPECT_GT(rv_of(v3), rv_of(v2));

  // Custom resources need the resourceVersion on update.
  json::value unconditional = v3;
  unconditional.as_object()["metadata"].as_object().erase("resourceVersion");
  json::value invalid = expect(422, api().put(cqs + "/cq", unconditional));
  EXPECT_EQ(cause_fields(invalid), std::vector<std::string>{"metadata.resourceVersion"});

  json::value status = expect(200, api().del(cqs + "/cq"));
  EXPECT_EQ(str(status, "/status"), "Success");
  EXPECT_EQ(str(status, "/details/group"), "kueue.x-k8s.io");
  EXPECT_EQ(str(status, "/details/kind"), "clusterqueues");
  EXPECT_EQ(api().get(cqs + "/cq").status, 404);
}

TEST_F(ApiServerCustomResourceStorage, NamespacedCreateGetListUpdateDelete) {
  make_namespace("team");
  make_namespace("other");
  std::string wls = std::string(kKueue) + "/namespaces/team/workloads";
  json::value wl = create(wls, workload("wl"));
  EXPECT_EQ(str(wl, "/metadata/namespace"), "team");
  EXPECT_EQ(num(wl, "/metadata/generation"), 1);
  EXPECT_EQ(json::dump(*at(wl, "/spec/active")), "true");  // schema default
  create(std::string(kKueue) + "/namespaces/other/workloads", workload("wl"));

  EXPECT_EQ(item_names(get_ok(wls)), std::vector<std::string>{"wl"});
  EXPECT_EQ(item_names(get_ok(std::string(kKueue) + "/workloads")), (std::vector<std::string>{"wl", "wl"}));

  json::value changed = wl;
  changed.as_object()["spec"].as_object()["active"] = false;
  json::value v2 = expect(200, api().put(wls + "/wl", changed));
  EXPECT_EQ(json::dump(*at(v2, "/spec/active")), "false");
  EXPECT_EQ(num(v2, "/metadata/generation"), 2);
  EXPECT_EQ(str(v2, "/metadata/uid"), str(wl, "/metadata/uid"));

  EXPECT_EQ(str(expect(409, api().post(wls, workload("wl"))), "/reason"), "AlreadyExists");
  EXPECT_EQ(api().del(wls + "/wl").status, 200);
  EXPECT_EQ(api().get(wls + "/wl").status, 404);
  EXPECT_EQ(api().get(std::string(kKueue) + "/namespaces/other/workloads/wl").status, 200);
}

TEST_F(ApiServerCustomResourceStorage, DryRunStoresNothing) {
  std::string rfs = std::string(kKueue) + "/resourceflavors";
  std::uint64_t before = list_rv(api(), rfs);
  json::value would = expect(201, api().post(rfs + "?dryRun=All", resource_flavor("rf")));
  EXPECT_EQ(str(would, "/metadata/name"), "rf");
  EXPECT_EQ(api().get(rfs + "/rf").status, 404);
  EXPECT_EQ(list_rv(api(), rfs), before);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

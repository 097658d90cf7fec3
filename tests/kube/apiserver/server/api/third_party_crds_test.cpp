// The CRDs of the workload kinds Kueue integrates with (../shared/third-party-crds: JobSet,
// LeaderWorkerSet, the Kubeflow jobs, Ray, AppWrapper, ProvisioningRequest, ...) install
// as kubectl apply --server-side sends them, and Kueue's examples of those kinds are
// accepted (server-side dry run: their projects' webhooks are absent here). Their CEL
// rules are the ones a current Kubernetes accepts and not 1.28: JobSet's and the
// training runtimes' `has(t.metadata.namespace)` names a field by a CEL reserved word.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kube/json/yaml.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

std::string third_party_crds_dir() { return shared_dir() + "/third-party-crds"; }

// The YAML files of a directory, by name.
std::vector<fs::path> yaml_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<json::value> documents(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  EXPECT_TRUE(docs.has_value()) << file << ": " << (docs ? "" : docs.error().message);
  return docs ? std::move(*docs) : std::vector<json::value>{};
}

// Where the objects of one served version of a CRD live.
struct Resource {
  std::string plural;
  bool namespaced = true;
};

class ThirdPartyCrds : public ServerTest {
 protected:
  void SetUp() override {
    std::error_code ec;
    if (!fs::is_directory(third_party_crds_dir(), ec)) GTEST_SKIP() << "needs " << third_party_crds_dir();
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    install_all();
  }

  // Server-side apply of every CRD document, each answered 201 (created), as
  // `kubectl apply --server-side -f DIR` does it.
  void install_all() {
    for (const fs::path& file : yaml_files(third_party_crds_dir())) {
      for (const json::value& doc : documents(file)) {
        if (str(doc, "/kind") != "CustomResourceDefinition") continue;
        std::string name = str(doc, "/metadata/name");
        HttpReply reply = api().patch(std::string(kCrds) + "/" + name + "?fieldManager=kubectl", doc,
                                      "application/apply-patch+yaml");
        EXPECT_EQ(reply.status, 201) << file.filename() << ": " << reply.body.substr(0, 2000);
        if (reply.status != 201) continue;
        ++installed_;
        remember(doc);
      }
    }
  }

  void remember(const json::value& crd) {
    std::string group = str(crd, "/spec/group");
    Resource r{str(crd, "/spec/names/plural"), str(crd, "/spec/scope") == "Namespaced"};
    const json::value* versions = at(crd, "/spec/versions");
    if (versions == nullptr || !versions->is_array()) return;
    for (const json::value& v : versions->get_array()) {
      if (const json::value* served = at(v, "/served"); served != nullptr && served->is_bool() && served->get_bool()) {
        resources_[group + "/" + str(v, "/name") + "/" + str(crd, "/spec/names/kind")] = r;
      }
    }
  }

  // The collection an object of an installed CRD is created in, or "" for other kinds.
  std::string collection_of(const json::value& object) const {
    std::string api_version = str(object, "/apiVersion");
    auto it = resources_.find(api_version + "/" + str(object, "/kind"));
    if (it == resources_.end()) return "";
    std::string ns = str(object, "/metadata/namespace");
    if (ns.empty()) ns = "default";
    return "/apis/" + api_version + (it->second.namespaced ? "/namespaces/" + ns : "") + "/" + it->second.plural;
  }

  // Creates (dry run) every object of an installed CRD's kind in the examples of `dir`,
  // and the objects an AppWrapper wraps (spec.components[].template) of such a kind;
  // returns "file: kind: status message" for each refused one.
  std::vector<std::string> create_examples(const std::string& dir, int& created) {
    std::vector<std::string> refused;
    auto try_create = [&](const fs::path& file, const json::value& object) {
      std::string collection = collection_of(object);
      if (collection.empty()) return;
      HttpReply reply = api().post(collection + "?dryRun=All&fieldManager=kubectl-create", object);
      if (reply.status == 201) {
        ++created;
      } else {
        refused.push_back(file.filename().string() + ": " + str(object, "/kind") + ": " +
                          std::to_string(reply.status) + " " + str(body_json(reply), "/message"));
      }
    };
    for (const fs::path& file : yaml_files(dir)) {
      for (const json::value& doc : documents(file)) {
        try_create(file, doc);
        const json::value* components = at(doc, "/spec/components");
        if (str(doc, "/kind") != "AppWrapper" || components == nullptr || !components->is_array()) continue;
        for (const json::value& component : components->get_array()) {
          if (const json::value* wrapped = at(component, "/template"); wrapped != nullptr) try_create(file, *wrapped);
        }
      }
    }
    return refused;
  }

  int installed_ = 0;
  std::map<std::string, Resource> resources_;  ///< "group/version/Kind" -> where they live
};

TEST_F(ThirdPartyCrds, EveryCrdInstalls) {
  EXPECT_EQ(installed_, 16);
  // Each is served: its kind appears in discovery.
  json::value discovery = get_ok("/apis/jobset.x-k8s.io/v1alpha2");
  EXPECT_NE(json::dump(discovery).find("\"kind\":\"JobSet\""), std::string::npos);
  // Installing them again is a no-op apply (200), not a conflict.
  for (const fs::path& file : yaml_files(third_party_crds_dir())) {
    for (const json::value& doc : documents(file)) {
      HttpReply again = api().patch(std::string(kCrds) + "/" + str(doc, "/metadata/name") + "?fieldManager=kubectl",
                                    doc, "application/apply-patch+yaml");
      EXPECT_EQ(again.status, 200) << file.filename() << ": " << again.body.substr(0, 500);
    }
  }
}

TEST_F(ThirdPartyCrds, KueueExamplesOfTheirKindsAreAccepted) {
  int created = 0;
  std::vector<std::string> refused = create_examples(shared_dir() + "/kueue-examples/jobs", created);
  std::vector<std::string> wrapped = create_examples(shared_dir() + "/kueue-examples/appwrapper", created);
  refused.insert(refused.end(), wrapped.begin(), wrapped.end());
  // One is refused, as kube-apiserver refuses it: sample-xgboostjob.yaml asks for
  // `cpu: 0.5`, a JSON number, where the CRD's requests are int-or-string (kubectl
  // sends the YAML float as a number; "500m" or "0.5" would pass). kube-apiserver's
  // three errors per such field, as cloudnative-pg/cloudnative-pg#1572 quotes them.
  ASSERT_EQ(refused.size(), 1u) << ::testing::PrintToString(refused);
  EXPECT_EQ(refused[0].rfind("sample-xgboostjob.yaml: XGBoostJob: 422 XGBoostJob.kubeflow.org "
                             "\"xgboost-dist-iris-test-train\" is invalid: "
                             "[spec.xgbReplicaSpecs.Master.template.spec.containers[0].resources.requests.cpu: "
                             "Invalid value: \"number\": spec.xgbReplicaSpecs.Master.template.spec.containers[0]."
                             "resources.requests.cpu in body must be of type integer,string: \"number\", <nil>: "
                             "Invalid value: \"\": \"spec.xgbReplicaSpecs.Master.template.spec.containers[0]."
                             "resources.requests.cpu\" must validate at least one schema (anyOf), ",
                             0),
            0u)
      << refused[0];
  // The others: jobs/ has 14 examples of an installed kind (RayCluster, 2 RayJobs,
  // RayService, 4 JobSets, MPIJob and the 5 Kubeflow v1 jobs; the SparkApplication has
  // no CRD here); appwrapper/ has 3 AppWrappers and the LeaderWorkerSet and PyTorchJob
  // two of them wrap. 19 less the XGBoostJob.
  EXPECT_EQ(created, 18);
}

// JobSet v0.12's rule on volumeClaimPolicies, `self.templates.all(t,
// !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)`, is compiled and runs:
// a template with a namespace is refused with the CRD's message, one without is stored.
TEST_F(ThirdPartyCrds, JobSetVolumeClaimTemplatesMayNotSetANamespace) {
  auto jobset = [](std::string_view name, json::object claim_metadata) {
    json::object pod_spec{{"restartPolicy", "Never"},
                          {"containers", json::array{json::object{
                                             {"name", "main"},
                                             {"image", "busybox"},
                                             {"volumeMounts", json::array{json::object{{"name", "cache"}, {"mountPath", "/cache"}}}}}}}};
    json::object claim{{"metadata", std::move(claim_metadata)},
                       {"spec", json::object{{"accessModes", json::array{"ReadWriteOnce"}},
                                             {"resources", json::object{{"requests", json::object{{"storage", "1Gi"}}}}}}}};
    return json::value(json::object{
        {"apiVersion", "jobset.x-k8s.io/v1alpha2"},
        {"kind", "JobSet"},
        {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
        {"spec",
         json::object{{"replicatedJobs",
                       json::array{json::object{{"name", "workers"},
                                                {"replicas", 1},
                                                {"template", json::object{{"spec", json::object{{"template", json::object{{"spec", pod_spec}}}}}}}}}},
                      {"volumeClaimPolicies", json::array{json::object{{"templates", json::array{claim}}}}}}}});
  };
  constexpr std::string_view kJobSets = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets";

  json::value refused = expect(422, api().post(kJobSets, jobset("with-ns", json::object{{"name", "cache"}, {"namespace", "other"}})));
  EXPECT_EQ(cause_fields(refused), std::vector<std::string>{"spec.volumeClaimPolicies[0]"});
  EXPECT_NE(str(refused, "/message").find("namespace cannot be set for VolumeClaimPolicies templates"), std::string::npos)
      << str(refused, "/message");

  json::value stored = create(kJobSets, jobset("without-ns", json::object{{"name", "cache"}}));
  EXPECT_EQ(str(stored, "/metadata/name"), "without-ns");
  // An empty namespace passes the rule's second half.
  create(kJobSets, jobset("empty-ns", json::object{{"name", "cache"}, {"namespace", ""}}));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

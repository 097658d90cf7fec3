// PATCH: JSON merge patch (RFC 7386), JSON patch (RFC 6902, with kube-apiserver's 422
// for a failing `test`), and strategic merge patch on a Job's pod template (containers
// and env merged by name, tolerations replaced, maps merged) and on a Pod.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";
constexpr std::string_view kJob = "/apis/batch/v1/namespaces/team/jobs/j1";
constexpr std::string_view kMerge = "application/merge-patch+json";
constexpr std::string_view kJsonPatch = "application/json-patch+json";
constexpr std::string_view kStrategic = "application/strategic-merge-patch+json";

json::value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << text;
  return v ? std::move(*v) : json::value();
}

class ApiServerPatches : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
  json::value patch_ok(std::string_view target, std::string_view body, std::string_view type) {
    return expect(200, api().request("PATCH", target, body, type));
  }
};

TEST_F(ApiServerPatches, MergePatch) {
  json::value created = create(kJobs, job("j1", {{"app", "demo"}, {"tier", "a"}}));
  json::value p = patch_ok(kJob, R"({"metadata":{"labels":{"tier":null,"new":"x"},"annotations":{"note":"hi"}},"spec":{"parallelism":2}})",
                           kMerge);
  EXPECT_EQ(json::dump(*at(p, "/metadata/labels")), R"({"app":"demo","new":"x"})");
  EXPECT_EQ(str(p, "/metadata/annotations/note"), "hi");
  EXPECT_EQ(num(p, "/spec/parallelism"), 2);
  EXPECT_EQ(num(p, "/spec/completions"), 1);  // untouched siblings stay
  EXPECT_EQ(num(p, "/metadata/generation"), 2);
  EXPECT_GT(rv_of(p), rv_of(created));
  EXPECT_EQ(json::dump(get_ok(kJob)), json::dump(p));

  // A patch that changes nothing writes nothing.
  json::value same = patch_ok(kJob, R"({"spec":{"parallelism":2}})", kMerge);
  EXPECT_EQ(rv_of(same), rv_of(p));
  // A resourceVersion in the patch is a precondition.
  std::string current = std::to_string(rv_of(p));
  json::value guarded = patch_ok(kJob, R"({"metadata":{"resourceVersion":")" + current + R"("},"spec":{"parallelism":3}})", kMerge);
  EXPECT_EQ(num(guarded, "/spec/parallelism"), 3);
  EXPECT_EQ(api().request("PATCH", kJob, R"({"metadata":{"resourceVersion":")" + current + R"("},"spec":{"parallelism":4}})", kMerge).status,
            409);
  // Validation applies to the patched object.
  json::value invalid = expect(422, api().request("PATCH", kJob, R"({"spec":{"parallelism":-1}})", kMerge));
  std::vector<std::string> fields = cause_fields(invalid);
  // kube-apiserver validates a Job update's spec twice and lists the cause twice.
  EXPECT_FALSE(fields.empty());
  for (const auto& f : fields) EXPECT_EQ(f, "spec.parallelism");
  // Merge patches replace lists whole: a pod template change is refused on a Job.
  EXPECT_EQ(api().request("PATCH", kJob, R"({"spec":{"template":{"spec":{"containers":[{"name":"main","image":"x"}]}}}})", kMerge).status,
            422);
  // A patch body that is not an object.
  EXPECT_EQ(api().request("PATCH", kJob, R"([1])", kMerge).status, 400);
  EXPECT_EQ(num(get_ok(kJob), "/spec/parallelism"), 3);
}

// A write that changes nothing but managedFields stores nothing, whatever the verb; one
// that changes something is stored with a new resourceVersion.
TEST_F(ApiServerPatches, NoOpWritesStoreNothingWhateverTheVerb) {
  json::value created = create(kJobs, job("j1"));
  std::uint64_t rv = rv_of(created);
  EXPECT_EQ(rv_of(patch_ok(kJob, R"({"spec":{"parallelism":1}})", kMerge)), rv);
  EXPECT_EQ(rv_of(patch_ok(kJob, R"([{"op":"replace","path":"/spec/parallelism","value":1}])", kJsonPatch)), rv);
  EXPECT_EQ(rv_of(expect(200, api().put(kJob, created))), rv);
  EXPECT_EQ(rv_of(patch_ok(std::string(kJob) + "/status", R"({"status":{}})", kMerge)), rv);
  EXPECT_EQ(rv_of(patch_ok(kJob, R"({"metadata":{"managedFields":[]}})", kMerge)), rv);
  std::string apply = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j1\nspec:\n  parallelism: 1\n";
  EXPECT_EQ(rv_of(patch_ok(std::string(kJob) + "?fieldManager=a", apply, "application/apply-patch+yaml")), rv);

  json::value changed = patch_ok(kJob, R"({"spec":{"parallelism":2}})", kMerge);
  EXPECT_GT(rv_of(changed), rv);
  EXPECT_EQ(num(get_ok(kJob), "/spec/parallelism"), 2);
  json::value put = changed;
  put.as_object()["spec"].as_object()["parallelism"] = 3;
  EXPECT_GT(rv_of(expect(200, api().put(kJob, put))), rv_of(changed));
  EXPECT_EQ(num(get_ok(kJob), "/spec/parallelism"), 3);
}

// kube-apiserver decodes a patch's result into the kind's Go struct: a result that does
// not decode is an invalid patch (422, the one cause on "patch"), whatever the patch
// type, while the same body sent whole is a bad request (400).
TEST_F(ApiServerPatches, APatchedBuiltinThatDoesNotDecodeIsAnInvalidPatch) {
  create(kJobs, job("j1", {{"app", "demo"}}));
  for (auto [body, type] : {std::pair{std::string_view(R"({"spec":{"parallelism":"two"}})"), kMerge},
                            std::pair{std::string_view(R"([{"op":"replace","path":"/spec/parallelism","value":"two"}])"), kJsonPatch},
                            std::pair{std::string_view(R"({"spec":{"parallelism":"two"}})"), kStrategic}}) {
    json::value refused = expect(422, api().request("PATCH", kJob, body, type));
    EXPECT_EQ(str(refused, "/reason"), "Invalid") << type;
    EXPECT_EQ(cause_fields(refused), std::vector<std::string>{"patch"}) << type;
    EXPECT_EQ(at(refused, "/details/kind"), nullptr) << "Go leaves the empty kind out";
    EXPECT_NE(str(refused, "/message").find(R"( "" is invalid: patch: Invalid value: ")"), std::string::npos);
    EXPECT_NE(str(refused, "/message").find("cannot unmarshal string into Go struct field spec.parallelism of type int32"),
              std::string::npos)
        << str(refused, "/message");
  }
  EXPECT_EQ(num(get_ok(kJob), "/spec/parallelism"), 1);
  // A map of strings names the element that is not a string.
  create("/api/v1/namespaces/team/configmaps", parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}})"));
  json::value refused = expect(422, api().request("PATCH", "/api/v1/namespaces/team/configmaps/c", R"({"data":{"k":5}})", kMerge));
  EXPECT_NE(str(refused, "/message").find("cannot unmarshal number into Go struct field data of type string"), std::string::npos)
      << str(refused, "/message");
  json::value whole = expect(400, api().request("POST", "/api/v1/namespaces/team/configmaps",
                                                R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"k":5}})",
                                                "application/json"));
  EXPECT_EQ(str(whole, "/reason"), "BadRequest");
}

TEST_F(ApiServerPatches, JsonPatch) {
  create(kJobs, job("j1"));
  json::value p = patch_ok(kJob, R"([{"op":"add","path":"/metadata/labels/tier","value":"b"},
                                     {"op":"replace","path":"/spec/parallelism","value":2}])",
                           kJsonPatch);
  EXPECT_EQ(str(p, "/metadata/labels/tier"), "b");
  EXPECT_EQ(num(p, "/spec/parallelism"), 2);

  json::value tested = patch_ok(kJob, R"([{"op":"test","path":"/spec/parallelism","value":2},
                                          {"op":"replace","path":"/spec/parallelism","value":3}])",
                                kJsonPatch);
  EXPECT_EQ(num(tested, "/spec/parallelism"), 3);

  // A failing test: kube-apiserver answers 422 Invalid and changes nothing, not even the
  // operations before it.
  json::value failed = expect(422, api().request("PATCH", kJob, R"([{"op":"replace","path":"/spec/parallelism","value":5},
                                                                     {"op":"test","path":"/spec/parallelism","value":99}])",
                                                 kJsonPatch));
  EXPECT_EQ(str(failed, "/reason"), "Invalid");
  EXPECT_EQ(num(failed, "/code"), 422);
  EXPECT_EQ(num(get_ok(kJob), "/spec/parallelism"), 3);
  EXPECT_EQ(rv_of(get_ok(kJob)), rv_of(tested));

  // test on the resourceVersion: optimistic concurrency for JSON patches.
  std::string stale = std::to_string(rv_of(p));
  std::string fresh = std::to_string(rv_of(tested));
  EXPECT_EQ(api().request("PATCH", kJob, R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + stale +
                                               R"("},{"op":"replace","path":"/spec/parallelism","value":5}])",
                          kJsonPatch).status,
            422);
  json::value v4 = patch_ok(kJob, R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + fresh +
                                      R"("},{"op":"replace","path":"/spec/parallelism","value":5}])",
                            kJsonPatch);
  EXPECT_EQ(num(v4, "/spec/parallelism"), 5);

  // remove, copy, move; removing a missing path is 422.
  json::value v5 = patch_ok(kJob, R"([{"op":"copy","from":"/metadata/labels/tier","path":"/metadata/labels/copied"},
                                      {"op":"move","from":"/metadata/labels/tier","path":"/metadata/labels/moved"},
                                      {"op":"remove","path":"/metadata/labels/app"}])",
                            kJsonPatch);
  EXPECT_EQ(json::dump(*at(v5, "/metadata/labels")), R"({"copied":"b","moved":"b"})");
  EXPECT_EQ(api().request("PATCH", kJob, R"([{"op":"remove","path":"/metadata/labels/nope"}])", kJsonPatch).status, 422);
  EXPECT_EQ(api().request("PATCH", kJob, R"([{"op":"frobnicate","path":"/spec"}])", kJsonPatch).status / 100, 4);
  // Not an array: 400.
  json::value not_array =
      expect(400, api().request("PATCH", kJob, R"({"op":"add","path":"/metadata/labels/x","value":"y"})", kJsonPatch));
  EXPECT_EQ(str(not_array, "/reason"), "BadRequest");
  EXPECT_EQ(rv_of(get_ok(kJob)), rv_of(v5));
}

TEST_F(ApiServerPatches, StrategicMergePatchOnAJobPodTemplate) {
  json::value body = job("j1");
  json::object& pod = body.as_object()["spec"].as_object()["template"].as_object()["spec"].as_object();
  pod["nodeSelector"] = json::object{{"a", "1"}, {"b", "2"}};
  pod["tolerations"] = json::array{json::object{{"key", "k1"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  pod["schedulingGates"] = json::array{json::object{{"name", "gate-a"}}};
  json::object& main = pod["containers"].as_array()[0].as_object();
  main["env"] = json::array{json::object{{"name", "A"}, {"value", "1"}}, json::object{{"name", "B"}, {"value", "2"}}};
  pod["containers"].as_array().push_back(json::object{{"name", "sidecar"}, {"image", "envoy"}});
  json::value created = create(kJobs, body);

  // Scheduling directives of a suspended Job: maps merge, tolerations (no merge key) are
  // replaced, schedulingGates merge by name, template labels merge.
  json::value p = patch_ok(kJob, R"({"spec":{"template":{
        "metadata":{"labels":{"extra":"yes"}},
        "spec":{"nodeSelector":{"b":null,"c":"3"},
                "tolerations":[{"key":"k2","operator":"Equal","value":"v","effect":"NoExecute"}],
                "schedulingGates":[{"name":"gate-b"}]}}}})",
                           kStrategic);
  EXPECT_EQ(json::dump(*at(p, "/spec/template/spec/nodeSelector")), R"({"a":"1","c":"3"})");
  EXPECT_EQ(json::dump(*at(p, "/spec/template/spec/tolerations")),
            R"([{"key":"k2","operator":"Equal","value":"v","effect":"NoExecute"}])");
  const json::value* gates = at(p, "/spec/template/spec/schedulingGates");
  ASSERT_NE(gates, nullptr);
  ASSERT_EQ(gates->as_array().size(), 2u);
  EXPECT_EQ(str(p, "/spec/template/metadata/labels/extra"), "yes");
  EXPECT_EQ(str(p, "/spec/template/metadata/labels/batch.kubernetes.io~1job-name"), "j1");  // kept
  EXPECT_EQ(json::dump(*at(p, "/spec/template/spec/containers")), json::dump(*at(created, "/spec/template/spec/containers")));

  // $patch: delete removes one list element by its key.
  json::value p2 = patch_ok(kJob, R"({"spec":{"template":{"spec":{"schedulingGates":[{"name":"gate-a","$patch":"delete"}]}}}})",
                            kStrategic);
  EXPECT_EQ(json::dump(*at(p2, "/spec/template/spec/schedulingGates")), R"([{"name":"gate-b"}])");

  // Containers and env merge by name: naming one container with one of its env vars
  // unchanged changes nothing (a merge patch would have replaced both lists, and the
  // Job's template is otherwise immutable).
  json::value p3 = patch_ok(kJob, R"({"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"2"}]}]}}}})",
                            kStrategic);
  EXPECT_EQ(rv_of(p3), rv_of(p2));
  EXPECT_EQ(json::dump(*at(p3, "/spec/template/spec/containers")), json::dump(*at(created, "/spec/template/spec/containers")));
  // Changing the env var for real touches the immutable template: 422 on spec.template.
  json::value refused = expect(422, api().request("PATCH", kJob,
                                                  R"({"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"3"}]}]}}}})",
                                                  kStrategic));
  EXPECT_EQ(cause_fields(refused), std::vector<std::string>{"spec.template"});
  // Malformed strategic patches.
  EXPECT_EQ(api().request("PATCH", kJob, R"({"spec":)", kStrategic).status, 400);
  EXPECT_EQ(rv_of(get_ok(kJob)), rv_of(p2));
}

TEST_F(ApiServerPatches, StrategicMergePatchOnAPodMergesContainersByName) {
  json::value pod = parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"name":"main","image":"busybox","command":["sleep","1"],
                             "env":[{"name":"A","value":"1"}]},
                            {"name":"sidecar","image":"envoy:1"}],
              "tolerations":[{"key":"k1","operator":"Exists"}]}})");
  create("/api/v1/namespaces/team/pods", pod);
  json::value p = patch_ok("/api/v1/namespaces/team/pods/p",
                           R"({"spec":{"containers":[{"name":"sidecar","image":"envoy:2"}],
                                       "tolerations":[{"key":"k1","operator":"Exists"},{"key":"k2","operator":"Exists"}]}})",
                           kStrategic);
  const json::value* containers = at(p, "/spec/containers");
  ASSERT_NE(containers, nullptr);
  ASSERT_EQ(containers->as_array().size(), 2u);
  EXPECT_EQ(str(p, "/spec/containers/0/name"), "main");
  EXPECT_EQ(str(p, "/spec/containers/0/image"), "busybox");
  EXPECT_EQ(json::dump(*at(p, "/spec/containers/0/command")), R"(["sleep","1"])");
  EXPECT_EQ(str(p, "/spec/containers/0/env/0/name"), "A");
  EXPECT_EQ(str(p, "/spec/containers/1/name"), "sidecar");
  EXPECT_EQ(str(p, "/spec/containers/1/image"), "envoy:2");
  EXPECT_EQ(at(p, "/spec/tolerations")->as_array().size(), 2u);
  // The same change as a merge patch replaces the list: main is gone, so it is refused.
  EXPECT_EQ(api().request("PATCH", "/api/v1/namespaces/team/pods/p",
                          R"({"spec":{"containers":[{"name":"sidecar","image":"envoy:3"}]}})", kMerge)
                .status,
            422);
  EXPECT_EQ(str(get_ok("/api/v1/namespaces/team/pods/p"), "/spec/containers/1/image"), "envoy:2");
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

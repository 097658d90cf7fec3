// Errors of writes, as kube-apiserver reports them: 422 Invalid with the field causes
// (built-in validation and CRD schemas, including CEL rules), 400 for bodies that cannot
// be decoded, 415 for unsupported media types, 413 for oversized bodies, and the request
// routing errors (404, 405, 406). Nothing is stored by a failed write.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";
constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

using Fields = std::vector<std::string>;

class ApiServerErrors : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
  /// The namespace's objects are what the test created.
  void expect_only_jobs(const std::vector<std::string>& names) { EXPECT_EQ(item_names(get_ok(kJobs)), names); }
};

TEST_F(ApiServerErrors, InvalidJobsAnswer422WithCauses) {
  json::value bad = job("j1");
  bad.as_object()["spec"].as_object()["parallelism"] = -1;
  json::value status = expect(422, api().post(kJobs, bad));
  EXPECT_EQ(str(status, "/kind"), "Status");
  EXPECT_EQ(str(status, "/status"), "Failure");
  EXPECT_EQ(str(status, "/reason"), "Invalid");
  EXPECT_EQ(num(status, "/code"), 422);
  EXPECT_EQ(str(status, "/details/name"), "j1");
  EXPECT_EQ(str(status, "/details/group"), "batch");
  EXPECT_EQ(str(status, "/details/kind"), "Job");
  EXPECT_EQ(cause_fields(status), Fields{"spec.parallelism"});
  EXPECT_EQ(str(status, "/details/causes/0/reason"), "FieldValueInvalid");
  EXPECT_EQ(str(status, "/message"),
            "Job.batch \"j1\" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0");

  json::value no_restart = job("j1");
  no_restart.as_object()["spec"].as_object()["template"].as_object()["spec"].as_object().erase("restartPolicy");
  EXPECT_EQ(cause_fields(expect(422, api().post(kJobs, no_restart))), Fields{"spec.template.spec.restartPolicy"});

  json::value bad_name = job("Bad_Name");
  EXPECT_EQ(cause_fields(expect(422, api().post(kJobs, bad_name))), Fields{"metadata.name"});

  json::value bad_label = job("j1", {{"bad key!", "v"}});
  EXPECT_EQ(cause_fields(expect(422, api().post(kJobs, bad_label))), Fields{"metadata.labels"});

  // Several problems: every one is a cause.
  json::value many = job("j1");
  many.as_object()["spec"].as_object()["completions"] = -2;
  many.as_object()["spec"].as_object()["completionMode"] = "Sometimes";
  Fields fields = cause_fields(expect(422, api().post(kJobs, many)));
  EXPECT_NE(std::find(fields.begin(), fields.end(), "spec.completions"), fields.end());
  EXPECT_NE(std::find(fields.begin(), fields.end(), "spec.completionMode"), fields.end());

  // On update: immutable fields.
  json::value created = create(kJobs, job("j1"));
  json::value update = created;
  update.as_object()["spec"].as_object()["completions"] = 5;
  EXPECT_EQ(cause_fields(expect(422, api().put(std::string(kJobs) + "/j1", update))), Fields{"spec.completions"});
  json::value stored = get_ok(std::string(kJobs) + "/j1");
  EXPECT_EQ(rv_of(stored), rv_of(created));
  expect_only_jobs({"j1"});
}

TEST_F(ApiServerErrors, WrongTypesInKnownFieldsAreRefused) {
  // kube-apiserver decodes built-in kinds into Go structs: a known field of the wrong JSON
  // type is a 400 decoding error, and nothing is stored that clients could not read back.
  auto job_with = [](std::string_view pointer, json::value v) {
    json::value j = job("j1");
    std::string p(pointer);
    json::value* cur = &j;
    std::size_t start = 1;
    while (true) {
      std::size_t slash = p.find('/', start);
      std::string key = p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (slash == std::string::npos) {
        if (cur->is_array()) {
          cur->as_array()[std::stoul(key)] = std::move(v);
        } else {
          cur->as_object()[key] = std::move(v);
        }
        return j;
      }
      cur = cur->is_array() ? &cur->as_array()[std::stoul(key)] : &cur->as_object()[key];
      start = slash + 1;
    }
  };
  const std::vector<std::pair<std::string, json::value>> cases = {
      {"/spec/parallelism", "two"},
      {"/spec/parallelism", 1.5},
      {"/spec/suspend", "yes"},
      {"/spec/suspend", 1},
      {"/spec/manualSelector", "no"},
      {"/spec/podFailurePolicy", "x"},
      {"/spec", "everything"},
      {"/spec/template/spec/containers", "c"},
      {"/spec/template/spec/containers/0", "c"},
      {"/spec/template/spec/containers/0/image", 5},
      {"/spec/template/spec/containers/0/command", "sleep 10"},
      {"/spec/template/spec/containers/0/env", json::object{{"A", "1"}}},
      {"/spec/template/spec/containers/0/env", json::array{json::object{{"name", "A"}, {"value", 1}}}},
      {"/spec/template/spec/containers/0/resources", json::object{{"requests", json::object{{"cpu", true}}}}},
      {"/spec/template/spec/containers/0/resources", json::object{{"requests", json::object{{"cpu", "lots"}}}}},
      {"/spec/template/spec/containers/0/ports", json::array{json::object{{"containerPort", "80"}}}},
      {"/spec/template/spec/nodeSelector", json::object{{"pool", 1}}},
      {"/spec/template/spec/tolerations", json::object{{"key", "k"}}},
      {"/spec/template/metadata", json::object{{"labels", json::object{{"a", true}}}}},
  };
  for (const auto& [pointer, value] : cases) {
    HttpReply reply = api().post(kJobs, job_with(pointer, value));
    json::value status = expect(400, reply);
    EXPECT_EQ(str(status, "/kind"), "Status") << pointer << " = " << json::dump(value);
    EXPECT_EQ(str(status, "/reason"), "BadRequest") << pointer << " = " << json::dump(value);
    EXPECT_NE(str(status, "/message").find("cannot be handled as a Job"), std::string::npos) << str(status, "/message");
  }
  // Quantities may be numbers or quantity strings.
  json::value numbers = job_with("/spec/template/spec/containers/0/resources",
                                 json::object{{"requests", json::object{{"cpu", 1}, {"memory", "1Gi"}}},
                                              {"limits", json::object{{"cpu", "1500m"}, {"memory", 2.5e9}}}});
  create(kJobs, numbers);

  // Patches that would store a wrong type are refused too, as an invalid patch (422, as
  // kube-apiserver v1.32 answers in trace e10).
  EXPECT_EQ(api().patch(std::string(kJobs) + "/j1", json::object{{"spec", json::object{{"suspend", "no"}}}}).status, 422);
  EXPECT_EQ(json::dump(*at(get_ok(std::string(kJobs) + "/j1"), "/spec/suspend")), "true");

  // ConfigMaps: data holds strings, binaryData base64.
  for (const json::value& body :
       {json::value(json::object{{"metadata", json::object{{"name", "cm"}}}, {"data", json::object{{"k", 1}}}}),
        json::value(json::object{{"metadata", json::object{{"name", "cm"}}}, {"data", "k=v"}}),
        json::value(json::object{{"metadata", json::object{{"name", "cm"}}}, {"binaryData", json::object{{"k", "!!"}}}}),
        json::value(json::object{{"metadata", json::object{{"name", "cm"}}}, {"immutable", "yes"}})}) {
    EXPECT_EQ(str(expect(400, api().post(kCms, body)), "/reason"), "BadRequest") << json::dump(body);
  }
  create(kCms, json::object{{"metadata", json::object{{"name", "cm"}}},
                            {"data", json::object{{"k", "v"}}},
                            {"binaryData", json::object{{"b", "aGVsbG8="}}},
                            {"immutable", false}});

  // Metadata of the wrong type.
  json::value labels_not_strings = job("j2");
  labels_not_strings.as_object()["metadata"].as_object()["labels"] = json::object{{"a", 1}};
  EXPECT_EQ(str(expect(400, api().post(kJobs, labels_not_strings)), "/reason"), "BadRequest");
  json::value name_not_string = job("j2");
  name_not_string.as_object()["metadata"].as_object()["name"] = 42;
  EXPECT_EQ(api().post(kJobs, name_not_string).status, 400);
  json::value metadata_not_object = job("j2");
  metadata_not_object.as_object()["metadata"] = "j2";
  EXPECT_EQ(api().post(kJobs, metadata_not_object).status, 400);
  json::value kind_not_string = job("j2");
  kind_not_string.as_object()["kind"] = json::array{};
  EXPECT_EQ(api().post(kJobs, kind_not_string).status, 400);
  expect_only_jobs({"j1"});
  EXPECT_EQ(item_names(get_ok(kCms)), Fields{"cm"});
}

TEST_F(ApiServerErrors, MalformedBodiesAre400) {
  for (std::string_view body : {R"({"apiVersion":"v1","kind":"Con)", "not json", "[1,2]", "\"text\"", "", "{}{}"}) {
    HttpReply reply = api().request("POST", kCms, body);
    json::value status = expect(400, reply);
    EXPECT_EQ(str(status, "/reason"), "BadRequest") << body;
  }
  json::value cm = create(kCms, json::object{{"metadata", json::object{{"name", "cm"}}}});
  EXPECT_EQ(api().request("PUT", std::string(kCms) + "/cm", "{\"metadata\":").status, 400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "{\"data\":", "application/merge-patch+json").status, 400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "[{\"op\":", "application/json-patch+json").status, 400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "{\"op\":\"add\"}", "application/json-patch+json").status, 400);
  // A body of another kind or group.
  EXPECT_EQ(api().post(kCms, job("j")).status, 400);
  // A namespace in the body that differs from the URL's.
  json::value elsewhere = json::object{{"metadata", json::object{{"name", "x"}, {"namespace", "other"}}}};
  EXPECT_EQ(api().post(kCms, elsewhere).status, 400);
  // A name in the body that differs from the URL's.
  json::value renamed = cm;
  renamed.as_object()["metadata"].as_object()["name"] = "other";
  EXPECT_EQ(api().put(std::string(kCms) + "/cm", renamed).status, 400);
  EXPECT_EQ(rv_of(get_ok(std::string(kCms) + "/cm")), rv_of(cm));
  EXPECT_EQ(item_names(get_ok(kCms)), Fields{"cm"});
}

TEST_F(ApiServerErrors, YamlBodiesAreAccepted) {
  HttpReply reply = api().request("POST", kCms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n",
                                  "application/yaml");
  json::value cm = expect(201, reply);
  EXPECT_EQ(str(cm, "/data/k"), "v");
  EXPECT_EQ(api().request("POST", kCms, "a: [unclosed", "application/yaml").status, 400);
}

TEST_F(ApiServerErrors, UnsupportedMediaTypes415) {
  create(kCms, json::object{{"metadata", json::object{{"name", "cm"}}}});
  std::string cm = std::string(kCms) + "/cm";
  for (std::string_view type : {"text/plain", "application/json", "application/xml", "application/strategic-merge-patch"}) {
    json::value status = expect(415, api().request("PATCH", cm, R"({"data":{"k":"v"}})", type));
    EXPECT_EQ(str(status, "/reason"), "UnsupportedMediaType") << type;
    EXPECT_EQ(num(status, "/code"), 415);
  }
  EXPECT_EQ(api().request("POST", kCms, R"({"metadata":{"name":"x"}})", "text/plain").status, 415);
  EXPECT_EQ(api().request("PUT", cm, R"({"metadata":{"name":"cm"}})", "application/octet-stream").status, 415);
  EXPECT_EQ(at(get_ok(cm), "/data"), nullptr);
}

TEST_F(ApiServerErrors, OversizedBodies413) {
  // The limit is kube-apiserver's 3 MiB; announcing more is refused before the body is read.
  HttpConnection conn(port());
  std::string head = "POST " + std::string(kCms) +
                     " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                     std::to_string((3u << 20) + 1) + "\r\n\r\n";
  ASSERT_TRUE(conn.send_raw(head));
  auto reply = conn.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413);
  EXPECT_EQ(str(body_json(*reply), "/reason"), "RequestEntityTooLarge");
  EXPECT_TRUE(conn.closed_by_peer(std::chrono::seconds(5)));

  // A body just within the limit is read (and judged on its content).
  json::value big = json::object{{"metadata", json::object{{"name", "big"}}},
                                 {"data", json::object{{"k", std::string((1u << 20) - 100, 'x')}}}};
  EXPECT_EQ(create(kCms, big).is_object(), true);
  // The server is still fine.
  EXPECT_EQ(item_names(get_ok(kCms)), Fields{"big"});
}

TEST_F(ApiServerErrors, RoutingErrors) {
  json::value unknown = expect(404, api().get("/api/v1/namespaces/team/foos"));
  EXPECT_EQ(str(unknown, "/reason"), "NotFound");
  EXPECT_EQ(str(unknown, "/message"), "the server could not find the requested resource");
  HttpReply group = api().get("/apis/nope.example.com/v1/foos");
  EXPECT_EQ(group.status, 404);
  EXPECT_EQ(group.body, "404 page not found\n");
  EXPECT_EQ(api().get("/apis/batch/v9/jobs").status, 404);
  EXPECT_EQ(api().get("/nothing/here").status, 404);
  EXPECT_EQ(str(expect(405, api().put(kCms, json::object{})), "/reason"), "MethodNotAllowed");
  EXPECT_EQ(api().post(std::string(kCms) + "/cm", json::object{}).status, 405);
  HttpReply unacceptable = api().request("GET", kCms, {}, "application/json", {{"Accept", "text/html"}});
  EXPECT_EQ(unacceptable.status, 406);
  EXPECT_EQ(str(body_json(unacceptable), "/reason"), "NotAcceptable");
  // A namespaced path for a cluster-scoped kind.
  EXPECT_EQ(api().get("/apis/scheduling.k8s.io/v1/namespaces/team/priorityclasses").status, 404);
}

class ApiServerCustomResourceErrors : public KueueServerTest {};

TEST_F(ApiServerCustomResourceErrors, SchemaViolationsAnswer422WithCauses) {
  std::string cqs = std::string(kKueue) + "/clusterqueues";
  json::value bad_quantity = cluster_queue("bad1", "abc");
  json::value status = expect(422, api().post(cqs, bad_quantity));
  EXPECT_EQ(str(status, "/reason"), "Invalid");
  EXPECT_EQ(str(status, "/details/kind"), "ClusterQueue");
  EXPECT_EQ(str(status, "/details/group"), "kueue.x-k8s.io");
  EXPECT_EQ(cause_fields(status), Fields{"spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"});

  json::value bad_enum = cluster_queue("bad2");
  bad_enum.as_object()["spec"].as_object()["queueingStrategy"] = "Bogus";
  status = expect(422, api().post(cqs, bad_enum));
  EXPECT_EQ(cause_fields(status), Fields{"spec.queueingStrategy"});
  EXPECT_EQ(str(status, "/details/causes/0/reason"), "FieldValueNotSupported");

  // A CEL rule (x-kubernetes-validations).
  json::value bad_rule = cluster_queue("bad3");
  bad_rule.as_object()["spec"].as_object()["resourceGroups"].as_array()[0].as_object()["coveredResources"] =
      json::array{"cpu", "memory"};
  EXPECT_EQ(cause_fields(expect(422, api().post(cqs, bad_rule))), Fields{"spec.resourceGroups[0]"});

  json::value no_pod_sets = workload("wl");
  no_pod_sets.as_object()["spec"].as_object()["podSets"] = json::array{};
  make_namespace("team");
  EXPECT_EQ(cause_fields(expect(422, api().post(std::string(kKueue) + "/namespaces/team/workloads", no_pod_sets))),
            Fields{"spec.podSets"});

  // Unknown fields: pruned with a warning, or 400 under Strict.
  json::value extra = cluster_queue("warn");
  extra.as_object()["spec"].as_object()["foo"] = "bar";
  HttpReply warned = api().post(cqs, extra);
  EXPECT_EQ(warned.status, 201);
  EXPECT_EQ(at(body_json(warned), "/spec/foo"), nullptr);
  EXPECT_NE(warned.header("warning").find("unknown field \\\"spec.foo\\\""), std::string::npos) << warned.header("warning");
  extra.as_object()["metadata"].as_object()["name"] = "strict";
  EXPECT_EQ(str(expect(400, api().post(cqs + "?fieldValidation=Strict", extra)), "/reason"), "BadRequest");
  // An unknown fieldValidation is a cause of an Invalid CreateOptions (trace e06).
  EXPECT_EQ(api().post(cqs + "?fieldValidation=Sometimes", extra).status, 422);

  // An invalid update leaves the stored object alone.
  json::value cq = create(cqs, cluster_queue("good"));
  HttpReply patched = api().patch(cqs + "/good", json::object{{"spec", json::object{{"cohortName", "Bad_Cohort"}}}});
  EXPECT_EQ(cause_fields(expect(422, patched)), Fields{"spec.cohortName"});
  EXPECT_EQ(api().patch(cqs + "/good", json::object{{"spec", json::object{{"stopPolicy", "Hold"}}}},
                        "application/strategic-merge-patch+json")
                .status,
            415);
  EXPECT_EQ(rv_of(get_ok(cqs + "/good")), rv_of(cq));
  EXPECT_EQ(item_names(get_ok(cqs)), (Fields{"good", "warn"}));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

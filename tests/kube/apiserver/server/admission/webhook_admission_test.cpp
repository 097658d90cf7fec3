// Admission webhooks through the embedded server, end to end: configurations stored and
// validated, webhooks called over HTTPS (a test webhook with its own CA), their answers
// applied, and kube-apiserver's answers when a webhook cannot be called.

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "tests/kube/apiserver/server/admission/test_webhook_server.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kMutating = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
constexpr std::string_view kValidating = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";

json::value rule(json::array ops, json::array groups, json::array versions, json::array resources,
                 std::string_view scope = "*") {
  return json::object{{"operations", std::move(ops)}, {"apiGroups", std::move(groups)},
                      {"apiVersions", std::move(versions)}, {"resources", std::move(resources)}, {"scope", scope}};
}

json::value job_rule(json::array ops = {"CREATE"}) { return rule(std::move(ops), {"batch"}, {"v1"}, {"jobs"}); }

json::value hook(std::string_view name, std::string_view url, std::string_view ca_bundle, json::array rules,
                 json::object extra = {}) {
  json::object h{{"name", name},
                 {"clientConfig", json::object{{"url", url}, {"caBundle", ca_bundle}}},
                 {"rules", std::move(rules)},
                 {"sideEffects", "None"},
                 {"admissionReviewVersions", json::array{"v1"}}};
  for (auto& [k, v] : extra) h[k] = v;
  return h;
}

json::value configuration(std::string_view kind, std::string_view name, json::array hooks) {
  return json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                      {"kind", kind},
                      {"metadata", json::object{{"name", name}}},
                      {"webhooks", std::move(hooks)}};
}

json::value add_label_patch(std::string_view key, std::string_view value) {
  return json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/" + std::string(key)}, {"value", value}}};
}

class WebhookAdmissionTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    make_namespace("team");
  }

  void mutating(std::string_view name, json::array hooks) {
    create(kMutating, configuration("MutatingWebhookConfiguration", name, std::move(hooks)));
  }
  void validating(std::string_view name, json::array hooks) {
    create(kValidating, configuration("ValidatingWebhookConfiguration", name, std::move(hooks)));
  }
  /// A webhook of the test server at `path`.
  json::value local(std::string_view name, std::string_view path, json::array rules, json::object extra = {}) {
    return hook(name, webhook_.url(path), webhook_.ca_bundle(), std::move(rules), std::move(extra));
  }

  TestWebhookServer webhook_;
};

// -- the configurations -------------------------------------------------------------

TEST_F(WebhookAdmissionTest, ConfigurationsAreServedWithKubeApiserversDefaults) {
  json::value created = create(kMutating, configuration("MutatingWebhookConfiguration", "defaults",
                                                        {local("m.example.com", "/m", {job_rule()})}));
  const json::value& h = *at(created, "/webhooks/0");
  EXPECT_EQ(str(h, "/failurePolicy"), "Fail");
  EXPECT_EQ(str(h, "/matchPolicy"), "Equivalent");
  EXPECT_EQ(str(h, "/reinvocationPolicy"), "Never");
  EXPECT_EQ(num(h, "/timeoutSeconds"), 10);
  EXPECT_TRUE(at(h, "/namespaceSelector")->is_object());
  EXPECT_TRUE(at(h, "/objectSelector")->is_object());
  EXPECT_EQ(str(h, "/rules/0/scope"), "*");
  json::value v = create(kValidating, configuration("ValidatingWebhookConfiguration", "defaults",
                                                    {local("v.example.com", "/v", {job_rule()})}));
  EXPECT_EQ(at(v, "/webhooks/0/reinvocationPolicy"), nullptr);
  EXPECT_EQ(get_ok(std::string(kValidating) + "/defaults").at("kind").get_string(), "ValidatingWebhookConfiguration");
}

TEST_F(WebhookAdmissionTest, InvalidConfigurationsAreRefusedWithTheFieldsAtFault) {
  json::value h = local("bad.example.com", "/m", {job_rule()});
  h.as_object().erase("sideEffects");
  h.as_object().erase("admissionReviewVersions");
  h.as_object()["timeoutSeconds"] = 31;
  h.as_object()["clientConfig"].as_object()["url"] = "http://127.0.0.1:1/m";
  json::value reply = expect(422, api().post(kMutating, configuration("MutatingWebhookConfiguration", "bad", {h})));
  std::vector<std::string> fields = cause_fields(reply);
  for (std::string_view f : {"webhooks[0].sideEffects", "webhooks[0].admissionReviewVersions",
                             "webhooks[0].timeoutSeconds", "webhooks[0].clientConfig.url"}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), f), fields.end()) << f << " in " << json::dump(reply);
  }
  json::value both = local("both.example.com", "/m", {job_rule()});
  both.as_object()["clientConfig"].as_object()["service"] = json::object{{"namespace", "team"}, {"name", "svc"}};
  reply = expect(422, api().post(kValidating, configuration("ValidatingWebhookConfiguration", "both", {both})));
  EXPECT_NE(str(reply, "/message").find("exactly one of url or service is required"), std::string::npos);
  json::value some = local("some.example.com", "/m", {job_rule()}, {{"sideEffects", "Some"}});
  expect(422, api().post(kValidating, configuration("ValidatingWebhookConfiguration", "some", {some})));
}

TEST_F(WebhookAdmissionTest, MatchConditionsAreRefusedNotIgnored) {
  json::value h = local("mc.example.com", "/m", {job_rule()},
                        {{"matchConditions", json::array{json::object{{"name", "x"}, {"expression", "true"}}}}});
  json::value reply = expect(422, api().post(kMutating, configuration("MutatingWebhookConfiguration", "mc", {h})));
  EXPECT_NE(str(reply, "/message").find("matchConditions are not supported"), std::string::npos);
}

// -- calls and answers ----------------------------------------------------------------

TEST_F(WebhookAdmissionTest, MutationIsAppliedAndTheResultValidatedAgain) {
  webhook_.on("/label", [](const json::value& review) {
    return TestWebhookServer::allow(review, add_label_patch("mutated", "yes"));
  });
  mutating("label", {local("label.example.com", "/label", {job_rule()})});
  json::value created = create(kJobs, job("one"));
  EXPECT_EQ(str(created, "/metadata/labels/mutated"), "yes");
  EXPECT_EQ(str(get_ok(std::string(kJobs) + "/one"), "/metadata/labels/mutated"), "yes");
  auto calls = webhook_.received("/label");
  ASSERT_EQ(calls.size(), 1u);
  const json::value& req = *at(calls[0].review, "/request");
  EXPECT_EQ(str(calls[0].review, "/apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(str(req, "/operation"), "CREATE");
  EXPECT_EQ(str(req, "/kind/kind"), "Job");
  EXPECT_EQ(str(req, "/resource/resource"), "jobs");
  EXPECT_EQ(str(req, "/requestResource/group"), "batch");
  EXPECT_EQ(str(req, "/namespace"), "team");
  EXPECT_EQ(str(req, "/name"), "one");
  EXPECT_EQ(str(req, "/object/metadata/name"), "one");
  EXPECT_TRUE(at(req, "/oldObject")->is_null());
  EXPECT_EQ(str(req, "/options/kind"), "CreateOptions");
  EXPECT_FALSE(str(req, "/uid").empty());

  // A patch that makes the Job invalid is caught by the Job's validation.
  webhook_.on("/label", [](const json::value& review) {
    return TestWebhookServer::allow(
        review, json::array{json::object{{"op", "replace"}, {"path", "/spec/parallelism"}, {"value", -1}}});
  });
  json::value refused = expect(422, api().post(kJobs, job("two")));
  EXPECT_EQ(cause_fields(refused), std::vector<std::string>{"spec.parallelism"});
}

TEST_F(WebhookAdmissionTest, ADenialGivesTheWebhooksStatusAndMessage) {
  webhook_.on("/deny", [](const json::value& review) { return TestWebhookServer::deny(review, 403, "not today"); });
  validating("deny", {local("deny.example.com", "/deny", {job_rule()})});
  json::value status = expect(403, api().post(kJobs, job("one")));
  EXPECT_EQ(str(status, "/message"), "admission webhook \"deny.example.com\" denied the request: not today");
  EXPECT_EQ(str(status, "/status"), "Failure");
  expect(404, api().get(std::string(kJobs) + "/one"));
  // Denied without a code: 400.
  webhook_.on("/deny", [](const json::value& review) { return TestWebhookServer::deny(review, 0, ""); });
  status = expect(400, api().post(kJobs, job("two")));
  EXPECT_EQ(str(status, "/message"), "admission webhook \"deny.example.com\" denied the request without explanation");
}

TEST_F(WebhookAdmissionTest, DeletesAreAdmittedWithTheOldObject) {
  create(kJobs, job("keep"));
  webhook_.on("/nodelete", [](const json::value& review) { return TestWebhookServer::deny(review, 403, "kept"); });
  validating("nodelete", {local("nodelete.example.com", "/nodelete", {job_rule({"DELETE"})})});
  expect(403, api().del(std::string(kJobs) + "/keep"));
  get_ok(std::string(kJobs) + "/keep");
  auto calls = webhook_.received("/nodelete");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(str(calls[0].review, "/request/operation"), "DELETE");
  EXPECT_TRUE(at(calls[0].review, "/request/object")->is_null());
  EXPECT_EQ(str(calls[0].review, "/request/oldObject/metadata/name"), "keep");
}

TEST_F(WebhookAdmissionTest, WebhooksAreToldWhoAsked) {
  webhook_.on("/who", [](const json::value& r) { return TestWebhookServer::allow(r); });
  validating("who", {local("who.example.com", "/who", {job_rule()})});
  create(kJobs, job("by-admin"));
  // The cluster administrator acting as alice (impersonation): the webhook sees alice.
  expect(201, api().request("POST", kJobs, json::dump(job("by-alice")), "application/json",
                            {{"Impersonate-User", "alice"}, {"Impersonate-Group", "system:masters"}}));
  auto calls = webhook_.received("/who");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(str(calls[0].review, "/request/userInfo/username"), "kueuepp");
  EXPECT_EQ(*at(calls[0].review, "/request/userInfo/groups"),
            json::value(json::array{"system:masters", "system:authenticated"}));
  EXPECT_EQ(str(calls[1].review, "/request/userInfo/username"), "alice");
  EXPECT_EQ(*at(calls[1].review, "/request/userInfo/groups"),
            json::value(json::array{"system:masters", "system:authenticated"}));
}

TEST_F(WebhookAdmissionTest, AWriteWhoseObjectChangedDuringItsWebhookCallIsHandledAgain) {
  create(kJobs, job("busy"));
  std::uint16_t api_port = port();
  int calls = 0;
  // The first call changes the Job (a label, through the main resource the webhook does
  // not see) before answering, as a concurrent writer would.
  webhook_.on("/status", [&calls, api_port](const json::value& review) {
    if (calls++ == 0) {
      ApiClient other(api_port);
      other.patch(std::string(kJobs) + "/busy",
                  json::object{{"metadata", json::object{{"labels", json::object{{"meanwhile", "yes"}}}}}});
    }
    return TestWebhookServer::allow(review);
  });
  validating("status", {local("status.example.com", "/status", {rule({"UPDATE"}, {"batch"}, {"v1"}, {"jobs/status"})})});
  json::value patched =
      expect(200, api().patch(std::string(kJobs) + "/busy/status", json::object{{"status", json::object{{"active", 0}}}}));
  EXPECT_EQ(str(patched, "/metadata/labels/meanwhile"), "yes");
  EXPECT_EQ(num(patched, "/status/active"), 0);
  EXPECT_EQ(webhook_.received("/status").size(), 2u);
}

TEST_F(WebhookAdmissionTest, EachItemOfADeleteCollectionIsAdmitted) {
  create(kJobs, job("a", {{"app", "x"}}));
  create(kJobs, job("b", {{"app", "x"}, {"keep", "yes"}}));
  webhook_.on("/keep", [](const json::value& review) {
    if (str(review, "/request/oldObject/metadata/labels/keep") == "yes") return TestWebhookServer::deny(review, 403, "kept");
    return TestWebhookServer::allow(review);
  });
  validating("keep", {local("keep.example.com", "/keep", {job_rule({"DELETE"})})});
  json::value status = expect(403, api().del(std::string(kJobs) + "?labelSelector=app%3Dx"));
  EXPECT_EQ(str(status, "/message"), "admission webhook \"keep.example.com\" denied the request: kept");
  get_ok(std::string(kJobs) + "/b");
  // As kube-apiserver: the admitted item is deleted although its sibling was refused, and
  // the answer comes only after both calls.
  expect(404, api().get(std::string(kJobs) + "/a"));
  auto calls = webhook_.received("/keep");
  ASSERT_EQ(calls.size(), 2u);
  // The items are admitted concurrently: in either order.
  std::vector<std::string> names{str(calls[0].review, "/request/name"), str(calls[1].review, "/request/name")};
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(str(calls[0].review, "/request/namespace"), "team");
}

// -- which webhooks a request reaches ------------------------------------------------------

TEST_F(WebhookAdmissionTest, RulesSelectOperationsGroupsResourcesAndSubresources) {
  webhook_.on("/create", [](const json::value& r) { return TestWebhookServer::allow(r); });
  webhook_.on("/status", [](const json::value& r) { return TestWebhookServer::allow(r); });
  webhook_.on("/cluster", [](const json::value& r) { return TestWebhookServer::allow(r); });
  validating("rules", {local("create.example.com", "/create", {job_rule({"CREATE"})}),
                       local("status.example.com", "/status",
                             {rule({"UPDATE"}, {"batch"}, {"v1"}, {"jobs/status"})}),
                       local("cluster.example.com", "/cluster", {rule({"*"}, {"*"}, {"*"}, {"*"}, "Cluster")})});
  create("/api/v1/namespaces/team/configmaps",
         json::object{{"metadata", json::object{{"name", "cm"}}}, {"data", json::object{{"a", "b"}}}});
  EXPECT_TRUE(webhook_.received("/create").empty());
  create(kJobs, job("one"));
  EXPECT_EQ(webhook_.received("/create").size(), 1u);
  // An update of the main resource is neither a CREATE nor a status write.
  expect(200, api().patch(std::string(kJobs) + "/one", json::object{{"metadata", json::object{{"labels", json::object{{"x", "y"}}}}}}));
  EXPECT_EQ(webhook_.received("/create").size(), 1u);
  EXPECT_TRUE(webhook_.received("/status").empty());
  expect(200, api().patch(std::string(kJobs) + "/one/status", json::object{{"status", json::object{{"active", 0}}}}));
  auto status_calls = webhook_.received("/status");
  ASSERT_EQ(status_calls.size(), 1u);
  EXPECT_EQ(str(status_calls[0].review, "/request/subResource"), "status");
  // Namespaced objects never reach a Cluster-scoped rule; a Namespace does.
  EXPECT_TRUE(webhook_.received("/cluster").empty());
  make_namespace("other");
  auto cluster_calls = webhook_.received("/cluster");
  ASSERT_EQ(cluster_calls.size(), 1u);
  EXPECT_EQ(str(cluster_calls[0].review, "/request/namespace"), "other");
}

TEST_F(WebhookAdmissionTest, EquivalentMatchPolicyReachesOtherVersionsExactDoesNot) {
  webhook_.on("/equivalent", [](const json::value& r) { return TestWebhookServer::allow(r); });
  webhook_.on("/exact", [](const json::value& r) { return TestWebhookServer::allow(r); });
  json::value events_rule = rule({"CREATE"}, {"events.k8s.io"}, {"v1"}, {"events"});
  validating("events", {local("equivalent.example.com", "/equivalent", {events_rule}),
                        local("exact.example.com", "/exact", {events_rule}, {{"matchPolicy", "Exact"}})});
  json::value event{{"metadata", json::object{{"name", "e1"}}},
                    {"involvedObject", json::object{{"kind", "Job"}, {"name", "x"}, {"namespace", "team"}}},
                    {"reason", "Test"},
                    {"message", "m"},
                    {"type", "Normal"}};
  create("/api/v1/namespaces/team/events", event);
  EXPECT_TRUE(webhook_.received("/exact").empty());
  auto calls = webhook_.received("/equivalent");
  ASSERT_EQ(calls.size(), 1u);
  const json::value& req = *at(calls[0].review, "/request");
  EXPECT_EQ(str(req, "/kind/group"), "events.k8s.io");
  EXPECT_EQ(str(req, "/requestKind/group"), "");
  EXPECT_EQ(str(req, "/object/apiVersion"), "events.k8s.io/v1");
}

TEST_F(WebhookAdmissionTest, NamespaceAndObjectSelectorsFilter) {
  create("/api/v1/namespaces", name_space("prod", {{"env", "prod"}}));
  webhook_.on("/ns", [](const json::value& r) { return TestWebhookServer::allow(r); });
  webhook_.on("/obj", [](const json::value& r) { return TestWebhookServer::allow(r); });
  validating("selectors",
             {local("ns.example.com", "/ns", {job_rule({"CREATE", "UPDATE"})},
                    {{"namespaceSelector", json::object{{"matchLabels", json::object{{"env", "prod"}}}}}}),
              local("obj.example.com", "/obj", {job_rule({"CREATE", "UPDATE"})},
                    {{"objectSelector", json::object{{"matchLabels", json::object{{"watched", "yes"}}}}}})});
  create(kJobs, job("in-team"));
  create("/apis/batch/v1/namespaces/prod/jobs", job("in-prod"));
  auto ns_calls = webhook_.received("/ns");
  ASSERT_EQ(ns_calls.size(), 1u);
  EXPECT_EQ(str(ns_calls[0].review, "/request/namespace"), "prod");
  EXPECT_TRUE(webhook_.received("/obj").empty());
  create(kJobs, job("watched", {{"watched", "yes"}}));
  EXPECT_EQ(webhook_.received("/obj").size(), 1u);
  // Old labels count too: removing the label is still seen.
  expect(200, api().patch(std::string(kJobs) + "/watched",
                          json::object{{"metadata", json::object{{"labels", json::object{{"watched", nullptr}}}}}}));
  EXPECT_EQ(webhook_.received("/obj").size(), 2u);
}

TEST_F(WebhookAdmissionTest, MutatingWebhooksRunInConfigurationNameOrderEachSeeingTheLastOnesChange) {
  auto append = [](std::string_view me) {
    return [me = std::string(me)](const json::value& review) {
      std::string seen = str(review, "/request/object/metadata/annotations/order");
      json::value patch = json::array{json::object{{"op", "add"}, {"path", "/metadata/annotations"},
                                                   {"value", json::object{{"order", seen + me}}}}};
      return TestWebhookServer::allow(review, patch);
    };
  };
  webhook_.on("/a1", append("a1,"));
  webhook_.on("/a2", append("a2,"));
  webhook_.on("/b", append("b,"));
  mutating("b-config", {local("b.example.com", "/b", {job_rule()})});
  mutating("a-config", {local("a1.example.com", "/a1", {job_rule()}), local("a2.example.com", "/a2", {job_rule()})});
  json::value created = create(kJobs, job("ordered"));
  EXPECT_EQ(str(created, "/metadata/annotations/order"), "a1,a2,b,");
}

// -- webhooks that cannot be called ----------------------------------------------------------

TEST_F(WebhookAdmissionTest, AWrongCaBundleFailsClosedOrOpenAsThePolicySays) {
  webhook_.on("/ok", [](const json::value& r) { return TestWebhookServer::allow(r, add_label_patch("seen", "yes")); });
  TestWebhookServer other;  // another CA
  json::value fail = hook("ca.example.com", webhook_.url("/ok"), other.ca_bundle(), {job_rule()});
  mutating("ca", {fail});
  json::value status = expect(500, api().post(kJobs, job("one")));
  EXPECT_EQ(str(status, "/reason"), "InternalError");
  EXPECT_EQ(str(status, "/message"),
            "Internal error occurred: failed calling webhook \"ca.example.com\": failed to call webhook: Post \"" +
                webhook_.url("/ok") + "?timeout=10s\": tls: failed to verify certificate: x509: certificate signed by unknown authority");
  EXPECT_TRUE(webhook_.received("/ok").empty());
  fail.as_object()["failurePolicy"] = "Ignore";
  expect(200, api().put(std::string(kMutating) + "/ca",
                        [&] {
                          json::value c = get_ok(std::string(kMutating) + "/ca");
                          c.as_object()["webhooks"] = json::array{fail};
                          return c;
                        }()));
  json::value created = create(kJobs, job("two"));
  EXPECT_EQ(at(created, "/metadata/labels/seen"), nullptr);
}

TEST_F(WebhookAdmissionTest, AHangingWebhookTimesOutWithoutHoldingUpOtherRequests) {
  webhook_.on("/hang", [](const json::value&) { return TestWebhookServer::hang(); });
  validating("hang", {local("hang.example.com", "/hang", {job_rule()}, {{"timeoutSeconds", 1}})});
  std::promise<HttpReply> answered;
  auto start = std::chrono::steady_clock::now();
  std::thread writer([&] {
    ApiClient client(port());
    answered.set_value(client.post(kJobs, job("slow")));
  });
  auto future = answered.get_future();
  // While the webhook hangs, the server answers others.
  ASSERT_TRUE(wait_until([&] { return !webhook_.received("/hang").empty(); }));
  ApiClient reader(port());
  EXPECT_EQ(reader.get("/api/v1/namespaces/team").status, 200);
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  HttpReply reply = future.get();
  writer.join();
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(reply.status, 500);
  json::value status = body_json(reply);
  EXPECT_EQ(str(status, "/message"), "Internal error occurred: failed calling webhook \"hang.example.com\": failed to call webhook: Post \"" +
                                         webhook_.url("/hang") + "?timeout=1s\": context deadline exceeded");
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST_F(WebhookAdmissionTest, AKeptAliveWebhookConnectionCarriesTheNextCalls) {
  webhook_.keep_alive(true);
  webhook_.on("/allow", [](const json::value& review) { return TestWebhookServer::allow(review); });
  validating("allow", {local("allow.example.com", "/allow", {job_rule()})});
  for (int i = 0; i < 5; ++i) expect(201, api().post(kJobs, job("kept-" + std::to_string(i))));
  EXPECT_EQ(webhook_.received("/allow").size(), 5u);
  EXPECT_EQ(webhook_.connections_accepted(), 1u);
}

TEST_F(WebhookAdmissionTest, AWebhookThatClosesAConnectionAsItIsReusedIsCalledAgainOnANewOne) {
  webhook_.keep_alive(true);
  webhook_.drop_requests_on_reused_connections(true);
  webhook_.on("/allow", [](const json::value& review) { return TestWebhookServer::allow(review); });
  validating("allow", {local("allow.example.com", "/allow", {job_rule()})});
  for (int i = 0; i < 3; ++i) expect(201, api().post(kJobs, job("again-" + std::to_string(i))));
  // Each later call went out on the kept connection, found it closed without an answer,
  // and went again on a new one (the webhook records only the requests it answers).
  EXPECT_EQ(webhook_.connections_accepted(), 3u);
  EXPECT_EQ(webhook_.received("/allow").size(), 3u);
}

TEST_F(WebhookAdmissionTest, ARefusedConnectionFailsClosedOrOpen) {
  std::uint16_t nothing = unused_port();
  std::string url = "https://127.0.0.1:" + std::to_string(nothing) + "/x";
  validating("refused", {hook("closed.example.com", url, webhook_.ca_bundle(), {job_rule()}),
                         hook("open.example.com", url, webhook_.ca_bundle(), {job_rule({"UPDATE"})},
                              {{"failurePolicy", "Ignore"}})});
  json::value status = expect(500, api().post(kJobs, job("one")));
  EXPECT_EQ(str(status, "/message"), "Internal error occurred: failed calling webhook \"closed.example.com\": failed to call webhook: Post \"" +
                                         url + "?timeout=10s\": dial tcp 127.0.0.1:" + std::to_string(nothing) +
                                         ": connect: connection refused");
}

TEST_F(WebhookAdmissionTest, GarbageAndAWrongUidAreFailedCalls) {
  webhook_.on("/garbage", [](const json::value&) { return TestWebhookServer::Answer{200, "this is not json", false}; });
  webhook_.on("/uid", [](const json::value& review) {
    TestWebhookServer::Answer a = TestWebhookServer::allow(review);
    json::value doc = *json::parse(a.body);
    doc.as_object()["response"].as_object()["uid"] = "not-the-uid";
    a.body = json::dump(doc);
    return a;
  });
  webhook_.on("/500", [](const json::value&) { return TestWebhookServer::Answer{500, "boom", false}; });
  validating("garbage", {local("garbage.example.com", "/garbage", {job_rule()})});
  json::value status = expect(500, api().post(kJobs, job("one")));
  EXPECT_EQ(str(status, "/message").rfind("Internal error occurred: failed calling webhook \"garbage.example.com\": failed to call webhook: ", 0), 0u)
      << str(status, "/message");
  expect(200, api().del(std::string(kValidating) + "/garbage"));
  validating("uid", {local("uid.example.com", "/uid", {job_rule()})});
  status = expect(500, api().post(kJobs, job("two")));
  EXPECT_NE(str(status, "/message").find("failed calling webhook \"uid.example.com\": received invalid webhook response: "
                                         "expected response.uid=\""),
            std::string::npos)
      << str(status, "/message");
  expect(200, api().del(std::string(kValidating) + "/uid"));
  validating("500", {local("500.example.com", "/500", {job_rule()}, {{"failurePolicy", "Ignore"}})});
  create(kJobs, job("three"));  // failing open
  EXPECT_EQ(webhook_.received("/500").size(), 1u);
}

TEST_F(WebhookAdmissionTest, DryRunReachesWebhooksWithoutSideEffectsAndStoresNothing) {
  webhook_.on("/dry", [](const json::value& r) { return TestWebhookServer::allow(r, add_label_patch("dry", "seen")); });
  mutating("dry", {local("dry.example.com", "/dry", {job_rule()}, {{"sideEffects", "NoneOnDryRun"}})});
  json::value answer = expect(201, api().post(std::string(kJobs) + "?dryRun=All", job("dry")));
  EXPECT_EQ(str(answer, "/metadata/labels/dry"), "seen");
  expect(404, api().get(std::string(kJobs) + "/dry"));
  auto calls = webhook_.received("/dry");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(at(calls[0].review, "/request/dryRun")->as_bool(), true);
}

TEST_F(WebhookAdmissionTest, WebhookConfigurationsThemselvesNeverReachWebhooks) {
  webhook_.on("/all", [](const json::value& r) { return TestWebhookServer::deny(r, 403, "no"); });
  validating("everything", {local("all.example.com", "/all", {rule({"*"}, {"*"}, {"*"}, {"*"})})});
  // The broken webhook can still be removed.
  expect(200, api().del(std::string(kValidating) + "/everything"));
  EXPECT_TRUE(webhook_.received("/all").empty());
}

// -- service references ------------------------------------------------------------------

TEST_F(WebhookAdmissionTest, AServiceReferenceIsCalledAtTheServicesTargetPortAndVerifiedForItsName) {
  TestWebhookServer svc_hook({"hooks.team.svc"});
  svc_hook.on("/mutate", [](const json::value& r) { return TestWebhookServer::allow(r, add_label_patch("via", "service")); });
  json::value h = hook("svc.example.com", "", svc_hook.ca_bundle(), {job_rule()});
  h.as_object()["clientConfig"] = json::object{
      {"service", json::object{{"namespace", "team"}, {"name", "hooks"}, {"path", "/mutate"}, {"port", 443}}},
      {"caBundle", svc_hook.ca_bundle()}};
  mutating("svc", {h});
  // No such Service yet: the call fails (failurePolicy Fail).
  json::value status = expect(500, api().post(kJobs, job("early")));
  EXPECT_EQ(str(status, "/message"),
            "Internal error occurred: failed calling webhook \"svc.example.com\": failed to call webhook: Post "
            "\"https://hooks.team.svc:443/mutate?timeout=10s\": service \"hooks\" not found");
  create("/api/v1/namespaces/team/services",
         json::object{{"metadata", json::object{{"name", "hooks"}}},
                      {"spec", json::object{{"ports", json::array{json::object{{"port", 443}, {"targetPort", svc_hook.port()}}}}}}});
  json::value created = create(kJobs, job("late"));
  EXPECT_EQ(str(created, "/metadata/labels/via"), "service");
  // The same server's certificate for 127.0.0.1 is not valid for hooks.team.svc.
  json::value wrong_name = h;
  wrong_name.as_object()["clientConfig"].as_object()["caBundle"] = webhook_.ca_bundle();
  expect(200, api().put(std::string(kMutating) + "/svc", [&] {
    json::value c = get_ok(std::string(kMutating) + "/svc");
    c.as_object()["webhooks"] = json::array{wrong_name};
    return c;
  }()));
  expect(200, api().patch("/api/v1/namespaces/team/services/hooks",
                          json::value(json::array{json::object{{"op", "replace"}, {"path", "/spec/ports/0/targetPort"},
                                                               {"value", webhook_.port()}}}),
                          "application/json-patch+json"));
  status = expect(500, api().post(kJobs, job("misnamed")));
  EXPECT_NE(str(status, "/message").find("tls: failed to verify certificate: x509: certificate is not valid for hooks.team.svc"),
            std::string::npos)
      << str(status, "/message");
}

// -- no Kueue behaviour inside the server ---------------------------------------------------

// Kueue's defaulting (a queued Job held suspended) comes from the controller's webhooks,
// as on a real cluster: the server itself stores the Job as sent.
TEST_F(WebhookAdmissionTest, AQueuedJobIsStoredAsSentWithoutAWebhook) {
  json::value j = job("queued", {{"kueue.x-k8s.io/queue-name", "main"}});
  j.as_object()["spec"].as_object()["suspend"] = false;
  json::value created = create(kJobs, j);
  EXPECT_FALSE(at(created, "/spec/suspend")->as_bool());
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

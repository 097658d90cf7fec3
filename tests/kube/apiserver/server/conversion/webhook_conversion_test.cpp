// CRD conversion in the embedded server, end to end: a CRD with two versions, objects
// stored in one and read, listed and watched through the other, converted by an HTTPS
// conversion webhook (the test webhook server speaking ConversionReview) or relabelled
// (strategy None); and kube-apiserver's answers when the webhook is down, answers
// garbage, the wrong uid or the wrong number of objects, or refuses one object of a list.

#include <chrono>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/kube/apiserver/server/admission/test_webhook_server.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr std::string_view kGizmoCrd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com";
constexpr std::string_view kV1 = "/apis/example.com/v1/gizmos";
constexpr std::string_view kV2 = "/apis/example.com/v2/gizmos";

json::value version(std::string_view name, bool storage) {
  json::value open = json::object{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  return json::object{
      {"name", name},
      {"served", true},
      {"storage", storage},
      {"schema", json::object{{"openAPIV3Schema", json::object{{"type", "object"}, {"properties", json::object{{"spec", open}}}}}}}};
}

/// Gizmos: v1 (storage) has spec.size, v2 has spec.dimensions.size.
json::value gizmo_crd(json::value conversion) {
  return json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", json::object{{"name", "gizmos.example.com"}}},
      {"spec", json::object{{"group", "example.com"},
                            {"scope", "Cluster"},
                            {"names", json::object{{"plural", "gizmos"}, {"kind", "Gizmo"}}},
                            {"versions", json::array{version("v1", true), version("v2", false)}},
                            {"conversion", std::move(conversion)}}}};
}

json::value webhook_conversion(std::string_view url, std::string_view ca_bundle) {
  return json::object{{"strategy", "Webhook"},
                      {"webhook", json::object{{"clientConfig", json::object{{"url", url}, {"caBundle", ca_bundle}}},
                                               {"conversionReviewVersions", json::array{"v1"}}}}};
}

json::value gizmo_v1(std::string_view name, std::string_view size) {
  return json::object{{"apiVersion", "example.com/v1"},
                      {"kind", "Gizmo"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"size", size}}}};
}

/// The webhook's conversion of one Gizmo to `desired`.
json::value convert_gizmo(json::value object, std::string_view desired) {
  json::object& o = object.as_object();
  json::object spec = o["spec"].is_object() ? o["spec"].as_object() : json::object{};
  if (desired == "example.com/v2" && spec.contains("size")) {
    spec["dimensions"] = json::object{{"size", spec["size"]}};
    spec.erase("size");
  } else if (desired == "example.com/v1" && spec.contains("dimensions")) {
    spec["size"] = spec["dimensions"].as_object()["size"];
    spec.erase("dimensions");
  }
  o["spec"] = std::move(spec);
  o["apiVersion"] = desired;
  return object;
}

/// A ConversionReview answer: `convert` applied to every object, or a failure.
TestWebhookServer::Answer review_answer(const json::value& review,
                                        const std::function<json::value(const json::value&, std::string_view)>& convert,
                                        std::string_view uid_override = {}) {
  const json::value& request = *json::find(review, "request");
  std::string_view desired = json::get_string(request, "desiredAPIVersion");
  json::array converted;
  for (const auto& o : json::find(request, "objects")->as_array()) {
    if (json::get_string(*json::find(o, "metadata"), "name") == "unconvertible") {
      json::object failed{{"uid", json::get_string(request, "uid")},
                          {"result", json::object{{"status", "Failure"}, {"message", "cannot convert unconvertible"}}}};
      return TestWebhookServer::Answer{
          200, json::dump(json::object{{"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "ConversionReview"}, {"response", failed}}), false};
    }
    converted.push_back(convert(o, desired));
  }
  std::string_view uid = uid_override.empty() ? json::get_string(request, "uid") : uid_override;
  json::object response{{"uid", uid}, {"convertedObjects", std::move(converted)}, {"result", json::object{{"status", "Success"}}}};
  return TestWebhookServer::Answer{
      200, json::dump(json::object{{"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "ConversionReview"}, {"response", response}}), false};
}

class WebhookConversion : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    webhook_.on("/convert", [](const json::value& review) { return review_answer(review, convert_gizmo); });
    webhook_.on("/garbage", [](const json::value&) { return TestWebhookServer::Answer{200, "this is not a review", false}; });
    webhook_.on("/wrong-uid", [](const json::value& review) { return review_answer(review, convert_gizmo, "not-the-uid"); });
    webhook_.on("/none-back", [](const json::value& review) {
      auto answer = review_answer(review, convert_gizmo);
      auto doc = json::parse(answer.body);
      doc->as_object()["response"].as_object()["convertedObjects"] = json::array{};
      answer.body = json::dump(*doc);
      return answer;
    });
    webhook_.on("/extra", [](const json::value& review) {
      return review_answer(review, [](const json::value& o, std::string_view desired) {
        json::value out = convert_gizmo(o, desired);
        out.as_object()["extra"] = "not in the schema";
        return out;
      });
    });
    webhook_.on("/renaming", [](const json::value& review) {
      return review_answer(review, [](const json::value& o, std::string_view desired) {
        json::value out = convert_gizmo(o, desired);
        out.as_object()["metadata"].as_object()["name"] = "renamed";
        return out;
      });
    });
  }

  void install(std::string_view path) { create(kCrds, gizmo_crd(webhook_conversion(webhook_.url(path), webhook_.ca_bundle()))); }

  /// The reviews the webhook received, desired versions in order.
  std::vector<std::string> desired_versions() const {
    std::vector<std::string> out;
    for (const auto& r : webhook_.received()) out.emplace_back(json::get_string(*json::find(r.review, "request"), "desiredAPIVersion"));
    return out;
  }

  TestWebhookServer webhook_;
};

TEST_F(WebhookConversion, AnObjectIsReadInTheVersionAskedFor) {
  install("/convert");
  create(kV1, gizmo_v1("g1", "big"));
  json::value v2 = get_ok(std::string(kV2) + "/g1");
  EXPECT_EQ(str(v2, "/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(v2, "/spec/dimensions/size"), "big");
  EXPECT_EQ(at(v2, "/spec/size"), nullptr);
  EXPECT_EQ(desired_versions(), (std::vector<std::string>{"example.com/v2"}));
  // Read through the version it is stored in, it is sent as stored, without a call.
  json::value v1 = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(v1, "/spec/size"), "big");
  EXPECT_EQ(str(v1, "/metadata/resourceVersion"), str(v2, "/metadata/resourceVersion"));
  EXPECT_EQ(webhook_.received().size(), 1u);
}

TEST_F(WebhookConversion, WhatTheWebhookAddsOutsideTheSchemaIsPruned) {
  install("/extra");
  create(kV1, gizmo_v1("g1", "big"));
  json::value v2 = get_ok(std::string(kV2) + "/g1");
  EXPECT_EQ(str(v2, "/spec/dimensions/size"), "big");
  EXPECT_EQ(at(v2, "/extra"), nullptr);
}

TEST_F(WebhookConversion, AListIsConvertedInOneReview) {
  install("/convert");
  create(kV1, gizmo_v1("g1", "big"));
  create(kV1, gizmo_v1("g2", "small"));
  json::value list = get_ok(kV2);
  EXPECT_EQ(str(list, "/apiVersion"), "example.com/v2");
  EXPECT_EQ(item_names(list), (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(str(list, "/items/0/spec/dimensions/size"), "big");
  EXPECT_EQ(str(list, "/items/1/apiVersion"), "example.com/v2");
  ASSERT_EQ(webhook_.received().size(), 1u);
  EXPECT_EQ(json::find(*json::find(webhook_.received()[0].review, "request"), "objects")->as_array().size(), 2u);
}

TEST_F(WebhookConversion, AWatchOnTheOtherVersionSeesConvertedObjects) {
  install("/convert");
  create(kV1, gizmo_v1("before", "big"));
  HttpConnection watch(port());
  auto head = watch.start_stream(std::string(kV2) + "?watch=1");
  ASSERT_TRUE(head);
  ASSERT_EQ(head->status, 200);
  auto first = watch.next_line(10s);
  ASSERT_TRUE(first);
  json::value initial = *json::parse(*first);
  EXPECT_EQ(str(initial, "/type"), "ADDED");
  EXPECT_EQ(str(initial, "/object/spec/dimensions/size"), "big");

  create(kV1, gizmo_v1("after", "small"));
  auto second = watch.next_line(10s);
  ASSERT_TRUE(second);
  json::value added = *json::parse(*second);
  EXPECT_EQ(str(added, "/type"), "ADDED");
  EXPECT_EQ(str(added, "/object/metadata/name"), "after");
  EXPECT_EQ(str(added, "/object/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(added, "/object/spec/dimensions/size"), "small");
}

// An admission webhook registered for the storage version (matchPolicy Equivalent) sees an
// object written through the other version converted by the conversion webhook, not
// relabelled, and what it patches is stored (kube-apiserver converts the versioned
// attributes the same way).
TEST_F(WebhookConversion, AnAdmissionWebhookOfTheOtherVersionSeesTheConvertedObject) {
  install("/convert");
  webhook_.on("/mutate", [](const json::value& review) {
    return TestWebhookServer::allow(
        review, json::array{json::object{{"op", "add"}, {"path", "/metadata/labels"}, {"value", json::object{{"seen", "yes"}}}}});
  });
  json::object hook{{"name", "gizmos.example.com"},
                    {"clientConfig", json::object{{"url", webhook_.url("/mutate")}, {"caBundle", webhook_.ca_bundle()}}},
                    {"rules", json::array{json::object{{"operations", json::array{"CREATE"}},
                                                       {"apiGroups", json::array{"example.com"}},
                                                       {"apiVersions", json::array{"v1"}},
                                                       {"resources", json::array{"gizmos"}}}}},
                    {"sideEffects", "None"},
                    {"admissionReviewVersions", json::array{"v1"}}};
  create("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
         json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                      {"kind", "MutatingWebhookConfiguration"},
                      {"metadata", json::object{{"name", "gizmos"}}},
                      {"webhooks", json::array{std::move(hook)}}});
  create(kV2, convert_gizmo(gizmo_v1("g1", "big"), "example.com/v2"));
  const auto seen = webhook_.received("/mutate");
  ASSERT_EQ(seen.size(), 1u);
  const json::value& object = *json::find_path(seen[0].review, {"request", "object"});
  EXPECT_EQ(json::get_string(object, "apiVersion"), "example.com/v1");
  EXPECT_EQ(str(object, "/spec/size"), "big");
  EXPECT_EQ(at(object, "/spec/dimensions"), nullptr);
  json::value stored = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(stored, "/spec/size"), "big");
  EXPECT_EQ(str(stored, "/metadata/labels/seen"), "yes");
}

// The mutating webhook's patch is made on the object in the webhook's version; the
// request goes on in its own (validation by its version's schema, then storage), so the
// patched object comes back through the conversion webhook, as in kube-apiserver.
TEST_F(WebhookConversion, AMutatingWebhooksPatchComesBackInTheRequestsVersion) {
  json::value crd = gizmo_crd(webhook_conversion(webhook_.url("/convert"), webhook_.ca_bundle()));
  json::object& v2_spec = crd.as_object()["spec"].as_object()["versions"].as_array()[1].as_object()["schema"]
                              .as_object()["openAPIV3Schema"].as_object()["properties"].as_object()["spec"].as_object();
  v2_spec["required"] = json::array{"dimensions"};
  create(kCrds, crd);
  webhook_.on("/mutate", [](const json::value& review) {
    return TestWebhookServer::allow(
        review, json::array{json::object{{"op", "add"}, {"path", "/metadata/labels"}, {"value", json::object{{"seen", "yes"}}}}});
  });
  json::object hook{{"name", "gizmos.example.com"},
                    {"clientConfig", json::object{{"url", webhook_.url("/mutate")}, {"caBundle", webhook_.ca_bundle()}}},
                    {"rules", json::array{json::object{{"operations", json::array{"CREATE"}},
                                                       {"apiGroups", json::array{"example.com"}},
                                                       {"apiVersions", json::array{"v1"}},
                                                       {"resources", json::array{"gizmos"}}}}},
                    {"sideEffects", "None"},
                    {"admissionReviewVersions", json::array{"v1"}}};
  create("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
         json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                      {"kind", "MutatingWebhookConfiguration"},
                      {"metadata", json::object{{"name", "gizmos"}}},
                      {"webhooks", json::array{std::move(hook)}}});
  // Through v2, whose schema requires spec.dimensions: the webhook patches the v1 object
  // (spec.size); validated as that, it would lack dimensions.
  json::value created = create(kV2, convert_gizmo(gizmo_v1("g1", "big"), "example.com/v2"));
  EXPECT_EQ(json::get_string(created, "apiVersion"), "example.com/v2");
  EXPECT_EQ(str(created, "/spec/dimensions/size"), "big");
  EXPECT_EQ(str(created, "/metadata/labels/seen"), "yes");
  EXPECT_EQ(desired_versions(),
            (std::vector<std::string>{"example.com/v1", "", "example.com/v2", "example.com/v1", "example.com/v2"}))
      << "to the webhook's version (then the admission review itself), back to the request's, to storage, and to "
         "the request's version for the answer";
  json::value stored = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(stored, "/spec/size"), "big");
  EXPECT_EQ(str(stored, "/metadata/labels/seen"), "yes");
}

TEST_F(WebhookConversion, AWebhookThatIsDownFailsTheRead) {
  std::uint16_t nothing = unused_port();
  std::string url = fmt::format("https://127.0.0.1:{}/convert", nothing);
  create(kCrds, gizmo_crd(webhook_conversion(url, webhook_.ca_bundle())));
  create(kV1, gizmo_v1("g1", "big"));
  json::value status = expect(500, api().get(std::string(kV2) + "/g1"));
  EXPECT_EQ(str(status, "/message"),
            fmt::format("conversion webhook for example.com/v1, Kind=Gizmo failed: Post \"{}?timeout=30s\": dial tcp "
                        "127.0.0.1:{}: connect: connection refused",
                        url, nothing));
  expect(500, api().get(kV2));
  get_ok(std::string(kV1) + "/g1");  // the storage version needs no webhook
}

TEST_F(WebhookConversion, GarbageAWrongUidOrTheWrongCountFailTheRead) {
  struct Case {
    std::string path;
    std::string message;
  };
  for (const Case& c : {Case{"/garbage", "conversion webhook for example.com/v1, Kind=Gizmo failed: json: cannot unmarshal"},
                        Case{"/wrong-uid", "conversion webhook for example.com/v1, Kind=Gizmo failed: expected response.uid="},
                        Case{"/none-back", "conversion webhook for example.com/v1, Kind=Gizmo returned 0 objects, expected 1"},
                        Case{"/renaming", "conversion webhook for example.com/v1, Kind=Gizmo returned invalid object: must "
                                          "have the same name: g1 != renamed"}}) {
    SCOPED_TRACE(c.path);
    api().del(kGizmoCrd);
    ASSERT_TRUE(wait_gone(kGizmoCrd));
    install(c.path);
    create(kV1, gizmo_v1("g1", "big"));
    json::value status = expect(500, api().get(std::string(kV2) + "/g1"));
    EXPECT_EQ(str(status, "/message").rfind(c.message, 0), 0u) << str(status, "/message");
  }
}

TEST_F(WebhookConversion, AListWithOneUnconvertibleObjectFails) {
  install("/convert");
  create(kV1, gizmo_v1("fine", "big"));
  create(kV1, gizmo_v1("unconvertible", "big"));
  json::value status = expect(500, api().get(kV2));
  EXPECT_EQ(str(status, "/message"), "conversion webhook for example.com/v1, Kind=GizmoList failed: cannot convert unconvertible");
  get_ok(std::string(kV2) + "/fine");
}

TEST_F(WebhookConversion, AWatchWhoseObjectDoesNotConvertEndsWithAnError) {
  install("/convert");
  HttpConnection watch(port());
  auto head = watch.start_stream(std::string(kV2) + "?watch=1");
  ASSERT_TRUE(head);
  create(kV1, gizmo_v1("unconvertible", "big"));
  auto line = watch.next_line(10s);
  ASSERT_TRUE(line);
  json::value event = *json::parse(*line);
  EXPECT_EQ(str(event, "/type"), "ERROR");
  EXPECT_EQ(str(event, "/object/message"), "conversion webhook for example.com/v1, Kind=Gizmo failed: cannot convert unconvertible");
  EXPECT_FALSE(watch.next_line(10s).has_value());
}

TEST_F(WebhookConversion, AWriteThroughTheOtherVersionIsStoredConverted) {
  install("/convert");
  json::value created = create(kV2, convert_gizmo(gizmo_v1("g1", "big"), "example.com/v2"));
  EXPECT_EQ(str(created, "/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(created, "/spec/dimensions/size"), "big");
  // Stored in the storage version: read through it, no call, the storage shape.
  std::size_t calls = webhook_.received().size();
  json::value stored = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(stored, "/spec/size"), "big");
  EXPECT_EQ(at(stored, "/spec/dimensions"), nullptr);
  EXPECT_EQ(webhook_.received().size(), calls);

  // An update and a patch through v2 work on the object as v2 presents it.
  json::value v2 = get_ok(std::string(kV2) + "/g1");
  v2.as_object()["spec"].as_object()["dimensions"].as_object()["size"] = "huge";
  json::value updated = expect(200, api().put(std::string(kV2) + "/g1", v2));
  EXPECT_EQ(str(updated, "/spec/dimensions/size"), "huge");
  EXPECT_EQ(str(get_ok(std::string(kV1) + "/g1"), "/spec/size"), "huge");
  json::value patched = expect(200, api().patch(std::string(kV2) + "/g1",
                                                json::object{{"spec", json::object{{"dimensions", json::object{{"size", "tiny"}}}}}}));
  EXPECT_EQ(str(patched, "/spec/dimensions/size"), "tiny");
  json::value after = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(after, "/spec/size"), "tiny");
  EXPECT_EQ(num(after, "/metadata/generation"), 3);
  EXPECT_EQ(at(after, "/spec/dimensions"), nullptr);
}

TEST_F(WebhookConversion, ServerSideApplyThroughTheOtherVersionKeepsEachManagersApiVersion) {
  install("/convert");
  create(kV1, gizmo_v1("g1", "big"));
  json::value applied = json::object{{"apiVersion", "example.com/v2"},
                                     {"kind", "Gizmo"},
                                     {"metadata", json::object{{"name", "g1"}, {"labels", json::object{{"team", "a"}}}}}};
  json::value answer = expect(200, api().request("PATCH", std::string(kV2) + "/g1?fieldManager=tool", json::dump(applied),
                                                 "application/apply-patch+yaml"));
  EXPECT_EQ(str(answer, "/metadata/labels/team"), "a");
  EXPECT_EQ(str(answer, "/spec/dimensions/size"), "big");
  json::value stored = get_ok(std::string(kV1) + "/g1");
  EXPECT_EQ(str(stored, "/spec/size"), "big");
  std::map<std::string, std::string> versions;
  for (const auto& entry : at(stored, "/metadata/managedFields")->as_array()) {
    versions[std::string(json::get_string(entry, "manager"))] = std::string(json::get_string(entry, "apiVersion"));
  }
  EXPECT_EQ(versions["tool"], "example.com/v2");
}

TEST_F(WebhookConversion, ABodyIsWrittenThroughTheEndpointOfItsVersion) {
  install("/convert");
  json::value status = expect(400, api().post(kV2, gizmo_v1("g1", "big")));
  EXPECT_EQ(str(status, "/message"),
            "the API version in the data (example.com/v1) does not match the expected API version (example.com/v2)");
  expect(404, api().get(std::string(kV1) + "/g1"));
}

TEST_F(WebhookConversion, AWriteTheWebhookCannotConvertIsNotStored) {
  install("/wrong-uid");
  json::value status = expect(500, api().post(kV2, convert_gizmo(gizmo_v1("g1", "big"), "example.com/v2")));
  EXPECT_EQ(str(status, "/message").rfind("conversion webhook for example.com/v2, Kind=Gizmo failed: expected response.uid=", 0), 0u)
      << str(status, "/message");
  expect(404, api().get(std::string(kV1) + "/g1"));
}

TEST_F(WebhookConversion, AConversionThatCannotWorkIsRefusedWithTheCrd) {
  json::value unknown = expect(422, api().post(kCrds, gizmo_crd(json::object{{"strategy", "Magic"}})));
  EXPECT_EQ(cause_fields(unknown), (std::vector<std::string>{"spec.conversion.strategy"}));
  json::value no_client = expect(422, api().post(kCrds, gizmo_crd(json::object{{"strategy", "Webhook"}})));
  EXPECT_EQ(cause_fields(no_client),
            (std::vector<std::string>{"spec.conversion.webhookClientConfig", "spec.conversion.conversionReviewVersions"}));
  json::value review_versions = webhook_conversion(webhook_.url("/convert"), webhook_.ca_bundle());
  review_versions.as_object()["webhook"].as_object()["conversionReviewVersions"] = json::array{"v2"};
  json::value unknown_review = expect(422, api().post(kCrds, gizmo_crd(review_versions)));
  EXPECT_NE(str(unknown_review, "/message").find("must include at least one of v1, v1beta1"), std::string::npos)
      << str(unknown_review, "/message");
}

// -- strategy None ------------------------------------------------------------------

TEST_F(WebhookConversion, StrategyNoneRewritesTheApiVersionOnly) {
  create(kCrds, gizmo_crd(json::object{{"strategy", "None"}}));
  create(kV1, gizmo_v1("g1", "big"));
  json::value v2 = get_ok(std::string(kV2) + "/g1");
  EXPECT_EQ(str(v2, "/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(v2, "/spec/size"), "big");
  EXPECT_TRUE(webhook_.received().empty());
}

TEST_F(WebhookConversion, ObjectsStoredBeforeTheStorageVersionChangedAreServedInTheVersionAskedFor) {
  create(kCrds, gizmo_crd(json::object{{"strategy", "None"}}));
  create(kV1, gizmo_v1("g1", "big"));
  // v2 becomes the storage version; g1 stays stored as v1 until written again.
  json::value crd = get_ok(kGizmoCrd);
  json::value next = gizmo_crd(json::object{{"strategy", "None"}});
  json::object& spec = next.as_object()["spec"].as_object();
  spec["versions"] = json::array{version("v1", false), version("v2", true)};
  next.as_object()["metadata"].as_object()["resourceVersion"] = str(crd, "/metadata/resourceVersion");
  expect(200, api().put(kGizmoCrd, next));
  EXPECT_EQ(str(get_ok(std::string(kV2) + "/g1"), "/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(get_ok(kV2), "/items/0/apiVersion"), "example.com/v2");
  EXPECT_EQ(str(get_ok(std::string(kV1) + "/g1"), "/apiVersion"), "example.com/v1");
}


// A storage migration (kube-storage-version-migrator, `kueuepp takeover`) reads each
// object and writes it back unchanged: an object stored in the old storage version is
// then written in the new one, as kube-apiserver writes it (the encoding differs), even
// through a validating webhook registered for the new version, which sees the old object
// converted (and answers after the request's handler returned).
TEST_F(WebhookConversion, AnUnchangedWriteOfAnObjectStoredInTheOldVersionStoresItInTheNewOne) {
  install("/convert");
  create(kV1, gizmo_v1("g1", "big"));
  webhook_.on("/validate", [](const json::value& review) { return TestWebhookServer::allow(review); });
  json::object hook{{"name", "vgizmos.example.com"},
                    {"clientConfig", json::object{{"url", webhook_.url("/validate")}, {"caBundle", webhook_.ca_bundle()}}},
                    {"rules", json::array{json::object{{"operations", json::array{"UPDATE"}},
                                                       {"apiGroups", json::array{"example.com"}},
                                                       {"apiVersions", json::array{"v2"}},
                                                       {"resources", json::array{"gizmos"}}}}},
                    {"sideEffects", "None"},
                    {"admissionReviewVersions", json::array{"v1"}}};
  create("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
         json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                      {"kind", "ValidatingWebhookConfiguration"},
                      {"metadata", json::object{{"name", "gizmos"}}},
                      {"webhooks", json::array{std::move(hook)}}});
  // v2 becomes the storage version; g1 stays stored as v1 until written again.
  json::value crd = get_ok(kGizmoCrd);
  json::value next = gizmo_crd(webhook_conversion(webhook_.url("/convert"), webhook_.ca_bundle()));
  next.as_object()["spec"].as_object()["versions"] = json::array{version("v1", false), version("v2", true)};
  next.as_object()["metadata"].as_object()["resourceVersion"] = str(crd, "/metadata/resourceVersion");
  expect(200, api().put(kGizmoCrd, next));

  for (std::string_view through : {kV1, kV2}) {
    json::value read = get_ok(std::string(through) + "/g1");
    const std::string before = str(read, "/metadata/resourceVersion");
    json::value written = expect(200, api().put(std::string(through) + "/g1", read));
    if (through == kV1) {
      EXPECT_NE(str(written, "/metadata/resourceVersion"), before) << "an object stored as v1 is written as v2";
    } else {
      EXPECT_EQ(str(written, "/metadata/resourceVersion"), before) << "stored as v2 already: nothing to write";
    }
  }
  EXPECT_EQ(webhook_.received("/validate").size(), 2u);
  // Stored as v2 now: read as v2 without a conversion.
  const std::size_t conversions = webhook_.received("/convert").size();
  EXPECT_EQ(str(get_ok(std::string(kV2) + "/g1"), "/spec/dimensions/size"), "big");
  EXPECT_EQ(webhook_.received("/convert").size(), conversions);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

#include "kube/webhook/admission_review.hpp"

#include <gtest/gtest.h>

#include "core/base64.hpp"

namespace kueuepp::kube::webhook {
namespace {

constexpr const char* kReview = R"({
  "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
  "request": {
    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind": {"group": "batch", "version": "v1", "kind": "Job"},
    "resource": {"group": "batch", "version": "v1", "resource": "jobs"},
    "name": "j", "namespace": "team", "operation": "UPDATE", "dryRun": true,
    "object": {"metadata": {"name": "j"}}, "oldObject": {"metadata": {"name": "j"}}
  }})";

TEST(AdmissionReview, DecodesWhatTheWebhooksLookAt) {
  auto r = decode_admission_review(kReview);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(r->group, "batch");
  EXPECT_EQ(r->kind, "Job");
  EXPECT_EQ(r->resource, "jobs");
  EXPECT_EQ(r->ns, "team");
  EXPECT_EQ(r->operation, Operation::Update);
  EXPECT_TRUE(r->dry_run);
  EXPECT_TRUE(r->object.is_object());
  EXPECT_TRUE(r->old_object.is_object());
}

TEST(AdmissionReview, MalformedInputIsAnErrorThatSaysWhat) {
  struct Case {
    const char* body;
    const char* says;
  };
  const Case cases[] = {
      {"", "not JSON"},
      {"{\"apiVersion\":", "not JSON"},
      {"[1,2]", "not an AdmissionReview object"},
      {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}})", "admission.k8s.io/v1"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod"})", "kind is not AdmissionReview"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "no request"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}})",
       "uid is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"PUT"}})",
       "is not CREATE"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE"}})",
       "request.object is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":"x"}})",
       "not a JSON object"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"UPDATE","object":{}}})",
       "oldObject is missing"},
  };
  for (const auto& c : cases) {
    auto r = decode_admission_review(c.body);
    ASSERT_FALSE(r) << c.body;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << c.body << " -> " << r.error().message;
  }
  EXPECT_EQ(uid_of(R"({"request":{"uid":"abc"}})"), "abc");
  EXPECT_EQ(uid_of("garbage"), "");
}

TEST(AdmissionReview, EncodesTheUidThePatchAndTheRefusal) {
  AdmissionResponse ok = allowed("u1");
  ok.patch.emplace_back(json::object{{"op", "add"}, {"path", "/spec/suspend"}, {"value", true}});
  ok.warnings = {"careful"};
  auto doc = json::parse(encode_admission_review(ok));
  ASSERT_TRUE(doc);
  const auto& r = doc->at("response");
  EXPECT_EQ(doc->at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(doc->at("kind"), "AdmissionReview");
  EXPECT_EQ(r.at("uid"), "u1");
  EXPECT_EQ(r.at("allowed"), true);
  EXPECT_EQ(r.at("patchType"), "JSONPatch");
  EXPECT_EQ(*core::base64_decode(r.at("patch").as_string()), R"([{"op":"add","path":"/spec/suspend","value":true}])");
  EXPECT_EQ(r.at("warnings").as_array().size(), 1u);
  EXPECT_FALSE(r.as_object().contains("status"));

  auto no = json::parse(encode_admission_review(denied("u2", "spec: Invalid value")));
  ASSERT_TRUE(no);
  const auto& n = no->at("response");
  EXPECT_EQ(n.at("allowed"), false);
  EXPECT_EQ(n.at("status").at("code"), 403);
  EXPECT_EQ(n.at("status").at("reason"), "Forbidden");
  EXPECT_EQ(n.at("status").at("message"), "spec: Invalid value");
  EXPECT_FALSE(n.as_object().contains("patch"));
}

}  // namespace
}  // namespace kueuepp::kube::webhook

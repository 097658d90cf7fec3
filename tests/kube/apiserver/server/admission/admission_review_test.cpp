// The AdmissionReview a webhook is sent and how its answer is checked, with
// kube-apiserver's words for each problem.

#include <gtest/gtest.h>

#include "kube/apiserver/server/admission/admission_review.hpp"

namespace kueuepp::kube::server {
namespace {

std::string answer(std::string_view response_members, std::string_view api_version = "admission.k8s.io/v1") {
  return R"({"apiVersion":")" + std::string(api_version) + R"(","kind":"AdmissionReview","response":{)" +
         std::string(response_members) + "}}";
}

TEST(AdmissionResponse, AnAllowedAnswerWithAPatchIsRead) {
  // [{"op":"add","path":"/a","value":1}]
  auto r = read_admission_response(
      answer(R"("uid":"u1","allowed":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d","warnings":["w"])"),
      "u1", "v1", true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->allowed);
  EXPECT_EQ(r->patch, R"([{"op":"add","path":"/a","value":1}])");
  EXPECT_EQ(r->warnings, std::vector<std::string>{"w"});
}

TEST(AdmissionResponse, ProblemsAreWordedAsKubeApiserverWordsThem) {
  auto reason = [](std::string_view body, bool mutating = true) {
    auto r = read_admission_response(body, "u1", "v1", mutating);
    return r ? std::string("accepted") : r.error().message;
  };
  EXPECT_EQ(reason(answer(R"("uid":"u2","allowed":true)")),
            "received invalid webhook response: expected response.uid=\"u1\", got \"u2\"");
  EXPECT_EQ(reason(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})"),
            "received invalid webhook response: webhook response was absent");
  EXPECT_EQ(reason(answer(R"("uid":"u1","allowed":true,"patch":"W10=")")),
            "received invalid webhook response: webhook returned response.patch but not response.patchType");
  EXPECT_EQ(reason(answer(R"("uid":"u1","allowed":true,"patchType":"JSONPatch")")),
            "received invalid webhook response: webhook returned response.patchType but not response.patch");
  EXPECT_EQ(reason(answer(R"("uid":"u1","allowed":true,"patchType":"JSONPatch","patch":"W10=")"), false),
            "received invalid webhook response: validating webhook may not return response.patch");
  EXPECT_EQ(reason(answer(R"("uid":"u1","allowed":true)", "admission.k8s.io/v1beta1")),
            "received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
            "Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview");
  EXPECT_EQ(reason("not json").rfind("failed to call webhook: ", 0), 0u);
  // v1beta1 answers are not checked for the uid (kube-apiserver does not either).
  EXPECT_TRUE(read_admission_response(answer(R"("uid":"other","allowed":true)", "admission.k8s.io/v1beta1"), "u1",
                                      "v1beta1", true));
}

TEST(AdmissionErrors, DenialsKeepTheWebhooksStatusCallFailuresAre500) {
  json::value result = json::object{{"code", 409}, {"message", "busy"}, {"reason", "Conflict"}};
  ApiError denied = webhook_denied("w.example.com", result);
  EXPECT_EQ(denied.code, 409);
  EXPECT_EQ(denied.reason, "Conflict");
  EXPECT_EQ(denied.message, "admission webhook \"w.example.com\" denied the request: busy");
  EXPECT_EQ(webhook_denied("w.example.com", json::object{{"code", 200}, {"reason", "Why"}}).code, 400);
  EXPECT_EQ(webhook_denied("w.example.com", json::object{{"reason", "Why"}}).message,
            "admission webhook \"w.example.com\" denied the request: Why");
  ApiError failed = webhook_call_failed("w.example.com", "failed to call webhook: EOF");
  EXPECT_EQ(failed.code, 500);
  EXPECT_EQ(failed.reason, "InternalError");
  EXPECT_EQ(failed.message, "Internal error occurred: failed calling webhook \"w.example.com\": failed to call webhook: EOF");
  EXPECT_EQ(webhook_no_dry_run("w.example.com").message, "admission webhook \"w.example.com\" does not support dry run");
}

TEST(ServerAdmissionReview, UserInfoIsTheRequestersOrTheServersOwn) {
  ResourceType job;
  job.group = "batch";
  job.version = "v1";
  job.plural = "jobs";
  job.kind = "Job";
  ReviewRequest rr;
  rr.resource = &job;
  rr.requested = &job;
  EXPECT_EQ(json::dump(make_admission_review(rr).at("request").at("userInfo")),
            R"({"username":"system:apiserver","groups":["system:masters"]})");
  RequestUser alice{"alice", {"team-a", "system:authenticated"}, {{"scopes", {"read"}}}, "u-1"};
  rr.user = &alice;
  EXPECT_EQ(json::dump(make_admission_review(rr).at("request").at("userInfo")),
            R"({"username":"alice","uid":"u-1","groups":["team-a","system:authenticated"],"extra":{"scopes":["read"]}})");
}

TEST(ServerAdmissionReview, TheRequestNamesKindResourceAndTheRequestedOnes) {
  ResourceType job;
  job.group = "batch";
  job.version = "v1";
  job.plural = "jobs";
  job.kind = "Job";
  json::value obj = json::object{{"kind", "Job"}};
  json::value options = json::object{{"kind", "CreateOptions"}};
  ReviewRequest rr;
  rr.uid = "u1";
  rr.review_version = "v1";
  rr.resource = &job;
  rr.requested = &job;
  rr.subresource = "status";
  rr.name = "j";
  rr.ns = "team";
  rr.operation = "UPDATE";
  rr.object = &obj;
  rr.options = &options;
  RequestUser user{"kueuepp", {"system:masters", "system:authenticated"}, {}, ""};
  rr.user = &user;
  json::value review = make_admission_review(rr);
  EXPECT_EQ(json::dump(review),
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u1",)"
            R"("kind":{"group":"batch","version":"v1","kind":"Job"},"resource":{"group":"batch","version":"v1","resource":"jobs"},)"
            R"("subResource":"status","requestKind":{"group":"batch","version":"v1","kind":"Job"},)"
            R"("requestResource":{"group":"batch","version":"v1","resource":"jobs"},"requestSubResource":"status",)"
            R"("name":"j","namespace":"team","operation":"UPDATE",)"
            R"("userInfo":{"username":"kueuepp","groups":["system:masters","system:authenticated"]},)"
            R"("object":{"kind":"Job"},"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions"}}})");
}

}  // namespace
}  // namespace kueuepp::kube::server

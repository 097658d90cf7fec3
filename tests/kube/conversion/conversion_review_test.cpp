#include "kube/conversion/conversion_review.hpp"

#include <gtest/gtest.h>

#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {
namespace {

json::value body_of(const ConversionHttpAnswer& answer) {
  auto v = json::parse(answer.body);
  EXPECT_TRUE(v.has_value()) << answer.body;
  return v ? *v : json::value{};
}

constexpr std::string_view kTwoObjects = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",
  "request":{"uid":"u-1","desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[
   {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"a"},"spec":{"cohort":"c"}},
   {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"LocalQueue","metadata":{"name":"q","namespace":"ns"},"spec":{"clusterQueue":"a"}}]}})";

TEST(ConversionReview, ConvertsEveryObjectInOrderAndEchoesTheUid) {
  const auto answer = answer_conversion_review(kTwoObjects);
  ASSERT_EQ(answer.http_status, 200);
  const auto review = body_of(answer);
  EXPECT_EQ(json::get_string(review, "apiVersion"), "apiextensions.k8s.io/v1");
  EXPECT_EQ(json::get_string(review, "kind"), "ConversionReview");
  EXPECT_EQ(json::get_string(*json::find(review, "response"), "uid"), "u-1");
  EXPECT_EQ(json::get_string(*json::find_path(review, {"response", "result"}), "status"), "Success");
  const auto& objects = json::find_path(review, {"response", "convertedObjects"})->as_array();
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(json::get_string(objects[0], "kind"), "ClusterQueue");
  EXPECT_EQ(json::get_string(*json::find(objects[0], "spec"), "cohortName"), "c");
  EXPECT_EQ(json::get_string(objects[1], "apiVersion"), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(json::get_string(objects[1], "kind"), "LocalQueue");
}

TEST(ConversionReview, AnObjectThatCannotBeConvertedFailsTheReviewAndIsNamed) {
  const auto answer = answer_conversion_review(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",
    "request":{"uid":"u-2","desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[
     {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"ok"}},
     {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"bad"},"spec":{"cohort":["x"]}}]}})");
  ASSERT_EQ(answer.http_status, 200);
  const auto review = body_of(answer);
  EXPECT_EQ(json::get_string(*json::find(review, "response"), "uid"), "u-2");
  const auto* result = json::find_path(review, {"response", "result"});
  EXPECT_EQ(json::get_string(*result, "status"), "Failure");
  EXPECT_EQ(json::get_string(*result, "message"), R"(ClusterQueue "bad": spec.cohort is ["x"], want a string)");
  EXPECT_EQ(json::find_path(review, {"response", "convertedObjects"}), nullptr);
}

TEST(ConversionReview, WrongKindOrVersionFailsTheReview) {
  for (const auto* object : {R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"}})",
                             R"({"apiVersion":"kueue.x-k8s.io/v1","kind":"Workload","metadata":{"name":"w"}})", "3"}) {
    const auto answer = answer_conversion_review(std::string(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",)") +
                                                 R"("request":{"uid":"u","desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[)" + object + "]}}");
    ASSERT_EQ(answer.http_status, 200) << object;
    const auto review = body_of(answer);
    EXPECT_EQ(json::get_string(*json::find_path(review, {"response", "result"}), "status"), "Failure") << object;
    EXPECT_FALSE(json::get_string(*json::find_path(review, {"response", "result"}), "message").empty());
  }
}

TEST(ConversionReview, ABodyThatIsNotAReviewIsABadRequest) {
  for (const auto* body : {"{not json", "[]", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
                           R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"})",
                           R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{}})"}) {
    const auto answer = answer_conversion_review(body);
    EXPECT_EQ(answer.http_status, 400) << body;
    EXPECT_FALSE(answer.body.empty());
  }
}

}  // namespace
}  // namespace kueuepp::kube::conversion

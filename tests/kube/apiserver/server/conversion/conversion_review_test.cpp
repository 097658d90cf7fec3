// The ConversionReview codec and kube-apiserver's checks of a conversion webhook's answer,
// without a server: each refusal with kube-apiserver's words.

#include <gtest/gtest.h>

#include "kube/apiserver/server/conversion/conversion_review.hpp"

namespace kueuepp::kube::server {
namespace {

json::value gizmo(std::string_view api_version, json::object metadata) {
  return json::object{{"apiVersion", api_version}, {"kind", "Gizmo"}, {"metadata", std::move(metadata)}};
}

json::value original() {
  return gizmo("example.com/v1", json::object{{"name", "g"},
                                              {"uid", "u-1"},
                                              {"resourceVersion", "7"},
                                              {"labels", json::object{{"a", "1"}}},
                                              {"finalizers", json::array{"keep"}}});
}

std::string answer(std::string_view uid, json::array converted, std::string_view status = "Success",
                   std::string_view message = "") {
  json::object result{{"status", status}};
  if (!message.empty()) result["message"] = message;
  return json::dump(json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "ConversionReview"},
      {"response", json::object{{"uid", uid}, {"convertedObjects", std::move(converted)}, {"result", std::move(result)}}}});
}

TEST(ServerConversionReview, TheRequestCarriesTheObjectsTheUidAndTheDesiredVersion) {
  json::value o = original();
  auto review = json::parse(make_conversion_review("v1", "uid-1", "example.com/v2", {&o}));
  ASSERT_TRUE(review);
  EXPECT_EQ(json::get_string(*review, "apiVersion"), "apiextensions.k8s.io/v1");
  EXPECT_EQ(json::get_string(*review, "kind"), "ConversionReview");
  const json::value* request = json::find(*review, "request");
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(json::get_string(*request, "uid"), "uid-1");
  EXPECT_EQ(json::get_string(*request, "desiredAPIVersion"), "example.com/v2");
  ASSERT_EQ(json::find(*request, "objects")->as_array().size(), 1u);
  EXPECT_EQ(json::find(*request, "objects")->as_array()[0], o);
}

TEST(ServerConversionReview, AnAnswerIsCheckedAsKubeApiserverChecksIt) {
  json::value converted = gizmo("example.com/v2", json::object{{"name", "g"}, {"uid", "u-1"}});
  auto ok = read_conversion_response(answer("uid-1", json::array{converted}), "v1", "uid-1");
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 1u);

  auto wrong_uid = read_conversion_response(answer("other", json::array{converted}), "v1", "uid-1");
  ASSERT_FALSE(wrong_uid);
  EXPECT_EQ(wrong_uid.error().message, "expected response.uid=\"uid-1\", got \"other\"");

  auto failure = read_conversion_response(answer("uid-1", {}, "Failure", "cannot convert gizmos"), "v1", "uid-1");
  ASSERT_FALSE(failure);
  EXPECT_EQ(failure.error().message, "cannot convert gizmos");

  auto silent = read_conversion_response(answer("uid-1", {}, "Failure"), "v1", "uid-1");
  ASSERT_FALSE(silent);
  EXPECT_EQ(silent.error().message, "response.result.status was 'Failure', not 'Success'");

  auto not_a_review = read_conversion_response(R"({"kind":"Status","apiVersion":"v1"})", "v1", "uid-1");
  ASSERT_FALSE(not_a_review);
  EXPECT_EQ(not_a_review.error().message,
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /v1, Kind=Status");

  auto no_response = read_conversion_response(R"({"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1"})",
                                              "v1", "uid-1");
  ASSERT_FALSE(no_response);
  EXPECT_EQ(no_response.error().message, "no response provided");

  EXPECT_FALSE(read_conversion_response("not json", "v1", "uid-1"));
}

TEST(ServerConversionReview, AConvertedObjectMustKeepItsVersionKindAndIdentity) {
  json::value o = original();
  auto wrong_version = check_converted_type(o, gizmo("example.com/v1", {}), "example.com/v2");
  ASSERT_FALSE(wrong_version);
  EXPECT_EQ(wrong_version.error().message, "invalid groupVersion (expected example.com/v2, received example.com/v1)");

  json::value other_kind = gizmo("example.com/v2", {});
  other_kind.as_object()["kind"] = "Widget";
  auto wrong_kind = check_converted_type(o, other_kind, "example.com/v2");
  ASSERT_FALSE(wrong_kind);
  EXPECT_EQ(wrong_kind.error().message, "invalid kind (expected Gizmo, received Widget)");

  auto renamed = check_converted_identity(o, gizmo("example.com/v2", json::object{{"name", "h"}, {"uid", "u-1"}}));
  ASSERT_FALSE(renamed);
  EXPECT_EQ(renamed.error().message, "must have the same name: g != h");
  auto new_uid = check_converted_identity(o, gizmo("example.com/v2", json::object{{"name", "g"}, {"uid", "u-2"}}));
  ASSERT_FALSE(new_uid);
  EXPECT_EQ(new_uid.error().message, "must have the same UID: u-1 != u-2");
  EXPECT_TRUE(check_converted_identity(o, gizmo("example.com/v2", json::object{{"name", "g"}, {"uid", "u-1"}})));
}

TEST(ServerConversionReview, MetadataIsRestoredButForLabelsAndAnnotations) {
  json::value answered = gizmo("example.com/v2", json::object{{"name", "g"},
                                                              {"uid", "u-1"},
                                                              {"resourceVersion", "99"},
                                                              {"finalizers", json::array{}},
                                                              {"labels", json::object{{"a", "2"}}},
                                                              {"annotations", json::object{{"note", "converted"}}}});
  auto kept = restore_metadata(original(), answered);
  ASSERT_TRUE(kept) << kept.error().message;
  const json::value& meta = *json::find(*kept, "metadata");
  EXPECT_EQ(json::get_string(meta, "resourceVersion"), "7");
  EXPECT_EQ(*json::find(meta, "finalizers"), (json::array{"keep"}));
  EXPECT_EQ(*json::find(meta, "labels"), (json::object{{"a", "2"}}));
  EXPECT_EQ(*json::find(meta, "annotations"), (json::object{{"note", "converted"}}));
  EXPECT_EQ(json::get_string(*kept, "apiVersion"), "example.com/v2");

  // Labels the webhook dropped are dropped.
  auto unlabelled = restore_metadata(original(), gizmo("example.com/v2", json::object{{"name", "g"}}));
  ASSERT_TRUE(unlabelled);
  EXPECT_EQ(json::find(*json::find(*unlabelled, "metadata"), "labels"), nullptr);

  auto bad_label = restore_metadata(original(), gizmo("example.com/v2", json::object{{"labels", json::object{{"a", "no spaces"}}}}));
  ASSERT_FALSE(bad_label);
  EXPECT_NE(bad_label.error().message.find("metadata.labels: Invalid value: \"no spaces\""), std::string::npos)
      << bad_label.error().message;

  auto not_string = restore_metadata(original(), gizmo("example.com/v2", json::object{{"labels", json::object{{"a", 1}}}}));
  ASSERT_FALSE(not_string);
  EXPECT_EQ(not_string.error().message, "metadata.labels[a] must be a string, but is int64 in converted object");

  json::value no_meta = json::object{{"apiVersion", "example.com/v2"}, {"kind", "Gizmo"}};
  auto missing = restore_metadata(original(), no_meta);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "missing metadata in converted object");
}

}  // namespace
}  // namespace kueuepp::kube::server

#include "kube/conversion/conversion_review.hpp"

#include <fmt/format.h>

#include "kube/conversion/kueue_conversion.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {
namespace {

constexpr std::string_view kReviewV1 = "apiextensions.k8s.io/v1";
constexpr std::string_view kReviewV1beta1 = "apiextensions.k8s.io/v1beta1";

ConversionHttpAnswer bad_request(std::string message) {
  return {400, "text/plain; charset=utf-8", std::move(message) + "\n"};
}

std::string response_body(std::string_view review_api_version, std::string_view uid, json::array converted,
                          const Error* failure) {
  json::object result;
  json::object response;
  response["uid"] = json::string(uid);
  if (failure == nullptr) {
    result["status"] = "Success";
    response["convertedObjects"] = std::move(converted);
  } else {
    result["status"] = "Failure";
    result["message"] = json::string(failure->message);
  }
  response["result"] = std::move(result);
  json::object review;
  review["apiVersion"] = json::string(review_api_version);
  review["kind"] = "ConversionReview";
  review["response"] = std::move(response);
  return json::dump(review);
}

}  // namespace

ConversionHttpAnswer answer_conversion_review(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc) return bad_request("the body is not JSON: " + doc.error().message);
  if (!doc->is_object()) return bad_request("the body is not a ConversionReview object");
  const auto api_version = json::get_string(*doc, "apiVersion");
  if (api_version != kReviewV1 && api_version != kReviewV1beta1) {
    return bad_request(fmt::format("apiVersion \"{}\" is not a ConversionReview version this webhook answers: send {} "
                                   "(conversionReviewVersions: [v1])", api_version, kReviewV1));
  }
  if (json::get_string(*doc, "kind") != "ConversionReview") return bad_request("kind is not ConversionReview");
  const auto* request = json::find(*doc, "request");
  if (request == nullptr || !request->is_object()) return bad_request("the ConversionReview has no request");
  const auto uid = json::get_string(*request, "uid");
  if (uid.empty()) return bad_request("the ConversionReview's request has no uid");

  const auto desired = json::get_string(*request, "desiredAPIVersion");
  const auto* objects = json::find(*request, "objects");
  Error failure;
  if (desired.empty()) {
    failure.message = "request.desiredAPIVersion is empty: say which version to convert to";
  } else if (objects != nullptr && !objects->is_null() && !objects->is_array()) {
    failure.message = "request.objects is not a list";
  } else {
    json::array converted;
    if (objects != nullptr && objects->is_array()) {
      converted.reserve(objects->get_array().size());
      for (const auto& object : objects->get_array()) {
        auto result = convert_kueue_object(object, desired);
        if (!result) {
          failure = std::move(result).error();
          break;
        }
        converted.emplace_back(std::move(*result));
      }
    }
    if (failure.message.empty()) return {200, "application/json", response_body(api_version, uid, std::move(converted), nullptr)};
  }
  return {200, "application/json", response_body(api_version, uid, {}, &failure)};
}

}  // namespace kueuepp::kube::conversion

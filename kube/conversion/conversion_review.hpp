#pragma once

// The conversion webhook's side of an apiextensions.k8s.io ConversionReview (v1, or the
// identical v1beta1), answered as Kueue's webhook (controller-runtime) answers: the
// request's uid echoed, one converted object per object sent, in order, and a result of
// Success; or, when any object cannot be converted, no objects and a Failure whose
// message names the object and what is wrong. A body that is not a ConversionReview
// request is an HTTP 400 with the reason.

#include <string>
#include <string_view>

namespace kueuepp::kube::conversion {

/// Where kueuepp's webhook server answers ConversionReviews (controller-runtime's path,
/// as Kueue's CRDs name it).
inline constexpr std::string_view kConversionWebhookPath = "/convert";

struct ConversionHttpAnswer {
  int http_status = 200;
  std::string content_type = "application/json";
  std::string body;
};

ConversionHttpAnswer answer_conversion_review(std::string_view body);

}  // namespace kueuepp::kube::conversion

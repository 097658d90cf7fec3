#pragma once

// The apiextensions.k8s.io ConversionReview a CRD's conversion webhook is called with,
// and the checks kube-apiserver makes of its answer (pkg/apiserver/conversion/
// webhook_converter.go): the review's kind and version, the request's uid, a Success
// result, one converted object per object sent, each of the desired apiVersion, of the
// same kind, name, namespace and uid, with metadata changed in labels and annotations at
// most (anything else in metadata is put back from the original). Errors are
// kube-apiserver's words, without the "conversion webhook for ..." prefix the converter adds.

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

/// The review sent: `review_version` is "v1" or "v1beta1" (of apiextensions.k8s.io).
std::string make_conversion_review(std::string_view review_version, std::string_view uid,
                                   std::string_view desired_api_version, const std::vector<const json::value*>& objects);

/// The convertedObjects of a webhook's 2xx answer, once the review itself checks out.
Expected<std::vector<json::value>> read_conversion_response(std::string_view body, std::string_view review_version,
                                                            std::string_view uid);

/// Why `converted` cannot stand for `original` in `desired_api_version`, in the order
/// kube-apiserver checks: its groupVersion, its kind ("invalid groupVersion (expected ...,
/// received ...)"), ...
Status check_converted_type(const json::value& original, const json::value& converted,
                            std::string_view desired_api_version);
/// ... then its name, namespace and uid ("must have the same name: a != b").
Status check_converted_identity(const json::value& original, const json::value& converted);
/// The object to keep: `converted` with the original's metadata, but for labels and
/// annotations as the webhook returned them (checked as label and annotation values are).
Expected<json::value> restore_metadata(const json::value& original, json::value converted);

}  // namespace kueuepp::kube::server

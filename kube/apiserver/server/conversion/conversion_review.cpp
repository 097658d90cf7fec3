#include "kube/apiserver/server/conversion/conversion_review.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kGroup = "apiextensions.k8s.io";

std::string_view string_at(const json::value& v, std::string_view key) {
  const json::value* f = v.is_object() ? json::find(v, key) : nullptr;
  return f != nullptr && f->is_string() ? std::string_view(f->get_string()) : std::string_view();
}

std::string_view meta_string(const json::value& obj, std::string_view key) {
  const json::value* meta = obj.is_object() ? json::find(obj, "metadata") : nullptr;
  return meta != nullptr ? string_at(*meta, key) : std::string_view();
}

/// What Go's %T prints for a decoded JSON value.
std::string_view go_type_name(const json::value& v) {
  if (v.is_null()) return "<nil>";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_object()) return "map[string]interface {}";
  if (v.is_array()) return "[]interface {}";
  return "int64";
}

/// "group/version" as Go's schema.GroupVersion prints it ("version" for the core group).
std::string group_version_of(const json::value& obj) { return std::string(string_at(obj, "apiVersion")); }

/// Go's field.ErrorList.ToAggregate() text of the problems with one map's entries.
std::string aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += ", ";
    out += errors[i];
  }
  return out + "]";
}

/// The problems of changed labels or annotations, worded as metav1validation.ValidateLabels
/// and apivalidation.ValidateAnnotations word them.
std::vector<std::string> map_problems(const json::object& entries, bool labels) {
  std::vector<std::string> out;
  std::string_view path = labels ? "metadata.labels" : "metadata.annotation";
  std::size_t total = 0;
  for (const auto& [key, value] : entries) {
    for (const auto& p : qualified_name_problems(key)) {
      out.push_back(fmt::format("{}: Invalid value: \"{}\": {}", path, std::string_view(key), p));
    }
    if (labels) {
      for (const auto& p : label_value_problems(value.get_string())) {
        out.push_back(fmt::format("{}: Invalid value: \"{}\": {}", path, std::string_view(value.get_string()), p));
      }
    }
    total += key.size() + value.get_string().size();
  }
  constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;
  if (!labels && total > kTotalAnnotationSizeLimit) {
    out.push_back(fmt::format("{}: Too long: may not be more than {} bytes", path, kTotalAnnotationSizeLimit));
  }
  return out;
}

}  // namespace

Expected<json::value> restore_metadata(const json::value& original, json::value converted) {
  json::value* response_meta = json::find(converted, "metadata");
  if (response_meta == nullptr) return fail("missing metadata in converted object");
  if (!response_meta->is_object()) {
    return fail(fmt::format("invalid metadata of type {} in converted object", go_type_name(*response_meta)));
  }
  json::object from_webhook = response_meta->as_object();
  const json::value* original_meta = json::find(original, "metadata");
  json::object restored = original_meta != nullptr && original_meta->is_object() ? original_meta->as_object() : json::object{};
  for (std::string_view field : {"labels", "annotations"}) {
    const json::value* answered = from_webhook.if_contains(field);
    if (answered == nullptr || answered->is_null()) {
      restored.erase(field);
      continue;
    }
    if (!answered->is_object()) {
      return fail(fmt::format("invalid metadata.{} of type {} in converted object", field, go_type_name(*answered)));
    }
    const json::value* before = restored.if_contains(field);
    bool changed = before == nullptr || !before->is_object() || before->as_object().size() != answered->as_object().size();
    for (const auto& [key, value] : answered->as_object()) {
      if (!value.is_string()) {
        return fail(fmt::format("metadata.{}[{}] must be a string, but is {} in converted object", field,
                                std::string_view(key), go_type_name(value)));
      }
      if (!changed) {
        const json::value* old = before->as_object().if_contains(key);
        changed = old == nullptr || *old != value;
      }
    }
    if (changed) {
      auto problems = map_problems(answered->as_object(), field == "labels");
      if (!problems.empty()) return fail(aggregate(problems));
    }
    restored[field] = *answered;
  }
  converted.as_object()["metadata"] = std::move(restored);
  return converted;
}

std::string make_conversion_review(std::string_view review_version, std::string_view uid,
                                   std::string_view desired_api_version, const std::vector<const json::value*>& objects) {
  json::array items;
  items.reserve(objects.size());
  for (const json::value* o : objects) items.push_back(*o);
  json::object request{{"uid", uid}, {"desiredAPIVersion", desired_api_version}, {"objects", std::move(items)}};
  json::object review{{"kind", "ConversionReview"},
                      {"apiVersion", fmt::format("{}/{}", kGroup, review_version)},
                      {"request", std::move(request)}};
  return json::dump(review);
}

Expected<std::vector<json::value>> read_conversion_response(std::string_view body, std::string_view review_version,
                                                            std::string_view uid) {
  auto doc = json::parse(body);
  if (!doc) return fail(fmt::format("json: cannot unmarshal the answer: {}", doc.error().message));
  if (!doc->is_object()) return fail("json: cannot unmarshal the answer into a ConversionReview");
  std::string expected = fmt::format("{}/{}", kGroup, review_version);
  if (review_version == "v1") {
    std::string got_kind(string_at(*doc, "kind"));
    std::string got_version(string_at(*doc, "apiVersion"));
    if (got_kind != "ConversionReview" || got_version != expected) {
      // Go prints group "/" version, so the core group's "v1" reads "/v1".
      std::string_view slash = got_version.find('/') == std::string::npos ? "/" : "";
      return fail(fmt::format("expected webhook response of {}, Kind=ConversionReview, got {}{}, Kind={}", expected,
                              slash, got_version, got_kind));
    }
  }
  const json::value* response = json::find(*doc, "response");
  if (response == nullptr || !response->is_object()) return fail("no response provided");
  if (review_version == "v1" && string_at(*response, "uid") != uid) {
    return fail(fmt::format("expected response.uid=\"{}\", got \"{}\"", uid, string_at(*response, "uid")));
  }
  const json::value* result = json::find(*response, "result");
  std::string_view status = result != nullptr ? string_at(*result, "status") : std::string_view();
  if (status != "Success") {
    std::string_view message = result != nullptr ? string_at(*result, "message") : std::string_view();
    if (!message.empty()) return fail(std::string(message));
    return fail(fmt::format("response.result.status was '{}', not 'Success'", status));
  }
  std::vector<json::value> out;
  if (const json::value* objects = json::find(*response, "convertedObjects"); objects != nullptr && objects->is_array()) {
    out.assign(objects->as_array().begin(), objects->as_array().end());
  }
  return out;
}

Status check_converted_type(const json::value& original, const json::value& converted,
                            std::string_view desired_api_version) {
  if (!converted.is_object()) return fail("invalid type, expected=Unstructured");
  std::string got = group_version_of(converted);
  if (got != desired_api_version) {
    return fail(fmt::format("invalid groupVersion (expected {}, received {})", desired_api_version, got));
  }
  std::string_view kind = string_at(original, "kind");
  if (string_at(converted, "kind") != kind) {
    return fail(fmt::format("invalid kind (expected {}, received {})", kind, string_at(converted, "kind")));
  }
  return {};
}

Status check_converted_identity(const json::value& original, const json::value& converted) {
  if (string_at(original, "kind") != string_at(converted, "kind")) {
    return fail(fmt::format("must have the same kind: {} != {}", string_at(original, "kind"), string_at(converted, "kind")));
  }
  for (std::string_view field : {"name", "namespace", "uid"}) {
    std::string_view a = meta_string(original, field);
    std::string_view b = meta_string(converted, field);
    if (a != b) return fail(fmt::format("must have the same {}: {} != {}", field == "uid" ? "UID" : field, a, b));
  }
  return {};
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/api/body_decoder.hpp"

#include <fmt/format.h>

#include "kube/json/yaml.hpp"
#include "kube/apiserver/server/api/decode_error_text.hpp"
#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

ApiResult<json::value> parse_body(std::string_view content_type, std::string_view body, std::string_view kind) {
  MediaType media = parse_media_type(content_type);
  bool yaml = media.is("application", "yaml") || media.is("application", "x-yaml") || media.is("text", "yaml");
  bool json_type = content_type.empty() || media.is("application", "json");
  if (!yaml && !json_type) {
    return api_fail(unsupported_media_type(fmt::format(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml")));
  }
  Expected<json::value> doc = yaml ? json::parse_yaml(body) : json::parse(body);
  if (!doc || !doc->is_object()) {
    const std::string parser_text = doc ? std::string("the request body is not a JSON object") : doc.error().message;
    std::string why = parser_text;
    if (!yaml) why = go_probe_error(body, parser_text).value_or(parser_text);
    return api_fail(bad_request(fmt::format(
        "the object provided is unrecognized (must be of type {}): couldn't get version/kind; "
        "{} parse error: {} ({})",
        kind, yaml ? "yaml" : "json", why, summarize_body(body))));
  }
  return std::move(*doc);
}

ApiStatus check_type_meta(json::object& obj, const ResourceType& view) {
  const json::value* kind_v = obj.if_contains("kind");
  const json::value* api_v = obj.if_contains("apiVersion");
  if ((kind_v != nullptr && !kind_v->is_string()) || (api_v != nullptr && !api_v->is_string())) {
    return api_fail(bad_request(fmt::format(
        "the object provided is unrecognized (must be of type {}): kind and apiVersion must be strings", view.kind)));
  }
  std::string_view kind = kind_v != nullptr ? std::string_view(kind_v->get_string()) : std::string_view();
  std::string_view api_version = api_v != nullptr ? std::string_view(api_v->get_string()) : std::string_view();
  if (kind.empty()) kind = view.kind;
  std::string expected = view.api_version();
  bool same_group = api_version.empty() || api_version == expected;
  if (!same_group && view.custom) {
    // Another version of a custom resource's group is this kind (creates and updates
    // then refuse it: decode_request_object; a patch result is relabelled).
    std::string_view group = api_version.substr(0, api_version.find('/'));
    same_group = api_version.find('/') != std::string_view::npos && group == view.group;
  }
  if (kind != view.kind || !same_group) {
    std::string_view version = api_version.empty() ? std::string_view(view.version)
                                                   : api_version.substr(api_version.find('/') + 1);
    return api_fail(bad_request(fmt::format(
        "{} in version \"{}\" cannot be handled as a {}: converting ({}) to ({}): unknown conversion",
        kind, version, view.kind, api_version.empty() ? expected : std::string(api_version), expected)));
  }
  obj["kind"] = view.kind;
  if (api_version.empty()) obj["apiVersion"] = expected;
  return {};
}

ApiResult<json::value> decode_request_object(const ResourceRequest& r, const WriteContext& w) {
  auto doc = parse_body(r.http.header("content-type"), r.http.body, r.view().kind);
  if (!doc) return unexpected(std::move(doc).error());
  json::object& obj = doc->as_object();
  if (auto st = check_type_meta(obj, r.view()); !st) return unexpected(st.error());
  if (r.view().custom && json::get_string(obj, "apiVersion") != r.view().api_version()) {
    // Each version is written through its own endpoint: the body is decoded as the
    // version it names and is not converted to the endpoint's.
    return api_fail(bad_request(fmt::format("the API version in the data ({}) does not match the expected API version ({})",
                                            json::get_string(obj, "apiVersion"), r.view().api_version())));
  }
  if (std::string problem = metadata_type_problem(obj); !problem.empty()) {
    return api_fail(bad_request(fmt::format("{} in version \"{}\" cannot be handled as a {}: {}", r.view().kind,
                                            r.view().version, r.view().kind, problem)));
  }
  return r.view().strategy->decode(std::move(*doc), w);
}

ApiResult<FieldValidation> field_validation_of(const Query& query) {
  std::string_view v = query.get_or("fieldValidation", "");
  if (v.empty() || v == "Warn") return FieldValidation::Warn;
  if (v == "Strict") return FieldValidation::Strict;
  if (v == "Ignore") return FieldValidation::Ignore;
  return api_fail(bad_request(fmt::format(
      "fieldValidation parameter unsupported: {}. Supported values are: Ignore, Warn, Strict", v)));
}

}  // namespace kueuepp::kube::server

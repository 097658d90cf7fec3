#include "kube/apiserver/server/api/list_options.hpp"

#include <charconv>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

ApiStatus check_integer_params(const Query& query, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    const auto value = query.get(key);
    if (!value) continue;
    std::string_view digits = *value;
    if (digits.starts_with('+')) digits.remove_prefix(1);
    std::int64_t parsed = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
    if (ec == std::errc::result_out_of_range) {
      return api_fail(bad_request(fmt::format("strconv.ParseInt: parsing \"{}\": value out of range", *value)));
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      return api_fail(bad_request(fmt::format("strconv.ParseInt: parsing \"{}\": invalid syntax", *value)));
    }
  }
  return {};
}

ApiResult<ObjectFilter> filter_of(const ResourceRequest& r) {
  ObjectFilter f;
  f.view = r.type;
  if (r.type->namespaced) f.ns = r.info.ns;
  auto labels = LabelSelector::parse(r.query.get_or("labelSelector", ""));
  if (!labels) return api_fail(bad_request(labels.error().message));
  f.labels = std::move(*labels);
  auto fields = FieldSelector::parse(r.query.get_or("fieldSelector", ""));
  if (!fields) return api_fail(bad_request(fields.error().message));
  std::vector<std::string> allowed{"metadata.name", "metadata.namespace"};
  for (auto& extra : r.type->strategy->selectable_fields()) allowed.push_back(std::move(extra));
  for (const auto& term : fields->terms()) {
    if (std::find(allowed.begin(), allowed.end(), term.field) != allowed.end()) continue;
    std::string list;
    for (const auto& a : allowed) {
      if (!list.empty()) list += ", ";
      list += fmt::format("\"{}\"", a);
    }
    // The CRD handler words it differently from the built-in resources.
    if (r.type->custom) return api_fail(bad_request(fmt::format("field label not supported: {}", term.field)));
    return api_fail(bad_request(fmt::format("\"{}\" is not a known field selector: only {}", term.field, list)));
  }
  f.fields = std::move(*fields);
  if (f.ns.empty() && r.type->namespaced) {
    if (auto ns = f.fields.required_value("metadata.namespace")) f.ns = std::string(*ns);
  }
  return f;
}

ApiResult<std::optional<std::uint64_t>> parse_resource_version(std::string_view text) {
  if (text.empty()) return std::optional<std::uint64_t>{};
  std::uint64_t rv = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), rv);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return api_fail(bad_request(fmt::format("invalid resource version: \"{}\" is not a number", text)));
  }
  return std::optional<std::uint64_t>{rv};
}

std::string scan_prefix(const ResourceType& type, const ObjectFilter& filter) {
  if (!type.namespaced || filter.ns.empty()) return {};
  return filter.ns + "/";
}

}  // namespace kueuepp::kube::server

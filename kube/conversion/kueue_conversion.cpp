#include "kube/conversion/kueue_conversion.hpp"

#include <fmt/format.h>

#include "kube/conversion/conversion_stash.hpp"
#include "kube/conversion/kueue_field_mapping.hpp"

namespace kueuepp::kube::conversion {
namespace {

enum class Version { V1beta1, V1beta2 };

Expected<Version> parse_version(std::string_view api_version, std::string_view what) {
  if (api_version == kKueueV1beta1) return Version::V1beta1;
  if (api_version == kKueueV1beta2) return Version::V1beta2;
  return fail(fmt::format("{} \"{}\" is not converted here: kueuepp converts {} and {}", what, api_version, kKueueV1beta1,
                          kKueueV1beta2));
}

std::string_view api_version_of(Version v) { return v == Version::V1beta1 ? kKueueV1beta1 : kKueueV1beta2; }
std::string_view short_version(Version v) { return v == Version::V1beta1 ? "v1beta1" : "v1beta2"; }

Status map_to(json::object& object, std::string_view kind, Version to) {
  auto mapped = to == Version::V1beta2 ? map_to_v1beta2(object, kind) : map_to_v1beta1(object, kind);
  if (!mapped) return mapped;
  object["apiVersion"] = json::string(api_version_of(to));
  return {};
}

// The mapping's errors name a field from the object's root (".spec.cohort ..."); the
// reader wants the object first.
Error about(const json::value& object, const Error& e) {
  std::string_view message = e.message;
  if (!message.empty() && message.front() == '.') message.remove_prefix(1);
  return Error{fmt::format("{}: {}", describe_object(object), message)};
}

}  // namespace

std::string describe_object(const json::value& object) {
  const auto kind = json::get_string(object, "kind", "object");
  const auto* metadata = json::find(object, "metadata");
  const auto name = metadata != nullptr ? json::get_string(*metadata, "name") : std::string_view{};
  const auto ns = metadata != nullptr ? json::get_string(*metadata, "namespace") : std::string_view{};
  if (name.empty()) return fmt::format("{} (no metadata.name)", kind);
  if (ns.empty()) return fmt::format("{} \"{}\"", kind, name);
  return fmt::format("{} \"{}/{}\"", kind, ns, name);
}

Expected<json::value> convert_kueue_object(const json::value& object, std::string_view desired_api_version) {
  const auto* root = object.if_object();
  if (root == nullptr) return fail(fmt::format("the object to convert is {}, not a JSON object", json::dump(object).substr(0, 80)));
  auto to = parse_version(desired_api_version, "desiredAPIVersion");
  if (!to) return unexpected(Error{fmt::format("{}: {}", describe_object(object), to.error().message)});
  auto from = parse_version(json::get_string(*root, "apiVersion"), "apiVersion");
  if (!from) return unexpected(Error{fmt::format("{}: {}", describe_object(object), from.error().message)});
  const auto kind = json::get_string(*root, "kind");
  if (!is_converted_kind(kind)) {
    return fail(fmt::format("{}: kind \"{}\" is not a Kueue kind kueuepp converts", describe_object(object), kind));
  }
  if (const auto* metadata = json::find(*root, "metadata"); metadata != nullptr && !metadata->is_object()) {
    return fail(fmt::format("{}: metadata is not an object", describe_object(object)));
  }
  // The stash lives in an annotation, and could only replace a map of another shape.
  if (const auto* annotations = json::find_path(object, {"metadata", "annotations"});
      annotations != nullptr && !annotations->is_object()) {
    return fail(fmt::format("{}: metadata.annotations is not an object", describe_object(object)));
  }
  if (*from == *to) return object;

  json::object source = *root;
  const auto stash = take_stash(source);

  json::object converted = source;
  if (auto mapped = map_to(converted, kind, *to); !mapped) return unexpected(about(object, mapped.error()));
  if (stash && stash->version == short_version(*to)) {
    json::value restored(std::move(converted));
    restore_stash(restored, stash->entries);
    converted = std::move(restored.as_object());
  }

  // What converting back would give, against the source: the difference is the stash.
  json::object back = converted;
  if (auto mapped = map_to(back, kind, *from); !mapped) return unexpected(about(object, mapped.error()));
  Stash next{std::string(short_version(*from)), diff_documents(json::value(source), json::value(std::move(back))), false};
  if (!next.entries.empty()) put_stash(converted, next);
  return json::value(std::move(converted));
}

}  // namespace kueuepp::kube::conversion

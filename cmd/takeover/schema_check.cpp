#include "cmd/takeover/schema_check.hpp"

#include "kube/conversion/kueue_conversion.hpp"

namespace kueuepp::cmd::takeover {

namespace {

constexpr std::string_view kStorageVersion = "v1beta2";
/// Field errors beyond this many are counted, not listed.
constexpr std::size_t kErrorsListed = 5;

const json::value* storage_version_schema(const json::value& crd) {
  const json::value* versions = json::find_path(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const json::value& v : versions->get_array()) {
    const json::value* name = json::find(v, "name");
    if (name != nullptr && name->is_string() && name->get_string() == kStorageVersion) {
      return json::find_path(v, {"schema", "openAPIV3Schema"});
    }
  }
  return nullptr;
}

std::string list_errors(const std::vector<kube::schema::FieldError>& errors) {
  std::string out;
  for (std::size_t i = 0; i < errors.size() && i < kErrorsListed; ++i) {
    if (i > 0) out += ", ";
    out += errors[i].field + ": " + errors[i].message;
  }
  if (errors.size() > kErrorsListed) out += " and " + std::to_string(errors.size() - kErrorsListed) + " more";
  return out;
}

}  // namespace

Expected<SchemaCheck> SchemaCheck::compile(const std::map<std::string, json::value>& crds) {
  SchemaCheck check;
  for (const auto& [name, crd] : crds) {
    const json::value* schema = storage_version_schema(crd);
    if (schema == nullptr) return fail("kueuepp's CRD " + name + " has no " + std::string(kStorageVersion) + " schema");
    auto compiled = kube::schema::compile(*schema);
    if (!compiled) return fail("kueuepp's CRD " + name + ": its schema does not compile: " + compiled.error().message);
    check.by_crd_.emplace(name, std::move(*compiled));
  }
  return check;
}

std::vector<kube::takeover::Refusal> SchemaCheck::check(const kube::takeover::KueueKind& kind,
                                                         const json::value& object) const {
  auto schema = by_crd_.find(kind.crd_name());
  if (schema == by_crd_.end()) return {};
  auto converted = kube::conversion::convert_kueue_object(object, "kueue.x-k8s.io/" + std::string(kStorageVersion));
  if (!converted) return {};
  json::value stored = std::move(*converted);
  kube::schema::prune(*schema->second, stored);
  kube::schema::apply_defaults(*schema->second, stored);
  auto errors = kube::schema::validate(*schema->second, stored, nullptr);
  if (errors.empty()) return {};
  return {{kube::conversion::describe_object(object),
           "would not be valid under kueuepp's CRD (" + std::string(kStorageVersion) + "), so rewriting it for storage " +
               "would fail: " + list_errors(errors),
           "correct it (kubectl edit) or delete it, then run kueuepp takeover again"}};
}

}  // namespace kueuepp::cmd::takeover

// apiextensions.k8s.io/v1 CustomResourceDefinition: defaults (singular, listKind,
// conversion), the status the apiextensions controllers would write (names accepted,
// Established, stored versions), validation (names, scope, exactly one storage version,
// compilable schemas) and deletion through the customresourcecleanup finalizer.

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "kube/apiserver/schema/schema.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

json::object condition(std::string_view type, std::string_view status, std::string_view reason, std::string_view message) {
  return json::object{{"type", type}, {"status", status}, {"lastTransitionTime", now_rfc3339()},
                      {"reason", reason}, {"message", message}};
}

std::string storage_version(const json::object& crd) {
  const json::value* versions = at(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array()) return {};
  for (const auto& v : versions->as_array()) {
    const json::value* storage = json::find(v, "storage");
    if (storage != nullptr && storage->is_bool() && storage->get_bool()) return std::string(json::get_string(v, "name"));
  }
  return {};
}

/// The status the apiextensions controllers keep: accepted names, stored versions and
/// the NamesAccepted/Established conditions (kept when already true).
void refresh_status(json::object& crd, const json::object* old) {
  json::object status;
  if (old != nullptr) {
    if (const json::value* s = old->if_contains("status"); s != nullptr && s->is_object()) status = s->as_object();
  }
  if (const json::value* names = at(crd, {"spec", "names"})) status["acceptedNames"] = *names;
  json::array stored;
  if (const json::value* sv = status.if_contains("storedVersions"); sv != nullptr && sv->is_array()) stored = sv->as_array();
  std::string storage = storage_version(crd);
  if (!storage.empty() && std::find(stored.begin(), stored.end(), json::value(storage)) == stored.end()) {
    stored.emplace_back(storage);
  }
  status["storedVersions"] = std::move(stored);
  if (!status.contains("conditions")) {
    status["conditions"] = json::array{
        condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        condition("Established", "True", "InitialNamesAccepted", "the initial names have been accepted")};
  }
  crd["status"] = std::move(status);
}

class CrdStrategy final : public BuiltinStrategy {
 public:
  CrdStrategy() : BuiltinStrategy("apiextensions.k8s.io", "CustomResourceDefinition") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    json::object& o = body.as_object();
    json::object& spec = object_member(o, "spec");
    json::object& names = object_member(spec, "names");
    std::string kind(json::get_string(json::value(names), "kind"));
    if (!names.contains("singular") && !kind.empty()) names["singular"] = lowercase(kind);
    if (!names.contains("listKind") && !kind.empty()) names["listKind"] = kind + "List";
    if (!spec.contains("conversion")) spec["conversion"] = json::object{{"strategy", "None"}};
    return BuiltinStrategy::decode(std::move(body), ctx);
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    obj.erase("status");
    refresh_status(obj, nullptr);
  }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    BuiltinStrategy::prepare_for_update(obj, old, ctx);
    if (!ctx.status) refresh_status(obj, &old);
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (ctx.status) return {};
    FieldErrors errs;
    const json::value* spec_v = obj.if_contains("spec");
    if (spec_v == nullptr || !spec_v->is_object()) {
      errs.push_back(required_error("spec"));
      return errs;
    }
    const json::object& spec = spec_v->as_object();
    std::string_view group = json::get_string(*spec_v, "group");
    const json::value* names_v = spec.if_contains("names");
    std::string_view plural = names_v != nullptr ? json::get_string(*names_v, "plural") : "";
    std::string_view kind = names_v != nullptr ? json::get_string(*names_v, "kind") : "";
    if (group.empty()) {
      errs.push_back(required_error("spec.group"));
    } else if (group.find('.') == std::string_view::npos) {
      errs.push_back(invalid_error("spec.group", json::value(group), "should be a domain with at least one dot"));
    } else {
      for (const auto& p : dns1123_subdomain_problems(group)) errs.push_back(invalid_error("spec.group", json::value(group), p));
    }
    if (plural.empty()) {
      errs.push_back(required_error("spec.names.plural"));
    } else {
      for (const auto& p : dns1123_label_problems(plural)) errs.push_back(invalid_error("spec.names.plural", json::value(plural), p));
    }
    if (kind.empty()) errs.push_back(required_error("spec.names.kind"));
    std::string_view name = meta_string(obj, "name");
    if (!plural.empty() && !group.empty() && name != fmt::format("{}.{}", plural, group)) {
      errs.push_back(invalid_error("metadata.name", json::value(name), "must be spec.names.plural+\".\"+spec.group"));
    }
    std::string_view scope = json::get_string(*spec_v, "scope");
    if (scope != "Namespaced" && scope != "Cluster") {
      errs.push_back(not_supported_error("spec.scope", json::value(scope), {"Cluster", "Namespaced"}));
    }
    validate_versions(spec, errs);
    validate_conversion(spec, errs);
    validate_stored_versions(obj, errs);
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (ctx.status) return errs;
    for (std::string_view field : {"group", "scope"}) {
      const json::value* a = at(obj, {"spec", field});
      const json::value* b = at(old, {"spec", field});
      if (a != nullptr && b != nullptr && *a != *b) {
        errs.push_back(invalid_error(fmt::format("spec.{}", field), *a, "field is immutable"));
      }
    }
    return errs;
  }

  bool tracks_generation() const override { return true; }

  bool holds_deletion(const json::object& obj) const override {
    // The first DELETE always leaves the definition in place with the cleanup finalizer:
    // its custom resources go first.
    return meta_string(obj, "deletionTimestamp").empty() || BuiltinStrategy::holds_deletion(obj);
  }

  void prepare_for_delete(json::object& obj) const override {
    json::object& meta = metadata_of(obj);
    json::value& f = meta["finalizers"];
    if (!f.is_array()) f = json::array{};
    if (std::find(f.as_array().begin(), f.as_array().end(), json::value(kCleanupFinalizer)) == f.as_array().end()) {
      f.as_array().emplace_back(kCleanupFinalizer);
    }
    json::object& status = object_member(obj, "status");
    json::value& conditions = status["conditions"];
    if (!conditions.is_array()) conditions = json::array{};
    conditions.as_array().push_back(condition("Terminating", "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"));
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Created At", "date", "", "The time the definition was created.", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    return json::array{json::value(meta_string(obj, "creationTimestamp"))};
  }

 private:
  /// spec.conversion as kube-apiserver validates it (its paths are those of the internal
  /// type, webhookClientConfig, as kube-apiserver's messages name them).
  static void validate_conversion(const json::object& spec, FieldErrors& errs) {
    const json::value* conversion = spec.if_contains("conversion");
    if (conversion == nullptr || !conversion->is_object()) return;
    std::string_view strategy = json::get_string(*conversion, "strategy");
    const json::value* webhook = json::find(*conversion, "webhook");
    const json::value* client = webhook != nullptr ? json::find(*webhook, "clientConfig") : nullptr;
    const json::value* review_versions = webhook != nullptr ? json::find(*webhook, "conversionReviewVersions") : nullptr;
    if (strategy.empty()) {
      errs.push_back(required_error("spec.conversion.strategy"));
    } else if (strategy != "None" && strategy != "Webhook") {
      errs.push_back(not_supported_error("spec.conversion.strategy", json::value(strategy), {"None", "Webhook"}));
    }
    if (strategy != "Webhook") {
      if (client != nullptr) {
        errs.push_back(forbidden_error("spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"));
      }
      if (review_versions != nullptr && review_versions->is_array() && !review_versions->as_array().empty()) {
        errs.push_back(forbidden_error("spec.conversion.conversionReviewVersions", "should not be set when strategy is not set to Webhook"));
      }
      return;
    }
    if (client == nullptr || !client->is_object()) {
      errs.push_back(required_error("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"));
    } else if ((json::find(*client, "url") == nullptr) == (json::find(*client, "service") == nullptr)) {
      errs.push_back(required_error("spec.conversion.webhookClientConfig", "exactly one of url or service is required"));
    }
    const std::string path = "spec.conversion.conversionReviewVersions";
    if (review_versions == nullptr || !review_versions->is_array() || review_versions->as_array().empty()) {
      errs.push_back(required_error(path));
      return;
    }
    std::set<std::string> seen;
    bool recognized = false;
    const json::array& list = review_versions->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string v = list[i].is_string() ? std::string(list[i].get_string()) : std::string();
      if (!seen.insert(v).second) {
        errs.push_back(invalid_error(fmt::format("{}[{}]", path, i), list[i], "duplicate version"));
        continue;
      }
      recognized = recognized || v == "v1" || v == "v1beta1";
    }
    if (!recognized) errs.push_back(invalid_error(path, *review_versions, "must include at least one of v1, v1beta1"));
  }

  /// status.storedVersions against spec.versions, as kube-apiserver checks them on every
  /// write of the spec (not of status: that is how a storage migration trims them): a
  /// version objects may still be stored in cannot leave spec.versions.
  static void validate_stored_versions(const json::object& obj, FieldErrors& errs) {
    const json::value* versions = at(obj, {"spec", "versions"});
    const json::value* stored = at(obj, {"status", "storedVersions"});
    if (versions == nullptr || !versions->is_array()) return;
    json::array stored_list = stored != nullptr && stored->is_array() ? stored->as_array() : json::array{};
    if (stored_list.empty()) {
      errs.push_back(invalid_error("status.storedVersions", stored_list, "must have at least one stored version"));
      return;
    }
    std::set<std::string> declared;
    for (const auto& v : versions->as_array()) {
      std::string name(json::get_string(v, "name"));
      declared.insert(name);
      const json::value* st = json::find(v, "storage");
      bool storage = st != nullptr && st->is_bool() && st->get_bool();
      if (storage && std::find(stored_list.begin(), stored_list.end(), json::value(name)) == stored_list.end()) {
        errs.push_back(invalid_error("status.storedVersions", stored_list, "must have the storage version " + name));
      }
    }
    for (std::size_t i = 0; i < stored_list.size(); ++i) {
      std::string_view v = stored_list[i].is_string() ? std::string_view(stored_list[i].get_string()) : std::string_view();
      if (declared.count(std::string(v)) != 0) continue;
      errs.push_back(invalid_error(
          fmt::format("status.storedVersions[{}]", i), stored_list[i],
          fmt::format("missing from spec.versions; {0} was previously a storage version, and must remain in "
                      "spec.versions until a storage migration ensures no data remains persisted in {0} and "
                      "removes {0} from status.storedVersions",
                      v)));
    }
  }

  static void validate_versions(const json::object& spec, FieldErrors& errs) {
    const json::value* versions = spec.if_contains("versions");
    if (versions == nullptr || !versions->is_array() || versions->as_array().empty()) {
      errs.push_back(required_error("spec.versions", "must have exactly one version marked as storage version"));
      return;
    }
    int storage = 0;
    std::set<std::string> seen;
    const json::array& list = versions->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string base = fmt::format("spec.versions[{}]", i);
      std::string_view name = json::get_string(list[i], "name");
      if (name.empty()) {
        errs.push_back(required_error(base + ".name"));
      } else {
        for (const auto& p : dns1123_label_problems(name)) errs.push_back(invalid_error(base + ".name", json::value(name), p));
        if (!seen.insert(std::string(name)).second) errs.push_back(duplicate_error(base + ".name", json::value(name)));
      }
      const json::value* st = json::find(list[i], "storage");
      if (st != nullptr && st->is_bool() && st->get_bool()) ++storage;
      const json::value* schema_doc = json::find_path(list[i], {"schema", "openAPIV3Schema"});
      if (schema_doc == nullptr) continue;
      auto compiled = schema::compile(*schema_doc);
      if (!compiled) {
        errs.push_back(invalid_error(base + ".schema.openAPIV3Schema", json::value(""), compiled.error().message));
        continue;
      }
      for (const auto& e : schema::rule_compile_errors(**compiled)) {
        errs.push_back(invalid_error(base + ".schema.openAPIV3Schema", json::value(""), e));
      }
    }
    if (storage != 1) {
      errs.push_back(invalid_error("spec.versions", json::value(storage), "must have exactly one version marked as storage version"));
    }
  }
};

}  // namespace

StrategyPtr make_crd_strategy() { return std::make_shared<CrdStrategy>(); }

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/strategy/custom_resource_strategy.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/util/kubectl_jsonpath.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

/// The ObjectMeta fields; anything else under a custom resource's metadata is pruned.
constexpr std::string_view kObjectMetaFields[] = {
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields"};

std::vector<std::string> prune_metadata(json::object& obj) {
  std::vector<std::string> unknown;
  json::value* meta = obj.if_contains("metadata");
  if (meta == nullptr || !meta->is_object()) return unknown;
  json::object& m = meta->as_object();
  for (auto it = m.begin(); it != m.end();) {
    bool known = std::find(std::begin(kObjectMetaFields), std::end(kObjectMetaFields), std::string_view(it->key())) !=
                 std::end(kObjectMetaFields);
    if (known) {
      ++it;
    } else {
      unknown.push_back(fmt::format("metadata.{}", std::string_view(it->key())));
      it = m.erase(it);
    }
  }
  return unknown;
}

std::vector<schema::FieldError> to_schema_errors(const FieldErrors* errs) {
  std::vector<schema::FieldError> out;
  if (errs == nullptr) return out;
  for (const auto& e : *errs) out.push_back(schema::FieldError{e.type, e.field, e.message});
  return out;
}

FieldErrors from_schema_errors(std::vector<schema::FieldError> errs) {
  FieldErrors out;
  out.reserve(errs.size());
  for (auto& e : errs) out.push_back(FieldError{std::move(e.type), std::move(e.field), std::move(e.message)});
  return out;
}

class CustomResourceStrategy final : public Strategy {
 public:
  explicit CustomResourceStrategy(CustomResourceVersion v) : v_(std::move(v)) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    std::vector<std::string> unknown = prune_metadata(body.as_object());
    // A status write keeps nothing but status (and metadata) of the body: only that part
    // is pruned and defaulted, the rest is set aside and put back untouched.
    json::object rest;
    if (ctx.status && v_.status_subresource) {
      json::object& o = body.as_object();
      for (auto it = o.begin(); it != o.end();) {
        std::string_view k = it->key();
        if (k == "apiVersion" || k == "kind" || k == "metadata" || k == "status") {
          ++it;
        } else {
          rest.emplace(k, std::move(it->value()));
          it = o.erase(it);
        }
      }
    }
    if (v_.schema) {
      for (auto& f : schema::prune(*v_.schema, body)) unknown.push_back(std::move(f));
    }
    if (!unknown.empty()) {
      if (ctx.field_validation == FieldValidation::Strict) {
        std::string list;
        for (const auto& f : unknown) {
          if (!list.empty()) list += ", ";
          list += fmt::format("unknown field \"{}\"", f);
        }
        return api_fail(bad_request(fmt::format("{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
                                                v_.kind, v_.version, v_.kind, list)));
      }
      if (ctx.field_validation == FieldValidation::Warn) {
        for (const auto& f : unknown) ctx.warn(fmt::format("unknown field \"{}\"", f));
      }
    }
    if (v_.schema) schema::apply_defaults(*v_.schema, body);
    json::object& out = body.as_object();
    for (auto& kv : rest) out[kv.key()] = std::move(kv.value());
    // None: stored relabelled. Webhook: kept in the request's version until the write is
    // stored (webhook_conversion.hpp), as kube-apiserver's request scope keeps it.
    bool webhook = ctx.view->converter && ctx.view->converter->calls_webhook();
    out["apiVersion"] = webhook ? ctx.view->api_version() : ctx.view->storage_api_version();
    return body;
  }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    if (!v_.status_subresource) return;
    if (!ctx.status) {
      Strategy::prepare_for_update(obj, old, ctx);
      return;
    }
    if (ctx.status_alone) return;  // nothing but status differs: nothing to revert
    // A status write changes status only: the rest, metadata included, stays as stored
    // (managedFields excepted: they record this write). Reverting only what differs
    // spares copying the whole object in the usual case where nothing else changed.
    for (auto it = obj.begin(); it != obj.end();) {
      std::string_view k = it->key();
      if (k != "status" && k != "metadata" && !old.contains(k)) {
        it = obj.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [key, value] : old) {
      if (key == "status") continue;
      if (key == "metadata") {
        revert_metadata(obj, value);
        continue;
      }
      json::value* mine = obj.if_contains(key);
      if (mine == nullptr || !json::equal(*mine, value)) obj[key] = value;
    }
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (!v_.schema) return {};
    return run(obj, nullptr, ctx);
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    if (!v_.schema) return {};
    if (ctx.old_value != nullptr) return run(obj, ctx.old_value, ctx);
    json::value old_value = old;
    return run(obj, &old_value, ctx);
  }

  bool tracks_generation() const override { return true; }
  bool generation_changes(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    if (v_.status_subresource) {
      // A status write: prepare_for_update left all but status and metadata as stored.
      if (ctx.status) return false;
      return Strategy::generation_changes(obj, old, ctx);
    }
    // Without a status subresource, status is ordinary content: all but metadata counts.
    auto content = [](const json::object& o) { return o.size() - (o.contains("metadata") ? 1 : 0); };
    if (content(obj) != content(old)) return true;
    for (const auto& [key, value] : obj) {
      if (key == "metadata") continue;
      const json::value* before = old.if_contains(key);
      if (before == nullptr || !json::equal(*before, value)) return true;
    }
    return false;
  }
  bool allow_unconditional_update() const override { return false; }

  patch::ListStrategyResolver apply_lists() const override {
    if (!v_.schema) return [](patch::FieldPath) { return patch::ListStrategy{}; };
    return schema::list_strategies(v_.schema);
  }
  patch::AtomicObjectResolver apply_atomic_objects() const override {
    if (!v_.schema) return [](patch::FieldPath) { return false; };
    return schema::atomic_objects(v_.schema);
  }

  std::vector<std::string> selectable_fields() const override { return v_.selectable_fields; }

  std::vector<PrinterColumn> columns(const ResourceType& view) const override {
    if (v_.columns.empty()) return Strategy::columns(view);
    return v_.columns;
  }

  json::array cells(const json::object& obj, const ResourceType& view) const override {
    if (v_.columns.empty()) return Strategy::cells(obj, view);
    json::array out;
    json::value root = obj;
    for (const auto& c : v_.columns) {
      auto found = kubectl_jsonpath_select(root, c.json_path);
      if (found.empty()) {
        out.emplace_back(nullptr);
        continue;
      }
      const json::value& v = *found.front();
      if (c.type == "date" && v.is_string()) {
        auto t = parse_rfc3339(std::string_view(v.get_string()));
        out.emplace_back(t ? human_duration(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now() - *t))
                           : std::string("<unknown>"));
      } else if (v.is_object() || v.is_array()) {
        out.emplace_back(json::dump(v));
      } else {
        out.push_back(v);
      }
    }
    return out;
  }

 private:
  FieldErrors run(const json::object& obj, const json::value* old, const WriteContext& ctx) const {
    std::vector<schema::FieldError> prior = to_schema_errors(ctx.prior_errors);
    schema::ValidateOptions options;
    options.prior_errors = prior;
    if (old != nullptr) options.old_stamp = ctx.old_validation;
    if (old != nullptr) options.changeable = changeable_members(ctx);
    options.stamp = ctx.validation;
    FieldErrors errors =
        from_schema_errors(ctx.object_value != nullptr ? schema::validate(*v_.schema, *ctx.object_value, old, options)
                                                       : schema::validate(*v_.schema, json::value(obj), old, options));
    return errors;
  }

  /// Metadata of a status write: the stored metadata, but this write's managedFields
  /// (none when it sent none: the field manager then records the write on the stored ones).
  static void revert_metadata(json::object& obj, const json::value& old_meta) {
    json::value* meta = obj.if_contains("metadata");
    if (meta == nullptr || !meta->is_object() || !old_meta.is_object()) {
      obj["metadata"] = old_meta;
      return;
    }
    json::object& m = meta->as_object();
    const json::object& om = old_meta.as_object();
    for (auto it = m.begin(); it != m.end();) {
      std::string_view k = it->key();
      if (k != "managedFields" && !om.contains(k)) {
        it = m.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [key, value] : om) {
      // resourceVersion: the write path dropped it (the store sets the new one); putting
      // the stored one back at the end would only disorder metadata.
      if (key == "managedFields" || key == "resourceVersion") continue;
      json::value* mine = m.if_contains(key);
      if (mine == nullptr || !json::equal(*mine, value)) m[key] = value;
    }
  }

  CustomResourceVersion v_;
};

}  // namespace

std::shared_ptr<const Strategy> make_custom_resource_strategy(CustomResourceVersion version) {
  return std::make_shared<CustomResourceStrategy>(std::move(version));
}

}  // namespace kueuepp::kube::server

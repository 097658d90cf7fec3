// core/v1 Secret: type Opaque by default, data values base64 (decoding fails with
// kube-apiserver's 400 otherwise), stringData folded into data on every write (it is
// write-only), and kube-apiserver 1.28's validation: data keys, the 1 MiB limit, the
// keys each built-in secret type requires, type immutable, and immutable Secrets.

#include <array>

#include <fmt/format.h>

#include "core/base64.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::size_t kMaxSecretBytes = 1024 * 1024;

constexpr std::array kSecretFields{
    TypedField{"stringData", FieldType::StringMap},
    TypedField{"type", FieldType::String},
    TypedField{"immutable", FieldType::Bool},
};

std::string_view type_of(const json::object& obj) { return string_at(obj, {"type"}); }

const json::object* data_of(const json::object& obj) {
  const json::value* d = obj.if_contains("data");
  return d != nullptr ? d->if_object() : nullptr;
}

bool has_key(const json::object& obj, std::string_view key) {
  const json::object* data = data_of(obj);
  return data != nullptr && data->contains(key);
}

/// The keys and annotations each built-in secret type requires (ValidateSecret).
void validate_type(const json::object& obj, FieldErrors& errs) {
  std::string_view type = type_of(obj);
  auto require_key = [&](std::string_view key) {
    if (!has_key(obj, key)) errs.push_back(required_error(fmt::format("data[{}]", key)));
  };
  if (type == "kubernetes.io/service-account-token") {
    const json::object* meta = metadata_of(obj);
    const json::value* annotations = meta != nullptr ? meta->if_contains("annotations") : nullptr;
    if (annotations == nullptr || json::find(*annotations, "kubernetes.io/service-account.name") == nullptr) {
      errs.push_back(required_error("metadata.annotations[kubernetes.io/service-account.name]"));
    }
  } else if (type == "kubernetes.io/dockercfg") {
    require_key(".dockercfg");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    require_key(".dockerconfigjson");
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has_key(obj, "username") && !has_key(obj, "password")) {
      errs.push_back(required_error("data[username]"));
      errs.push_back(required_error("data[password]"));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    require_key("ssh-privatekey");
  } else if (type == "kubernetes.io/tls") {
    require_key("tls.crt");
    require_key("tls.key");
  }
}

class SecretStrategy final : public BuiltinStrategy {
 public:
  SecretStrategy() : BuiltinStrategy("", "Secret", ListTable({})) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kSecretFields); !st) return unexpected(st.error());
    if (auto st = check_data(body.as_object(), ctx); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    json::object& o = decoded->as_object();
    fold_string_data(o);
    default_string(o, "type", "Opaque");
    return decoded;
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    std::size_t total = 0;
    if (const json::object* data = data_of(obj)) {
      for (const auto& [k, v] : *data) {
        for (const auto& p : config_key_problems(k)) errs.push_back(invalid_error(fmt::format("data[{}]", std::string_view(k)), json::value(k), p));
        if (v.is_string()) total += core::base64_decoded_size(v.get_string());
      }
    }
    if (total > kMaxSecretBytes) errs.push_back(too_long_error("data", kMaxSecretBytes));
    validate_type(obj, errs);
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (type_of(obj) != type_of(old)) errs.push_back(invalid_error("type", json::value(type_of(obj)), "field is immutable"));
    const json::value* was_immutable = old.if_contains("immutable");
    if (was_immutable == nullptr || !was_immutable->is_bool() || !was_immutable->get_bool()) return errs;
    // An immutable Secret's content never changes (kubelets stop watching it).
    const json::value* immutable = obj.if_contains("immutable");
    if (immutable == nullptr || *immutable != *was_immutable) {
      errs.push_back(forbidden_error("immutable", "field is immutable when `immutable` is set"));
    }
    const json::value* data = obj.if_contains("data");
    const json::value* old_data = old.if_contains("data");
    bool same = data == nullptr ? old_data == nullptr : (old_data != nullptr && *data == *old_data);
    if (!same) errs.push_back(forbidden_error("data", "field is immutable when `immutable` is set"));
    return errs;
  }

  std::vector<std::string> selectable_fields() const override { return {"type"}; }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Type", "string", "", "The type of the secret", 0, ""},
            {"Data", "string", "", "Number of data entries", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::object* data = data_of(obj);
    return json::array{json::value(type_of(obj)), json::value(data != nullptr ? data->size() : 0),
                       json::value(age_of(obj))};
  }

 private:
  /// data is map[string][]byte: each value a base64 string (null is an empty value).
  ApiStatus check_data(const json::object& obj, const WriteContext& ctx) const {
    const json::value* data = obj.if_contains("data");
    if (data == nullptr || data->is_null()) return {};
    auto fail_with = [&](const std::string& problem) {
      return api_fail(bad_request(fmt::format("Secret in version \"{}\" cannot be handled as a Secret: {}", ctx.view->version, problem)));
    };
    if (!data->is_object()) {
      return fail_with("json: cannot unmarshal into Go struct field Secret.data of type map[string][]uint8");
    }
    for (const auto& [k, v] : data->as_object()) {
      if (v.is_null()) continue;
      if (!v.is_string()) return fail_with("json: cannot unmarshal into Go struct field Secret.data of type []uint8");
      if (auto bad = core::base64_error_at(v.get_string())) return fail_with(fmt::format("illegal base64 data at input byte {}", *bad));
    }
    return {};
  }

  /// stringData is write-only: its values replace data's, encoded.
  static void fold_string_data(json::object& obj) {
    const json::value* string_data = obj.if_contains("stringData");
    if (string_data != nullptr && string_data->is_object() && !string_data->as_object().empty()) {
      json::object& data = object_member(obj, "data");
      for (const auto& [k, v] : string_data->as_object()) {
        data[k] = core::base64_encode(v.is_string() ? std::string_view(v.get_string()) : std::string_view());
      }
    }
    obj.erase("stringData");
  }
};

}  // namespace

StrategyPtr make_secret_strategy() { return std::make_shared<SecretStrategy>(); }

}  // namespace kueuepp::kube::server

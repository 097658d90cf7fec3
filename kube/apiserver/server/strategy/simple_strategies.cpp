// The built-in kinds with little behaviour of their own: ConfigMap, ServiceAccount,
// coordination.k8s.io Lease (MicroTime fields) and scheduling.k8s.io PriorityClass.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

PrinterColumn age_column() {
  return {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""};
}

std::size_t member_count(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_object()) return v->as_object().size();
  if (v->is_array()) return v->as_array().size();
  return 0;
}

/// A ConfigMap/Secret data key: [-._a-zA-Z0-9]+, at most 253 characters.
bool valid_config_key(std::string_view key) {
  if (key.empty() || key.size() > 253 || key == "." || key == "..") return false;
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.')) return false;
  }
  return true;
}

class ConfigMapStrategy final : public BuiltinStrategy {
 public:
  ConfigMapStrategy() : BuiltinStrategy("", "ConfigMap") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    static constexpr std::array kFields{TypedField{"data", FieldType::StringMap},
                                        TypedField{"binaryData", FieldType::Base64Map},
                                        TypedField{"immutable", FieldType::Bool}};
    if (auto st = check_field_types(body.as_object(), ctx, "", kFields); !st) return unexpected(st.error());
    return BuiltinStrategy::decode(std::move(body), ctx);
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    std::size_t total = 0;
    for (std::string_view field : {"data", "binaryData"}) {
      const json::value* m = obj.if_contains(field);
      if (m == nullptr || !m->is_object()) continue;
      for (const auto& [k, v] : m->as_object()) {
        if (!valid_config_key(k)) {
          errs.push_back(invalid_error(fmt::format("{}[{}]", field, std::string_view(k)), json::value(k),
                                       "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
        }
        total += v.is_string() ? v.get_string().size() : 0;
      }
    }
    if (total > 1024 * 1024) errs.push_back(too_long_error("data", 1024 * 1024));
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Data", "integer", "", "Number of data entries", 0, ""}, age_column()};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    return json::array{member_count(obj, "data") + member_count(obj, "binaryData"), json::value(age_of(obj))};
  }
};

class ServiceAccountStrategy final : public BuiltinStrategy {
 public:
  ServiceAccountStrategy() : BuiltinStrategy("", "ServiceAccount") {}
  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Secrets", "integer", "", "Number of secrets", 0, ""}, age_column()};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    return json::array{member_count(obj, "secrets"), json::value(age_of(obj))};
  }
};

class LeaseStrategy final : public BuiltinStrategy {
 public:
  LeaseStrategy() : BuiltinStrategy("coordination.k8s.io", "Lease") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    const json::object& o = body.as_object();
    for (std::string_view field : {"acquireTime", "renewTime"}) {
      if (auto st = check_micro_time(at(o, {"spec", field}), "Lease", "v1"); !st) return unexpected(st.error());
    }
    return BuiltinStrategy::decode(std::move(body), ctx);
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    if (auto d = int_at(obj, {"spec", "leaseDurationSeconds"}); d && *d <= 0) {
      errs.push_back(invalid_error("spec.leaseDurationSeconds", json::value(*d), "must be greater than 0"));
    }
    if (auto t = int_at(obj, {"spec", "leaseTransitions"}); t && *t < 0) {
      errs.push_back(invalid_error("spec.leaseTransitions", json::value(*t), "must be greater than or equal to 0"));
    }
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Holder", "string", "", "The holder of the lease", 0, ""}, age_column()};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::value* holder = at(obj, {"spec", "holderIdentity"});
    return json::array{holder != nullptr ? *holder : json::value(""), json::value(age_of(obj))};
  }
};

class PriorityClassStrategy final : public BuiltinStrategy {
 public:
  PriorityClassStrategy() : BuiltinStrategy("scheduling.k8s.io", "PriorityClass") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    json::object& o = body.as_object();
    if (!o.contains("preemptionPolicy")) o["preemptionPolicy"] = "PreemptLowerPriority";
    return BuiltinStrategy::decode(std::move(body), ctx);
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    std::string_view name = meta_string(obj, "name");
    bool system = name.rfind("system-", 0) == 0;
    if (system && name != "system-node-critical" && name != "system-cluster-critical") {
      errs.push_back(forbidden_error("metadata.name", "priority class names with 'system-' prefix are reserved"));
    }
    const json::value* value = obj.if_contains("value");
    if (value != nullptr && !value->is_int64()) errs.push_back(invalid_error("value", *value, "must be an integer"));
    if (!system && value != nullptr && value->is_int64() && value->get_int64() > 1000000000) {
      errs.push_back(forbidden_error("value", "maximum allowed value of a user defined priority is 1000000000"));
    }
    const json::value* policy_v = obj.if_contains("preemptionPolicy");
    std::string_view policy = policy_v != nullptr && policy_v->is_string() ? std::string_view(policy_v->get_string()) : "";
    if (policy != "PreemptLowerPriority" && policy != "Never") {
      errs.push_back(not_supported_error("preemptionPolicy", json::value(policy), {"Never", "PreemptLowerPriority"}));
    }
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (int_at(obj, {"value"}) != int_at(old, {"value"})) errs.push_back(forbidden_error("value", "may not be changed in an update."));
    if (obj.if_contains("preemptionPolicy") != nullptr && old.if_contains("preemptionPolicy") != nullptr &&
        obj.at("preemptionPolicy") != old.at("preemptionPolicy")) {
      errs.push_back(invalid_error("preemptionPolicy", obj.at("preemptionPolicy"), "field is immutable"));
    }
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Value", "integer", "", "The value of this priority class.", 0, ""},
            {"Global-Default", "boolean", "", "Whether this priority class should be the default.", 0, ""},
            age_column(),
            {"Preemption-Policy", "string", "", "The preemption policy of this priority class.", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::value* v = obj.if_contains("value");
    const json::value* g = obj.if_contains("globalDefault");
    const json::value* p = obj.if_contains("preemptionPolicy");
    return json::array{v != nullptr ? *v : json::value(0), g != nullptr ? *g : json::value(false),
                       json::value(age_of(obj)), p != nullptr ? *p : json::value("")};
  }
};

}  // namespace

StrategyPtr make_config_map_strategy() { return std::make_shared<ConfigMapStrategy>(); }
StrategyPtr make_service_account_strategy() { return std::make_shared<ServiceAccountStrategy>(); }
StrategyPtr make_lease_strategy() { return std::make_shared<LeaseStrategy>(); }
StrategyPtr make_priority_class_strategy() { return std::make_shared<PriorityClassStrategy>(); }

}  // namespace kueuepp::kube::server

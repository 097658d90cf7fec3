// apiregistration.k8s.io/v1 APIService, as kube-aggregator defaults and validates it:
// spec.service.port defaults to 443; the name must be `<version>.<group>` (and a path
// segment); only v1 may have an empty group; the group is a DNS-1123 subdomain and the
// version a DNS-1035 label; groupPriorityMinimum in 1..20000 and versionPriority in
// 1..1000; a local APIService (no service) has neither caBundle nor
// insecureSkipTLSVerify; a service names its namespace and name, and caBundle and
// insecureSkipTLSVerify exclude each other. Status writes may only carry conditions whose
// status is True, False or Unknown. kubectl's columns are kube-aggregator's table
// (SERVICE, AVAILABLE).

#include <array>

#include <fmt/format.h>

#include "core/base64.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::array kApiServiceFields{
    TypedField{"spec", FieldType::Object},
    TypedField{"spec.group", FieldType::String},
    TypedField{"spec.version", FieldType::String},
    TypedField{"spec.insecureSkipTLSVerify", FieldType::Bool},
    TypedField{"spec.caBundle", FieldType::String},
    TypedField{"spec.groupPriorityMinimum", FieldType::Integer},
    TypedField{"spec.versionPriority", FieldType::Integer},
    TypedField{"spec.service", FieldType::Object},
    TypedField{"spec.service.namespace", FieldType::String},
    TypedField{"spec.service.name", FieldType::String},
    TypedField{"spec.service.port", FieldType::Integer},
    TypedField{"status", FieldType::Object},
    TypedField{"status.conditions", FieldType::ObjectList},
};

const json::object& spec_of(const json::object& obj) {
  static const json::object empty;
  const json::value* spec = obj.if_contains("spec");
  return spec != nullptr && spec->is_object() ? spec->as_object() : empty;
}

void validate_priorities(const json::object& spec, FieldErrors& errs) {
  std::int64_t group_min = int_at(spec, {"groupPriorityMinimum"}).value_or(0);
  if (group_min <= 0 || group_min > 20000) {
    errs.push_back(invalid_error("spec.groupPriorityMinimum", json::value(group_min), "must be positive and less than 20000"));
  }
  std::int64_t version_priority = int_at(spec, {"versionPriority"}).value_or(0);
  if (version_priority <= 0 || version_priority > 1000) {
    errs.push_back(invalid_error("spec.versionPriority", json::value(version_priority), "must be positive and less than 1000"));
  }
}

void validate_backend(const json::object& spec, FieldErrors& errs) {
  std::string_view ca_bundle = string_at(spec, {"caBundle"});
  const json::value* insecure_v = spec.if_contains("insecureSkipTLSVerify");
  bool insecure = insecure_v != nullptr && insecure_v->is_bool() && insecure_v->get_bool();
  const json::value* service = spec.if_contains("service");
  if (service == nullptr || !service->is_object()) {
    if (!ca_bundle.empty()) {
      auto bytes = core::base64_decode(ca_bundle);
      std::size_t size = bytes ? bytes->size() : ca_bundle.size();
      errs.push_back(invalid_error("spec.caBundle", json::value(fmt::format("{} bytes", size)),
                                   "local APIServices may not have a caBundle"));
    }
    if (insecure) {
      errs.push_back(invalid_error("spec.insecureSkipTLSVerify", json::value(true),
                                   "local APIServices may not have insecureSkipTLSVerify"));
    }
    return;
  }
  const json::object& svc = service->as_object();
  if (string_at(svc, {"namespace"}).empty()) errs.push_back(required_error("spec.service.namespace"));
  if (string_at(svc, {"name"}).empty()) errs.push_back(required_error("spec.service.name"));
  if (insecure && !ca_bundle.empty()) {
    errs.push_back(invalid_error("spec.insecureSkipTLSVerify", json::value(true), "may not be true if caBundle is present"));
  }
}

class ApiServiceStrategy final : public BuiltinStrategy {
 public:
  ApiServiceStrategy() : BuiltinStrategy("apiregistration.k8s.io", "APIService") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kApiServiceFields); !st) return unexpected(st.error());
    if (const json::value* ca = at(body.as_object(), {"spec", "caBundle"}); ca != nullptr && ca->is_string() &&
                                                                            !core::base64_decode(ca->get_string())) {
      return api_fail(bad_request("APIService in version \"v1\" cannot be handled as a APIService: illegal base64 data "
                                  "in spec.caBundle"));
    }
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    json::object& obj = decoded->as_object();
    if (json::value* spec = obj.if_contains("spec"); spec != nullptr && spec->is_object()) {
      if (json::value* svc = spec->as_object().if_contains("service"); svc != nullptr && svc->is_object()) {
        set_default(svc->as_object(), "port", 443);
      }
    }
    return decoded;
  }

  /// The name is checked against the spec in validate(); here only what every name must be.
  Problems name_problems(std::string_view name) const override { return path_segment_problems(name); }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (ctx.status) return validate_status(obj);
    FieldErrors errs;
    const json::object& spec = spec_of(obj);
    std::string_view group = string_at(spec, {"group"});
    std::string_view version = string_at(spec, {"version"});
    std::string required_name = fmt::format("{}.{}", version, group);
    std::string_view name = meta_string(obj, "name");
    if (!name.empty() && path_segment_problems(name).empty() && name != required_name) {
      errs.push_back(invalid_error("metadata.name", json::value(name),
                                   fmt::format("must be `spec.version+\".\"+spec.group`: \"{}\"", required_name)));
    }
    if (group.empty() && version != "v1") {
      errs.push_back(required_error("spec.group", "only v1 may have an empty group and it better be legacy kube"));
    }
    if (!group.empty()) {
      for (const auto& p : dns1123_subdomain_problems(group)) errs.push_back(invalid_error("spec.group", json::value(group), p));
    }
    for (const auto& p : dns1035_label_problems(version)) errs.push_back(invalid_error("spec.version", json::value(version), p));
    validate_priorities(spec, errs);
    validate_backend(spec, errs);
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object&, const WriteContext& ctx) const override {
    return validate(obj, ctx);
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Service", "string", "", "The reference to the service that hosts this API endpoint.", 0, ""},
            {"Available", "string", "", "Whether this service is available.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::object& spec = spec_of(obj);
    std::string service = "Local";
    if (const json::value* svc = spec.if_contains("service"); svc != nullptr && svc->is_object()) {
      service = fmt::format("{}/{}", string_at(svc->as_object(), {"namespace"}), string_at(svc->as_object(), {"name"}));
    }
    std::string available = "Unknown";
    if (const json::value* conds = at(obj, {"status", "conditions"}); conds != nullptr && conds->is_array()) {
      for (const auto& c : conds->as_array()) {
        if (!c.is_object() || string_at(c.as_object(), {"type"}) != "Available") continue;
        available = std::string(string_at(c.as_object(), {"status"}));
        std::string_view reason = string_at(c.as_object(), {"reason"});
        if (available != "True" && !reason.empty()) available = fmt::format("{} ({})", available, reason);
      }
    }
    return json::array{json::value(service), json::value(available), json::value(age_of(obj))};
  }

 private:
  static FieldErrors validate_status(const json::object& obj) {
    FieldErrors errs;
    const json::value* conds = at(obj, {"status", "conditions"});
    if (conds == nullptr || !conds->is_array()) return errs;
    const json::array& list = conds->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string_view status = list[i].is_object() ? string_at(list[i].as_object(), {"status"}) : "";
      if (status != "True" && status != "False" && status != "Unknown") {
        errs.push_back(not_supported_error(fmt::format("status.conditions[{}].status", i), json::value(status),
                                           {"True", "False", "Unknown"}));
      }
    }
    return errs;
  }
};

}  // namespace

StrategyPtr make_api_service_strategy() { return std::make_shared<ApiServiceStrategy>(); }

}  // namespace kueuepp::kube::server

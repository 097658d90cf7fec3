// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: kube-apiserver's defaulting (failurePolicy Fail,
// matchPolicy Equivalent, timeoutSeconds 10, empty selectors, rule scope "*", service port
// 443, reinvocationPolicy Never) and validation (rules, policies, sideEffects,
// admissionReviewVersions, clientConfig with exactly one of an https url or a service).
// matchConditions are refused: this server does not evaluate them, and a condition
// silently ignored would send the webhook requests it asked not to see.

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/label_selector_rules.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kGroup = "admissionregistration.k8s.io";

constexpr std::array kWebhookFields{
    TypedField{"webhooks", FieldType::ObjectList},
    TypedField{"webhooks[].name", FieldType::String},
    TypedField{"webhooks[].rules", FieldType::ObjectList},
    TypedField{"webhooks[].rules[].operations", FieldType::StringList},
    TypedField{"webhooks[].rules[].apiGroups", FieldType::StringList},
    TypedField{"webhooks[].rules[].apiVersions", FieldType::StringList},
    TypedField{"webhooks[].rules[].resources", FieldType::StringList},
    TypedField{"webhooks[].rules[].scope", FieldType::String},
    TypedField{"webhooks[].failurePolicy", FieldType::String},
    TypedField{"webhooks[].matchPolicy", FieldType::String},
    TypedField{"webhooks[].sideEffects", FieldType::String},
    TypedField{"webhooks[].timeoutSeconds", FieldType::Integer},
    TypedField{"webhooks[].admissionReviewVersions", FieldType::StringList},
    TypedField{"webhooks[].reinvocationPolicy", FieldType::String},
    TypedField{"webhooks[].namespaceSelector", FieldType::Object},
    TypedField{"webhooks[].objectSelector", FieldType::Object},
    TypedField{"webhooks[].clientConfig", FieldType::Object},
    TypedField{"webhooks[].clientConfig.url", FieldType::String},
    TypedField{"webhooks[].clientConfig.caBundle", FieldType::String},
    TypedField{"webhooks[].clientConfig.service", FieldType::Object},
    TypedField{"webhooks[].clientConfig.service.name", FieldType::String},
    TypedField{"webhooks[].clientConfig.service.namespace", FieldType::String},
    TypedField{"webhooks[].clientConfig.service.path", FieldType::String},
    TypedField{"webhooks[].clientConfig.service.port", FieldType::Integer},
    TypedField{"webhooks[].matchConditions", FieldType::ObjectList},
};

std::vector<std::string_view> strings_of(const json::value* v) {
  std::vector<std::string_view> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : v->as_array()) out.push_back(e.is_string() ? std::string_view(e.get_string()) : "");
  return out;
}

bool has_wildcard(const std::vector<std::string_view>& items) {
  return std::find(items.begin(), items.end(), "*") != items.end();
}

void default_webhook(json::object& hook, bool mutating) {
  default_string(hook, "failurePolicy", "Fail");
  default_string(hook, "matchPolicy", "Equivalent");
  set_default(hook, "namespaceSelector", json::object{});
  set_default(hook, "objectSelector", json::object{});
  set_default(hook, "timeoutSeconds", 10);
  if (mutating) default_string(hook, "reinvocationPolicy", "Never");
  if (json::value* rules = hook.if_contains("rules"); rules != nullptr && rules->is_array()) {
    for (auto& rule : rules->as_array()) {
      if (rule.is_object()) default_string(rule.as_object(), "scope", "*");
    }
  }
  if (json::value* cc = hook.if_contains("clientConfig"); cc != nullptr && cc->is_object()) {
    if (json::value* svc = cc->as_object().if_contains("service"); svc != nullptr && svc->is_object()) {
      set_default(svc->as_object(), "port", 443);
    }
  }
}

/// validateResources: resource names with optional "/subresource" and the wildcard rules.
void validate_resources(const json::value* resources, const std::string& path, FieldErrors& errs) {
  std::vector<std::string_view> list = strings_of(resources);
  if (list.empty()) errs.push_back(required_error(path));
  std::set<std::string_view> with_wildcard_sub;
  std::set<std::string_view> sub_with_wildcard_res;
  bool double_wildcard = false;
  bool single_wildcard = false;
  bool plain_resource = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string_view res_sub = list[i];
    std::string index = fmt::format("{}[{}]", path, i);
    if (res_sub.empty()) {
      errs.push_back(required_error(index));
      continue;
    }
    if (res_sub == "*/*") double_wildcard = true;
    if (res_sub == "*") single_wildcard = true;
    std::size_t slash = res_sub.find('/');
    if (slash == std::string_view::npos) {
      plain_resource = res_sub != "*";
      continue;
    }
    std::string_view res = res_sub.substr(0, slash);
    std::string_view sub = res_sub.substr(slash + 1);
    if (with_wildcard_sub.count(res) != 0) {
      errs.push_back(invalid_error(index, json::value(res_sub),
                                   fmt::format("if '{}/*' is present, must not specify {}", res, res_sub)));
    }
    if (sub_with_wildcard_res.count(sub) != 0) {
      errs.push_back(invalid_error(index, json::value(res_sub),
                                   fmt::format("if '*/{}' is present, must not specify {}", sub, res_sub)));
    }
    if (sub == "*") with_wildcard_sub.insert(res);
    if (res == "*") sub_with_wildcard_res.insert(sub);
  }
  if (list.size() > 1 && double_wildcard) {
    errs.push_back(invalid_error(path, *resources, "if '*/*' is present, must not specify other resources"));
  }
  if (single_wildcard && plain_resource) {
    errs.push_back(invalid_error(path, *resources, "if '*' is present, must not specify other resources without subresources"));
  }
}

void validate_rule(const json::value& rule, const std::string& path, FieldErrors& errs) {
  const json::value* ops_v = json::find(rule, "operations");
  std::vector<std::string_view> ops = strings_of(ops_v);
  if (ops.empty()) errs.push_back(required_error(path + ".operations"));
  if (ops.size() > 1 && has_wildcard(ops)) {
    errs.push_back(invalid_error(path + ".operations", *ops_v, "if '*' is present, must not specify other operations"));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != "*" && ops[i] != "CREATE" && ops[i] != "UPDATE" && ops[i] != "DELETE" && ops[i] != "CONNECT") {
      errs.push_back(not_supported_error(fmt::format("{}.operations[{}]", path, i), json::value(ops[i]),
                                         {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}));
    }
  }
  const json::value* groups_v = json::find(rule, "apiGroups");
  std::vector<std::string_view> groups = strings_of(groups_v);
  if (groups.empty()) errs.push_back(required_error(path + ".apiGroups"));
  if (groups.size() > 1 && has_wildcard(groups)) {
    errs.push_back(invalid_error(path + ".apiGroups", *groups_v, "if '*' is present, must not specify other API groups"));
  }
  const json::value* versions_v = json::find(rule, "apiVersions");
  std::vector<std::string_view> versions = strings_of(versions_v);
  if (versions.empty()) errs.push_back(required_error(path + ".apiVersions"));
  if (versions.size() > 1 && has_wildcard(versions)) {
    errs.push_back(invalid_error(path + ".apiVersions", *versions_v, "if '*' is present, must not specify other API versions"));
  }
  for (std::size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].empty()) errs.push_back(required_error(fmt::format("{}.apiVersions[{}]", path, i)));
  }
  validate_resources(json::find(rule, "resources"), path + ".resources", errs);
  std::string_view scope = json::get_string(rule, "scope");
  if (scope != "*" && scope != "Cluster" && scope != "Namespaced") {
    errs.push_back(not_supported_error(path + ".scope", json::value(scope), {"*", "Cluster", "Namespaced"}));
  }
}

/// ValidateWebhookURL with https forced.
void validate_url(std::string_view url, const std::string& path, FieldErrors& errs) {
  constexpr std::string_view kForm = "; desired format: https://host[/path]";
  std::size_t scheme_end = url.find("://");
  std::string_view scheme = scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
  std::string_view rest = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (scheme != "https") errs.push_back(invalid_error(path, json::value(scheme), fmt::format("'https' is the only allowed URL scheme{}", kForm)));
  std::string_view host = authority;
  if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    errs.push_back(invalid_error(path, json::value(authority.substr(0, at)), "user information is not permitted in the URL"));
    host = authority.substr(at + 1);
  }
  if (host.empty()) errs.push_back(invalid_error(path, json::value(host), fmt::format("host must be specified{}", kForm)));
  if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    errs.push_back(invalid_error(path, json::value(rest.substr(hash + 1)), "fragments are not permitted in the URL"));
    rest = rest.substr(0, hash);
  }
  if (std::size_t q = rest.find('?'); q != std::string_view::npos && q + 1 < rest.size()) {
    errs.push_back(invalid_error(path, json::value(rest.substr(q + 1)), "query parameters are not permitted in the URL"));
  }
}

/// ValidateWebhookService.
void validate_service(const json::value& svc, const std::string& path, FieldErrors& errs) {
  if (json::get_string(svc, "name").empty()) errs.push_back(required_error(path + ".name", "service name is required"));
  if (json::get_string(svc, "namespace").empty()) {
    errs.push_back(required_error(path + ".namespace", "service namespace is required"));
  }
  if (const json::value* port = json::find(svc, "port"); port != nullptr && port->is_int64()) {
    if (port->get_int64() < 1 || port->get_int64() > 65535) {
      errs.push_back(invalid_error(path + ".port", *port, "port is not valid: must be between 1 and 65535, inclusive"));
    }
  }
  const json::value* p = json::find(svc, "path");
  if (p == nullptr || !p->is_string()) return;
  std::string_view url_path = p->get_string();
  if (url_path.empty() || url_path == "/") return;
  if (url_path == "//") {
    errs.push_back(invalid_error(path + ".path", *p, "segment[0] may not be empty"));
  } else if (url_path.front() != '/') {
    errs.push_back(invalid_error(path + ".path", *p, "must start with a '/'"));
  }
}

void validate_client_config(const json::value* cc, const std::string& path, FieldErrors& errs) {
  const json::value* url = cc != nullptr ? json::find(*cc, "url") : nullptr;
  const json::value* svc = cc != nullptr ? json::find(*cc, "service") : nullptr;
  const bool has_url = url != nullptr && !url->is_null();
  const bool has_svc = svc != nullptr && !svc->is_null();
  if (has_url == has_svc) {
    errs.push_back(required_error(path, "exactly one of url or service is required"));
  } else if (has_url) {
    validate_url(url->is_string() ? std::string_view(url->get_string()) : "", path + ".url", errs);
  } else {
    validate_service(*svc, path + ".service", errs);
  }
}

void validate_review_versions(const json::value* versions_v, const std::string& path, FieldErrors& errs) {
  std::vector<std::string_view> versions = strings_of(versions_v);
  if (versions.empty()) {
    errs.push_back(required_error(path, "must specify one of v1, v1beta1"));
    return;
  }
  std::set<std::string_view> seen;
  bool accepted = false;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    std::string index = fmt::format("{}[{}]", path, i);
    if (!seen.insert(versions[i]).second) {
      errs.push_back(invalid_error(index, json::value(versions[i]), "duplicate version"));
      continue;
    }
    for (const auto& p : dns1123_label_problems(versions[i])) errs.push_back(invalid_error(index, json::value(versions[i]), p));
    accepted = accepted || versions[i] == "v1" || versions[i] == "v1beta1";
  }
  if (!accepted) errs.push_back(invalid_error(path, *versions_v, "must include at least one of v1, v1beta1"));
}

void validate_webhook(const json::value& hook, bool mutating, const std::string& path, FieldErrors& errs) {
  std::string_view name = json::get_string(hook, "name");
  if (name.empty()) {
    errs.push_back(required_error(path + ".name"));
  } else {
    // IsFullyQualifiedName: a DNS subdomain with at least three segments.
    for (const auto& p : dns1123_subdomain_problems(name)) errs.push_back(invalid_error(path + ".name", json::value(name), p));
    if (std::count(name.begin(), name.end(), '.') < 2) {
      errs.push_back(invalid_error(path + ".name", json::value(name), "should be a domain with at least three segments separated by dots"));
    }
  }
  if (const json::value* rules = json::find(hook, "rules"); rules != nullptr && rules->is_array()) {
    const json::array& list = rules->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) validate_rule(list[i], fmt::format("{}.rules[{}]", path, i), errs);
  }
  std::string_view failure = json::get_string(hook, "failurePolicy");
  if (failure != "Fail" && failure != "Ignore") {
    errs.push_back(not_supported_error(path + ".failurePolicy", json::value(failure), {"Fail", "Ignore"}));
  }
  std::string_view match = json::get_string(hook, "matchPolicy");
  if (match != "Equivalent" && match != "Exact") {
    errs.push_back(not_supported_error(path + ".matchPolicy", json::value(match), {"Equivalent", "Exact"}));
  }
  const json::value* side = json::find(hook, "sideEffects");
  if (side == nullptr || side->is_null()) {
    errs.push_back(required_error(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
  } else if (!side->is_string() || (side->get_string() != "None" && side->get_string() != "NoneOnDryRun")) {
    errs.push_back(not_supported_error(path + ".sideEffects", *side, {"None", "NoneOnDryRun"}));
  }
  if (const json::value* t = json::find(hook, "timeoutSeconds"); t != nullptr && t->is_int64()) {
    if (t->get_int64() < 1 || t->get_int64() > 30) {
      errs.push_back(invalid_error(path + ".timeoutSeconds", *t, "the timeout value must be between 1 and 30 seconds"));
    }
  }
  for (const auto& e : validate_label_selector(json::find(hook, "namespaceSelector"), path + ".namespaceSelector")) errs.push_back(e);
  for (const auto& e : validate_label_selector(json::find(hook, "objectSelector"), path + ".objectSelector")) errs.push_back(e);
  if (mutating) {
    std::string_view reinvocation = json::get_string(hook, "reinvocationPolicy");
    if (reinvocation != "Never" && reinvocation != "IfNeeded") {
      errs.push_back(not_supported_error(path + ".reinvocationPolicy", json::value(reinvocation), {"IfNeeded", "Never"}));
    } else if (reinvocation == "IfNeeded") {
      errs.push_back(forbidden_error(path + ".reinvocationPolicy",
                                     "IfNeeded is not supported by kueuepp's embedded API server: use Never"));
    }
  }
  validate_client_config(json::find(hook, "clientConfig"), path + ".clientConfig", errs);
  if (const json::value* mc = json::find(hook, "matchConditions"); mc != nullptr && mc->is_array() && !mc->as_array().empty()) {
    errs.push_back(forbidden_error(path + ".matchConditions",
                                   "matchConditions are not supported by kueuepp's embedded API server: remove them and "
                                   "narrow the webhook with rules, namespaceSelector or objectSelector"));
  }
}

class WebhookConfigurationStrategy final : public BuiltinStrategy {
 public:
  explicit WebhookConfigurationStrategy(bool mutating)
      : BuiltinStrategy(std::string(kGroup),
                        mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
                        ListTable({keyed_list("webhooks", "name")})),
        mutating_(mutating) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kWebhookFields); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    if (json::value* hooks = decoded->as_object().if_contains("webhooks"); hooks != nullptr && hooks->is_array()) {
      for (auto& hook : hooks->as_array()) {
        if (hook.is_object()) default_webhook(hook.as_object(), mutating_);
      }
    }
    return decoded;
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    const json::value* hooks = obj.if_contains("webhooks");
    if (hooks == nullptr || !hooks->is_array()) return errs;
    const json::array& list = hooks->as_array();
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string path = fmt::format("webhooks[{}]", i);
      validate_webhook(list[i], mutating_, path, errs);
      validate_review_versions(json::find(list[i], "admissionReviewVersions"), path + ".admissionReviewVersions", errs);
      std::string_view name = json::get_string(list[i], "name");
      if (!name.empty() && !names.insert(name).second) errs.push_back(duplicate_error(path + ".name", json::value(name)));
    }
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object&, const WriteContext& ctx) const override {
    return validate(obj, ctx);
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Webhooks", "integer", "", "Webhooks indicates the number of webhooks in the configuration.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::value* hooks = obj.if_contains("webhooks");
    std::size_t n = hooks != nullptr && hooks->is_array() ? hooks->as_array().size() : 0;
    return json::array{n, json::value(age_of(obj))};
  }

 private:
  bool mutating_;
};

}  // namespace

StrategyPtr make_mutating_webhook_configuration_strategy() {
  return std::make_shared<WebhookConfigurationStrategy>(true);
}
StrategyPtr make_validating_webhook_configuration_strategy() {
  return std::make_shared<WebhookConfigurationStrategy>(false);
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/aggregation/api_service.hpp"

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

int int_of(const json::value& obj, std::string_view key, int fallback) {
  const json::value* v = json::find(obj, key);
  return v != nullptr && v->is_int64() ? static_cast<int>(v->get_int64()) : fallback;
}

const json::value* available_condition(const json::value& doc) {
  const json::value* status = json::find(doc, "status");
  const json::value* conditions = status != nullptr ? json::find(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& c : conditions->as_array()) {
    if (json::get_string(c, "type") == "Available") return &c;
  }
  return nullptr;
}

}  // namespace

ApiServiceSpec read_api_service(const json::value& doc) {
  ApiServiceSpec out;
  if (const json::value* meta = json::find(doc, "metadata")) out.name = std::string(json::get_string(*meta, "name"));
  const json::value* spec = json::find(doc, "spec");
  if (spec == nullptr || !spec->is_object()) return out;
  out.group = std::string(json::get_string(*spec, "group"));
  out.version = std::string(json::get_string(*spec, "version"));
  out.group_priority_minimum = int_of(*spec, "groupPriorityMinimum", 0);
  out.version_priority = int_of(*spec, "versionPriority", 0);
  const json::value* insecure = json::find(*spec, "insecureSkipTLSVerify");
  out.insecure_skip_verify = insecure != nullptr && insecure->is_bool() && insecure->get_bool();
  out.ca_pem = core::base64_decode(json::get_string(*spec, "caBundle")).value_or("");
  if (const json::value* svc = json::find(*spec, "service"); svc != nullptr && svc->is_object()) {
    out.local = false;
    out.service_namespace = std::string(json::get_string(*svc, "namespace"));
    out.service_name = std::string(json::get_string(*svc, "name"));
    out.service_port = int_of(*svc, "port", 443);
  }
  return out;
}

bool api_service_available(const json::value& doc) {
  const json::value* c = available_condition(doc);
  return c != nullptr && json::get_string(*c, "status") == "True";
}

std::optional<json::value> with_available_condition(const json::value& doc, std::string_view status,
                                                    std::string_view reason, std::string_view message,
                                                    std::string_view now) {
  const json::value* old = available_condition(doc);
  if (old != nullptr && json::get_string(*old, "status") == status && json::get_string(*old, "reason") == reason &&
      json::get_string(*old, "message") == message) {
    return std::nullopt;
  }
  std::string transition = old != nullptr && json::get_string(*old, "status") == status
                               ? std::string(json::get_string(*old, "lastTransitionTime"))
                               : std::string(now);
  json::object condition{{"type", "Available"},
                         {"status", status},
                         {"lastTransitionTime", transition},
                         {"reason", reason},
                         {"message", message}};
  json::value next = doc;
  json::object& obj = next.as_object();
  json::value& st = obj["status"];
  if (!st.is_object()) st = json::object{};
  json::value& conditions = st.as_object()["conditions"];
  if (!conditions.is_array()) conditions = json::array{};
  bool replaced = false;
  for (auto& c : conditions.as_array()) {
    if (json::get_string(c, "type") == "Available") {
      c = condition;
      replaced = true;
    }
  }
  if (!replaced) conditions.as_array().push_back(std::move(condition));
  return next;
}

}  // namespace kueuepp::kube::server

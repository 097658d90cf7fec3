#include "kube/apiserver/server/strategy/field_types.hpp"

#include <algorithm>
#include <array>
#include <regex>

#include <fmt/format.h>

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

std::string_view json_kind(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  return "number";
}

std::string_view go_type(FieldType t) {
  switch (t) {
    case FieldType::String: return "string";
    case FieldType::Bool: return "bool";
    case FieldType::Integer: return "int32";
    case FieldType::Object: return "struct";
    case FieldType::StringList: return "[]string";
    case FieldType::ObjectList: return "[]struct";
    case FieldType::StringMap: return "map[string]string";
    case FieldType::Base64Map: return "map[string][]uint8";
    case FieldType::QuantityMap: return "map[ResourceName]resource.Quantity";
  }
  return "struct";
}

bool is_integer(const json::value& v) { return v.is_int64() || v.is_uint64(); }

/// resource.Quantity's serialized form (the pattern of the CRD schemas' quantities).
bool is_quantity(const json::value& v) {
  if (v.is_number()) return true;
  if (!v.is_string()) return false;
  static const std::regex pattern(
      R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)");
  std::string_view s = v.get_string();
  return std::regex_match(s.begin(), s.end(), pattern);
}

/// Standard base64 with padding, as Go's encoding/json decodes []byte.
bool is_base64(std::string_view s) { return !core::base64_error_at(s).has_value(); }

/// Whether every element passes `ok`; nulls pass (Go keeps the zero value).
template <class Pred>
bool all_elements(const json::array& a, Pred ok) {
  return std::all_of(a.begin(), a.end(), [&](const json::value& v) { return v.is_null() || ok(v); });
}

/// Whether every member's value passes `ok`; nulls pass.
template <class Pred>
bool all_values(const json::object& o, Pred ok) {
  return std::all_of(o.begin(), o.end(), [&](const auto& kv) { return kv.value().is_null() || ok(kv.value()); });
}

bool has_type(const json::value& v, FieldType t) {
  switch (t) {
    case FieldType::String: return v.is_string();
    case FieldType::Bool: return v.is_bool();
    case FieldType::Integer: return is_integer(v);
    case FieldType::Object: return v.is_object();
    case FieldType::ObjectList:
      return v.is_array() && all_elements(v.as_array(), [](const json::value& e) { return e.is_object(); });
    case FieldType::StringList:
      return v.is_array() && all_elements(v.as_array(), [](const json::value& e) { return e.is_string(); });
    case FieldType::StringMap:
      return v.is_object() && all_values(v.as_object(), [](const json::value& e) { return e.is_string(); });
    case FieldType::Base64Map:
      return v.is_object() &&
             all_values(v.as_object(), [](const json::value& e) { return e.is_string() && is_base64(e.get_string()); });
    case FieldType::QuantityMap: return v.is_object() && all_values(v.as_object(), is_quantity);
  }
  return true;
}

/// The element type of a list or map field whose own JSON type is right, where Go's
/// decoder names the element that is wrong rather than the whole field.
std::optional<std::string_view> element_type(FieldType t) {
  switch (t) {
    case FieldType::StringList:
    case FieldType::StringMap: return "string";
    case FieldType::ObjectList: return "struct";
    default: return std::nullopt;
  }
}

/// The first element of a list or map that is neither null nor of the element type.
const json::value* wrong_element(const json::value& v, FieldType type) {
  auto wrong = [&](const json::value& e) { return !e.is_null() && !(type == FieldType::ObjectList ? e.is_object() : e.is_string()); };
  if (const auto* a = v.if_array()) {
    for (const auto& e : *a) {
      if (wrong(e)) return &e;
    }
  }
  if (const auto* o = v.if_object()) {
    for (const auto& kv : *o) {
      if (wrong(kv.value())) return &kv.value();
    }
  }
  return nullptr;
}

std::string mismatch(const json::value& v, const std::string& path, FieldType type) {
  const bool container_fits = type == FieldType::StringMap ? v.is_object() : v.is_array();
  if (auto element = element_type(type); element && container_fits) {
    if (const json::value* e = wrong_element(v, type)) {
      return fmt::format("json: cannot unmarshal {} into Go struct field {} of type {}", json_kind(*e), path, *element);
    }
  }
  return fmt::format("json: cannot unmarshal {} into Go struct field {} of type {}", json_kind(v), path, go_type(type));
}

/// Checks the field at `rest` (a dotted path, "[]" visiting list elements) below `obj`,
/// whose own path is `where`. A step that is not an object (or not a list where "[]"
/// says one) is left alone: the entry for that step reports it.
std::optional<std::string> check(const json::object& obj, std::string_view rest, const std::string& where,
                                 FieldType type) {
  std::size_t dot = rest.find('.');
  std::string_view seg = rest.substr(0, dot);
  std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  bool each = seg.size() > 2 && seg.substr(seg.size() - 2) == "[]";
  if (each) seg.remove_suffix(2);
  const json::value* member = obj.if_contains(seg);
  if (member == nullptr || member->is_null()) return std::nullopt;
  std::string path = where.empty() ? std::string(seg) : fmt::format("{}.{}", where, seg);
  if (each) {
    if (!member->is_array()) return std::nullopt;
    for (const auto& element : member->as_array()) {
      if (!element.is_object()) continue;
      if (auto problem = check(element.as_object(), tail, path, type)) return problem;
    }
    return std::nullopt;
  }
  if (!tail.empty()) {
    if (!member->is_object()) return std::nullopt;
    return check(member->as_object(), tail, path, type);
  }
  if (has_type(*member, type)) return std::nullopt;
  return mismatch(*member, path, type);
}

constexpr std::array kPodSpecFields{
    TypedField{"containers", FieldType::ObjectList},
    TypedField{"initContainers", FieldType::ObjectList},
    // Containers.
    TypedField{"containers[].name", FieldType::String},
    TypedField{"containers[].image", FieldType::String},
    TypedField{"containers[].imagePullPolicy", FieldType::String},
    TypedField{"containers[].workingDir", FieldType::String},
    TypedField{"containers[].command", FieldType::StringList},
    TypedField{"containers[].args", FieldType::StringList},
    TypedField{"containers[].env", FieldType::ObjectList},
    TypedField{"containers[].env[].name", FieldType::String},
    TypedField{"containers[].env[].value", FieldType::String},
    TypedField{"containers[].env[].valueFrom", FieldType::Object},
    TypedField{"containers[].envFrom", FieldType::ObjectList},
    TypedField{"containers[].ports", FieldType::ObjectList},
    TypedField{"containers[].ports[].name", FieldType::String},
    TypedField{"containers[].ports[].containerPort", FieldType::Integer},
    TypedField{"containers[].ports[].hostPort", FieldType::Integer},
    TypedField{"containers[].ports[].protocol", FieldType::String},
    TypedField{"containers[].resources", FieldType::Object},
    TypedField{"containers[].resources.requests", FieldType::QuantityMap},
    TypedField{"containers[].resources.limits", FieldType::QuantityMap},
    TypedField{"containers[].volumeMounts", FieldType::ObjectList},
    TypedField{"initContainers[].name", FieldType::String},
    TypedField{"initContainers[].image", FieldType::String},
    TypedField{"initContainers[].command", FieldType::StringList},
    TypedField{"initContainers[].args", FieldType::StringList},
    TypedField{"initContainers[].env", FieldType::ObjectList},
    TypedField{"initContainers[].resources", FieldType::Object},
    TypedField{"initContainers[].resources.requests", FieldType::QuantityMap},
    TypedField{"initContainers[].resources.limits", FieldType::QuantityMap},
    // Scheduling.
    TypedField{"restartPolicy", FieldType::String},
    TypedField{"nodeSelector", FieldType::StringMap},
    TypedField{"nodeName", FieldType::String},
    TypedField{"affinity", FieldType::Object},
    TypedField{"tolerations", FieldType::ObjectList},
    TypedField{"tolerations[].key", FieldType::String},
    TypedField{"tolerations[].operator", FieldType::String},
    TypedField{"tolerations[].value", FieldType::String},
    TypedField{"tolerations[].effect", FieldType::String},
    TypedField{"tolerations[].tolerationSeconds", FieldType::Integer},
    TypedField{"schedulingGates", FieldType::ObjectList},
    TypedField{"schedulingGates[].name", FieldType::String},
    TypedField{"schedulerName", FieldType::String},
    TypedField{"priorityClassName", FieldType::String},
    TypedField{"priority", FieldType::Integer},
    TypedField{"runtimeClassName", FieldType::String},
    TypedField{"overhead", FieldType::QuantityMap},
    TypedField{"serviceAccountName", FieldType::String},
    TypedField{"activeDeadlineSeconds", FieldType::Integer},
    TypedField{"terminationGracePeriodSeconds", FieldType::Integer},
    TypedField{"volumes", FieldType::ObjectList},
};

}  // namespace

std::optional<std::string> wrong_field_type(const json::object& obj, std::string_view base,
                                            std::span<const TypedField> fields) {
  const json::object* start = &obj;
  std::string where(base);
  while (!base.empty()) {
    std::size_t dot = base.find('.');
    const json::value* next = start->if_contains(base.substr(0, dot));
    if (next == nullptr || !next->is_object()) return std::nullopt;
    start = &next->as_object();
    base = dot == std::string_view::npos ? std::string_view() : base.substr(dot + 1);
  }
  for (const auto& f : fields) {
    if (auto problem = check(*start, f.path, where, f.type)) return problem;
  }
  return std::nullopt;
}

std::span<const TypedField> pod_spec_fields() { return kPodSpecFields; }

}  // namespace kueuepp::kube::server

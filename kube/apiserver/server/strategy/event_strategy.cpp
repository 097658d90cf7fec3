// Events: stored as core/v1 Events and served through both /api/v1 and
// events.k8s.io/v1, converting field by field (message<->note,
// involvedObject<->regarding, source<->deprecatedSource, first/lastTimestamp and count
// <->deprecated*, reportingComponent<->reportingController). Validation follows
// kube-apiserver's ValidateEventCreate: legacy rules for everything, the strict rules
// for events created through events.k8s.io.

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

/// core field <-> events.k8s.io field, for the fields whose names differ.
constexpr std::pair<std::string_view, std::string_view> kRenames[] = {
    {"message", "note"},
    {"involvedObject", "regarding"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

bool events_api(const ResourceType& view) { return view.group == "events.k8s.io"; }

std::string_view string_at(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool has_time(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  return v != nullptr && !v->is_null() && !(v->is_string() && v->get_string().empty());
}

/// The members Go's core/v1 Event always serializes (structs and non-omitempty fields),
/// and none of its omitempty members when empty.
void normalize_core(json::object& e) {
  for (std::string_view k : {"involvedObject", "source"}) {
    if (!e.contains(k) || !e.at(k).is_object()) e[k] = json::object{};
  }
  for (std::string_view k : {"firstTimestamp", "lastTimestamp", "eventTime"}) {
    if (!e.contains(k)) e[k] = nullptr;
  }
  for (std::string_view k : {"reportingComponent", "reportingInstance"}) {
    if (!e.contains(k)) e[k] = "";
  }
  for (std::string_view k : {"reason", "message", "type", "action"}) {
    if (const json::value* v = e.if_contains(k); v != nullptr && v->is_string() && v->get_string().empty()) e.erase(k);
  }
  if (auto c = int_at(e, {"count"}); c && *c == 0) e.erase("count");
}

json::object to_events_v1(const json::object& core) {
  json::object out;
  for (const auto& [key, value] : core) {
    std::string_view name = key;
    for (const auto& [c, v] : kRenames) {
      if (name == c) name = v;
    }
    out[name] = value;
  }
  // events.k8s.io/v1 serializes empty strings and zero counts as absent.
  for (std::string_view k : {"reportingController", "reportingInstance", "note", "reason", "type", "action"}) {
    if (const json::value* v = out.if_contains(k); v != nullptr && v->is_string() && v->get_string().empty()) out.erase(k);
  }
  for (std::string_view k : {"deprecatedFirstTimestamp", "deprecatedLastTimestamp", "eventTime"}) {
    if (!out.contains(k)) out[k] = nullptr;
  }
  if (!out.contains("deprecatedSource")) out["deprecatedSource"] = json::object{};
  return out;
}

json::object to_core(const json::object& v1) {
  json::object out;
  for (const auto& [key, value] : v1) {
    std::string_view name = key;
    for (const auto& [c, v] : kRenames) {
      if (name == v) name = c;
    }
    out[name] = value;
  }
  return out;
}

void validate_qualified(std::string_view field, std::string_view value, FieldErrors& errs) {
  for (const auto& p : qualified_name_problems(value)) errs.push_back(invalid_error(std::string(field), json::value(value), p));
}

class EventStrategy final : public BuiltinStrategy {
 public:
  EventStrategy() : BuiltinStrategy("", "Event") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    const json::object& in = body.as_object();
    bool v1 = events_api(*ctx.view);
    std::string_view version = ctx.view->version;
    if (auto st = check_micro_time(in.if_contains("eventTime"), "Event", version); !st) return unexpected(st.error());
    if (auto st = check_micro_time(at(in, {"series", "lastObservedTime"}), "Event", version); !st) {
      return unexpected(st.error());
    }
    json::object core = v1 ? to_core(in) : json::object(in);
    core["apiVersion"] = "v1";
    normalize_core(core);
    return json::value(std::move(core));
  }

  json::value encode(const json::value& stored, const ResourceType& view) const override {
    if (!events_api(view)) return stored;
    json::object out = to_events_v1(stored.as_object());
    out["apiVersion"] = view.api_version();
    return out;
  }

  bool converts(const ResourceType& view) const override { return events_api(view); }

  FieldErrors validate(const json::object& e, const WriteContext& ctx) const override {
    FieldErrors errs;
    bool v1 = events_api(*ctx.view);
    std::string_view ns = meta_string(e, "namespace");
    // Read through a pointer: a conditional between e.at() and a temporary would copy the
    // object into a temporary and leave the view dangling.
    const json::value* involved = e.if_contains("involvedObject");
    std::string_view involved_ns = involved != nullptr ? json::get_string(*involved, "namespace") : std::string_view();
    std::string_view reporting_field = v1 ? "reportingController" : "reportingComponent";
    if (!has_time(e, "eventTime")) {
      if (involved_ns.empty() ? (!ns.empty() && ns != "default") : ns != involved_ns) {
        errs.push_back(invalid_error("involvedObject.namespace", json::value(involved_ns), "does not match event.namespace"));
      }
    } else {
      if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
        errs.push_back(invalid_error("involvedObject.namespace", json::value(involved_ns), "does not match event.namespace"));
      }
      std::string_view controller = string_at(e, "reportingComponent");
      if (controller.empty()) errs.push_back(required_error(std::string(reporting_field)));
      validate_qualified(reporting_field, controller, errs);
      std::string_view instance = string_at(e, "reportingInstance");
      if (instance.empty()) errs.push_back(required_error("reportingInstance"));
      if (instance.size() > 128) errs.push_back(invalid_error("reportingInstance", json::value(""), "can have at most 128 characters"));
      std::string_view action = string_at(e, "action");
      if (action.empty()) errs.push_back(required_error("action"));
      if (action.size() > 128) errs.push_back(invalid_error("action", json::value(""), "can have at most 128 characters"));
      std::string_view reason = string_at(e, "reason");
      if (reason.empty()) errs.push_back(required_error("reason"));
      if (reason.size() > 128) errs.push_back(invalid_error("reason", json::value(""), "can have at most 128 characters"));
      if (string_at(e, "message").size() > 1024) errs.push_back(invalid_error("message", json::value(""), "can have at most 1024 characters"));
    }
    if (!v1) return errs;
    // events.k8s.io: the strict rules of new-style events.
    if (!has_time(e, "eventTime")) errs.push_back(required_error("eventTime"));
    std::string_view type = string_at(e, "type");
    if (type != "Normal" && type != "Warning") {
      errs.push_back(invalid_error("type", json::value(""), fmt::format("has invalid value: {}", type)));
    }
    if (has_time(e, "firstTimestamp")) errs.push_back(invalid_error("firstTimestamp", json::value(""), "needs to be unset"));
    if (has_time(e, "lastTimestamp")) errs.push_back(invalid_error("lastTimestamp", json::value(""), "needs to be unset"));
    if (int_at(e, {"count"}).value_or(0) != 0) errs.push_back(invalid_error("count", json::value(""), "needs to be unset"));
    const json::value* source = e.if_contains("source");
    if (source != nullptr && source->is_object() &&
        (!json::get_string(*source, "component").empty() || !json::get_string(*source, "host").empty())) {
      errs.push_back(invalid_error("source", json::value(""), "needs to be unset"));
    }
    return errs;
  }

  FieldErrors validate_update(const json::object&, const json::object&, const WriteContext&) const override {
    return {};
  }

  bool allow_create_on_update() const override { return true; }

  std::vector<std::string> selectable_fields() const override {
    return {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
            "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
            "reportingComponent", "source", "type", "regarding.kind", "regarding.namespace", "regarding.name",
            "regarding.uid", "regarding.apiVersion", "reportingController", "deprecatedSource"};
  }

  std::optional<std::string> field_value(const json::object& obj, std::string_view field) const override {
    std::string name(field);
    if (name.rfind("regarding.", 0) == 0) name = "involvedObject." + name.substr(10);
    if (name == "reportingController") name = "reportingComponent";
    if (name == "source" || name == "deprecatedSource") return value_at_path(obj, "source.component");
    return value_at_path(obj, name);
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Last Seen", "string", "", "Time since the event was last seen", 0, ""},
            {"Type", "string", "", "Normal or Warning", 0, ""},
            {"Reason", "string", "", "Why the event happened", 0, ""},
            {"Object", "string", "", "The object the event is about", 0, ""},
            {"Message", "string", "", "A human-readable description", 0, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::value* inv = obj.if_contains("involvedObject");
    std::string object = inv != nullptr ? fmt::format("{}/{}", json::get_string(*inv, "kind"), json::get_string(*inv, "name")) : "";
    std::string kind_lower;
    for (char c : object) kind_lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    std::size_t slash = object.find('/');
    if (slash != std::string::npos) object = kind_lower.substr(0, slash) + object.substr(slash);
    return json::array{json::value(age_of(obj)), json::value(string_at(obj, "type")),
                       json::value(string_at(obj, "reason")), json::value(object),
                       json::value(string_at(obj, "message"))};
  }
};

}  // namespace

StrategyPtr make_event_strategy() { return std::make_shared<EventStrategy>(); }

}  // namespace kueuepp::kube::server

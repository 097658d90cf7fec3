#include "actors/event_json.hpp"

#include "actors/watched_kinds.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

std::string event_namespace(const messages::RecordEvent& e) { return e.ns.empty() ? std::string("default") : e.ns; }

std::string new_event_json(const messages::RecordEvent& e, const EventAction& a) {
  const std::string stamp = core::format_rfc3339(a.first);
  std::string out;
  out.reserve(512 + e.message.size());
  auto member = [&out](std::string_view key, std::string_view value) {
    json::append_quoted(out, key);
    out += ':';
    json::append_quoted(out, value);
  };
  out += R"({"apiVersion":"v1","kind":"Event","metadata":{)";
  member("name", a.event_name);
  out += ',';
  member("namespace", event_namespace(e));
  out += R"(},"involvedObject":{)";
  member("apiVersion", resource_of(e.kind).api_version());
  out += ',';
  member("kind", to_string(e.kind));
  out += ',';
  member("name", e.name);
  out += ',';
  member("uid", e.uid);
  if (!e.ns.empty()) {
    out += ',';
    member("namespace", e.ns);
  }
  out += "},";
  member("reason", e.reason);
  out += ',';
  member("message", e.message);
  out += ',';
  member("type", e.warning ? "Warning" : "Normal");
  out += R"(,"source":{)";
  member("component", kEventComponent);
  out += "},";
  member("reportingComponent", kEventComponent);
  out += ',';
  member("firstTimestamp", stamp);
  out += ',';
  member("lastTimestamp", stamp);
  out += R"(,"count":1})";
  return out;
}

}  // namespace kueuepp::actors

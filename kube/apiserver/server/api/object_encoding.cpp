#include "kube/apiserver/server/api/object_encoding.hpp"

#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names";

json::object column_definition(const PrinterColumn& c) {
  json::object d;
  d["name"] = c.name;
  d["type"] = c.type;
  d["format"] = c.format;
  d["description"] = c.description;
  d["priority"] = c.priority;
  return d;
}

std::shared_ptr<const std::string> event_line(std::string_view type, std::string_view object_json) {
  std::string line;
  line.reserve(object_json.size() + type.size() + 24);
  line.append(R"({"type":")").append(type).append(R"(","object":)").append(object_json).append("}\n");
  return std::make_shared<const std::string>(std::move(line));
}

}  // namespace

bool presented_as_stored(const StoredObject& object, const ResourceType& view) {
  if (!view.custom) return !view.strategy->converts(view);
  // Objects stay in the version they were written in until written again, whatever the
  // storage version is now.
  const json::value* api_version = json::find(object.doc, "apiVersion");
  return api_version != nullptr && api_version->is_string() && api_version->get_string() == view.api_version();
}

json::value object_value(const StoredObject& object, const ResourceType& view) {
  if (presented_as_stored(object, view)) return object.document();
  return view.strategy->encode(object.document(), view);
}

std::string object_json(const StoredObject& object, const ResourceType& view) {
  if (presented_as_stored(object, view)) return object.json;
  return json::dump(view.strategy->encode(object.document(), view));
}

namespace {

json::object partial_metadata_head() {
  json::object out;
  out["kind"] = "PartialObjectMetadata";
  out["apiVersion"] = "meta.k8s.io/v1";
  return out;
}

}  // namespace

json::value partial_metadata(const json::object& object, const ResourceType&) {
  json::object out = partial_metadata_head();
  if (const json::object* m = metadata_of(object)) out["metadata"] = *m;
  return out;
}

json::value partial_metadata(const StoredObject& object, const ResourceType&) {
  json::object out = partial_metadata_head();
  out["metadata"] = object.metadata();
  return out;
}

json::value make_table(const std::vector<const json::object*>& objects, const ResourceType& view,
                       std::string_view include_object, std::string_view list_rv,
                       std::string_view continue_token) {
  json::object table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  json::object meta;
  if (!list_rv.empty()) meta["resourceVersion"] = list_rv;
  if (!continue_token.empty()) meta["continue"] = continue_token;
  table["metadata"] = std::move(meta);
  std::vector<PrinterColumn> columns = view.strategy->columns(view);
  json::array defs;
  defs.push_back(column_definition(PrinterColumn{"Name", "string", "name", std::string(kNameDescription), 0, ""}));
  for (const auto& c : columns) defs.push_back(column_definition(c));
  table["columnDefinitions"] = std::move(defs);
  json::array rows;
  for (const json::object* obj : objects) {
    json::object row;
    json::array cells;
    cells.push_back(json::value(meta_string(*obj, "name")));
    for (auto& cell : view.strategy->cells(*obj, view)) cells.push_back(std::move(cell));
    row["cells"] = std::move(cells);
    if (include_object == "Object") {
      row["object"] = view.strategy->converts(view) ? view.strategy->encode(*obj, view) : json::value(*obj);
    } else if (include_object != "None") {
      row["object"] = partial_metadata(*obj, view);
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

std::shared_ptr<const std::string> watch_event_line(std::string_view type, const StoredObject& object,
                                                    const ResourceType& view, Representation rep,
                                                    std::string_view include_object) {
  switch (rep) {
    case Representation::Table: {
      const json::value doc = object.document();
      const json::object& obj = doc.as_object();
      return event_line(type, json::dump(make_table({&obj}, view, include_object, std::to_string(object.rv))));
    }
    case Representation::PartialMetadata:
      return event_line(type, json::dump(partial_metadata(object, view)));
    default:
      if (presented_as_stored(object, view)) return event_line(type, object.json);
      return event_line(type, json::dump(view.strategy->encode(object.document(), view)));
  }
}

std::shared_ptr<const std::string> watch_event_line(std::string_view type, const json::value& presented,
                                                    const ResourceType& view, Representation rep,
                                                    std::string_view include_object, std::uint64_t rv) {
  switch (rep) {
    case Representation::Table:
      return event_line(type, json::dump(make_table({&presented.as_object()}, view, include_object, std::to_string(rv))));
    case Representation::PartialMetadata:
      return event_line(type, json::dump(partial_metadata(presented.as_object(), view)));
    default:
      return event_line(type, json::dump(presented));
  }
}

std::shared_ptr<const std::string> bookmark_line(const ResourceType& view, std::uint64_t rv, bool initial_events_end) {
  json::object meta;
  meta["resourceVersion"] = std::to_string(rv);
  meta["creationTimestamp"] = nullptr;
  if (initial_events_end) meta["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
  json::object obj;
  obj["kind"] = view.kind;
  obj["apiVersion"] = view.api_version();
  obj["metadata"] = std::move(meta);
  return event_line("BOOKMARK", json::dump(obj));
}

std::shared_ptr<const std::string> error_line(const json::value& status) {
  return event_line("ERROR", json::dump(status));
}

}  // namespace kueuepp::kube::server

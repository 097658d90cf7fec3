#include "kube/apiserver/patch/managed_fields.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace kueuepp::kube::patch::detail {

std::string ManagedEntry::identity() const {
  // The JSON upstream builds from a ManagedFieldsEntry without fields and time (and
  // without apiVersion for appliers); field order and omitempty as in the Go struct.
  json::object id;
  if (!manager.empty()) id["manager"] = manager;
  if (!operation.empty()) id["operation"] = operation;
  if (!applied() && !api_version.empty()) id["apiVersion"] = api_version;
  if (!subresource.empty()) id["subresource"] = subresource;
  return json::dump(json::value(std::move(id)));
}

std::string ManagedEntry::display() const {
  std::string out = json::dump(json::value(manager));
  if (!subresource.empty()) out += " with subresource " + json::dump(json::value(subresource));
  if (!applied()) out += " using " + api_version;
  return out;
}

Expected<ManagedEntries> decode_managed_fields(const json::value& object) {
  return decode_managed_field_list(json::find_path(object, {"metadata", "managedFields"}));
}

Expected<ManagedEntries> decode_managed_field_list(const json::value* list) {
  ManagedEntries entries;
  if (list == nullptr || list->is_null()) return entries;
  const json::array* a = list->if_array();
  if (a == nullptr) return fail("metadata.managedFields must be a list");
  for (std::size_t i = 0; i < a->size(); ++i) {
    const json::value& e = (*a)[i];
    if (!e.is_object()) return fail("managedFields entry " + std::to_string(i) + " must be an object");
    ManagedEntry entry;
    entry.manager = std::string(json::get_string(e, "manager"));
    entry.operation = std::string(json::get_string(e, "operation"));
    entry.api_version = std::string(json::get_string(e, "apiVersion"));
    entry.time = std::string(json::get_string(e, "time"));
    entry.subresource = std::string(json::get_string(e, "subresource"));
    if (entry.operation != "Apply" && entry.operation != "Update") {
      return fail("managedFields entry " + std::to_string(i) + ": operation must be `Apply` or `Update`");
    }
    if (entry.api_version.empty()) return fail("managedFields entry " + std::to_string(i) + ": apiVersion must not be empty");
    const std::string_view type = json::get_string(e, "fieldsType");
    if (type != "FieldsV1") {
      return fail("managedFields entry " + std::to_string(i) + ": " +
                  (type.empty() ? std::string("missing fieldsType") : "invalid fieldsType \"" + std::string(type) + "\""));
    }
    const json::value* fields = json::find(e, "fieldsV1");
    auto set = FieldSet::from_fields_v1(fields != nullptr ? *fields : json::value(json::object()));
    if (!set) return fail("managedFields entry " + std::to_string(i) + ": " + set.error().message);
    entry.fields = std::move(*set);
    // Entries with the same identity: the later one wins, like upstream's map.
    const std::string id = entry.identity();
    if (ManagedEntry* same = find_entry(entries, id)) {
      *same = std::move(entry);
    } else {
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

bool is_reset_request(const json::value& managed_fields) {
  const json::array* a = managed_fields.if_array();
  if (a == nullptr) return false;
  if (a->empty()) return true;
  return a->size() == 1 && (*a)[0].is_object() && (*a)[0].get_object().empty();
}

void encode_managed_fields(json::value& object, ManagedEntries entries) {
  json::object* o = object.if_object();
  if (o == nullptr) return;
  std::stable_sort(entries.begin(), entries.end(), [](const ManagedEntry& p, const ManagedEntry& q) {
    if (p.operation != q.operation) return p.operation < q.operation;
    if (p.time != q.time) return p.time < q.time;  // RFC 3339 UTC texts order like times
    if (p.manager != q.manager) return p.manager < q.manager;
    if (p.api_version != q.api_version) return p.api_version < q.api_version;
    return p.subresource < q.subresource;
  });
  if (entries.empty()) {
    if (json::value* meta = json::find(object, "metadata"); meta != nullptr && meta->is_object()) {
      meta->get_object().stable_erase("managedFields");
    }
    return;
  }
  json::array list;
  list.reserve(entries.size());
  for (const auto& e : entries) {
    json::object entry;
    entry["manager"] = e.manager;
    entry["operation"] = e.operation;
    entry["apiVersion"] = e.api_version;
    if (!e.time.empty()) entry["time"] = e.time;
    entry["fieldsType"] = "FieldsV1";
    entry["fieldsV1"] = e.fields.to_fields_v1();
    if (!e.subresource.empty()) entry["subresource"] = e.subresource;
    list.push_back(std::move(entry));
  }
  json::value& meta = (*o)["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta.get_object()["managedFields"] = std::move(list);
}

ManagedEntry* find_entry(ManagedEntries& entries, const std::string& identity) {
  for (auto& e : entries) {
    if (e.identity() == identity) return &e;
  }
  return nullptr;
}

const FieldSet& meta_fields() {
  static const FieldSet set = [] {
    FieldSet s;
    auto field = [](std::string_view n) { return PathElement::of_field(n); };
    s.insert(Path{field("apiVersion")});
    s.insert(Path{field("kind")});
    s.insert(Path{field("metadata")});
    for (std::string_view n : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                               "managedFields", "resourceVersion"}) {
      s.insert(Path{field("metadata"), field(n)});
    }
    return s;
  }();
  return set;
}

void drop_empty(ManagedEntries& entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const ManagedEntry& e) { return e.fields.empty(); }),
                entries.end());
}

void cap_update_managers(ManagedEntries& entries, std::size_t max_updaters) {
  std::vector<std::size_t> updaters;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].applied()) updaters.push_back(i);
  }
  if (updaters.size() <= max_updaters) return;
  // Oldest first; ties by identity.
  std::sort(updaters.begin(), updaters.end(), [&entries](std::size_t a, std::size_t b) {
    if (entries[a].time != entries[b].time) return entries[a].time < entries[b].time;
    return entries[a].identity() < entries[b].identity();
  });
  std::vector<bool> dropped(entries.size(), false);
  std::map<std::string, std::size_t> first_of_version;  // apiVersion -> entry index
  std::size_t remaining = updaters.size();
  for (std::size_t k = 0; k < updaters.size() && remaining > max_updaters; ++k) {
    const std::size_t i = updaters[k];
    auto first = first_of_version.find(entries[i].api_version);
    if (first == first_of_version.end()) {
      first_of_version.emplace(entries[i].api_version, i);
      continue;
    }
    // Fold into this version's "ancient-changes" entry; the version's first (oldest)
    // entry becomes it when there is none yet.
    ManagedEntry probe{"ancient-changes", "Update", entries[i].api_version, {}, {}, {}};
    const std::string bucket_id = probe.identity();
    std::size_t b = entries.size();
    for (std::size_t j = 0; j < entries.size(); ++j) {
      if (!dropped[j] && entries[j].identity() == bucket_id) b = j;
    }
    if (b == i) continue;
    if (b == entries.size()) {
      b = first->second;
      entries[b].manager = "ancient-changes";
      entries[b].subresource.clear();
    }
    ManagedEntry& bucket = entries[b];
    bucket.fields = entries[i].fields.united(bucket.fields);
    bucket.time = entries[i].time;
    dropped[i] = true;
    --remaining;
  }
  ManagedEntries kept;
  kept.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!dropped[i]) kept.push_back(std::move(entries[i]));
  }
  entries = std::move(kept);
}

json::value without_managed_fields(const json::value& object) {
  json::value copy = object;
  if (json::value* meta = json::find(copy, "metadata"); meta != nullptr && meta->is_object()) {
    meta->get_object().stable_erase("managedFields");
  }
  return copy;
}

}  // namespace kueuepp::kube::patch::detail

#include "kube/conversion/conversion_stash.hpp"

#include <map>

namespace kueuepp::kube::conversion {
namespace {

void diff_into(const json::value& source, const json::value& round_trip, DocumentPath& path, std::vector<StashEntry>& out) {
  if (json::equal(source, round_trip)) return;
  const auto* a = source.if_object();
  const auto* b = round_trip.if_object();
  if (a != nullptr && b != nullptr) {
    for (const auto& [key, value] : *a) {
      path.emplace_back(std::string(key));
      if (const auto* other = json::find(*b, key)) diff_into(value, *other, path, out);
      else out.push_back({path, value, std::nullopt});
      path.pop_back();
    }
    for (const auto& [key, value] : *b) {
      if (json::find(*a, key) != nullptr) continue;
      path.emplace_back(std::string(key));
      out.push_back({path, std::nullopt, value});
      path.pop_back();
    }
    return;
  }
  const auto* x = source.if_array();
  const auto* y = round_trip.if_array();
  if (x != nullptr && y != nullptr && x->size() == y->size()) {
    for (std::size_t i = 0; i < x->size(); ++i) {
      path.emplace_back(i);
      diff_into((*x)[i], (*y)[i], path, out);
      path.pop_back();
    }
    return;
  }
  out.push_back({path, source, round_trip});
}

bool matches(const json::value* at, const std::optional<json::value>& expected) {
  if (at == nullptr) return !expected.has_value();
  return expected.has_value() && json::equal(*at, *expected);
}

std::optional<StashEntry> entry_from_json(const json::value& v) {
  const auto* o = v.if_object();
  if (o == nullptr) return std::nullopt;
  const auto* path_value = json::find(*o, "path");
  if (path_value == nullptr) return std::nullopt;
  auto path = path_from_json(*path_value);
  if (!path) return std::nullopt;
  StashEntry entry{std::move(*path), std::nullopt, std::nullopt};
  if (const auto* original = json::find(*o, "value")) entry.original = *original;
  if (const auto* converted = json::find(*o, "converted")) entry.converted = *converted;
  return entry;
}

json::object entry_to_json(const StashEntry& entry) {
  json::object o;
  o["path"] = path_to_json(entry.path);
  if (entry.original) o["value"] = *entry.original;
  if (entry.converted) o["converted"] = *entry.converted;
  return o;
}

}  // namespace

std::vector<StashEntry> diff_documents(const json::value& source, const json::value& round_trip) {
  std::vector<StashEntry> out;
  DocumentPath path;
  diff_into(source, round_trip, path, out);
  return out;
}

std::optional<Stash> take_stash(json::object& object) {
  auto* metadata = json::find(object, "metadata");
  auto* annotations = metadata != nullptr ? json::find(*metadata, "annotations") : nullptr;
  auto* map = annotations != nullptr ? annotations->if_object() : nullptr;
  if (map == nullptr) return std::nullopt;
  const auto* text = json::find(*map, kStashAnnotation);
  if (text == nullptr) return std::nullopt;
  std::optional<Stash> stash;
  if (const auto* s = text->if_string()) {
    auto parsed = json::parse(*s);
    if (parsed && parsed->is_object()) {
      Stash read;
      read.version = std::string(json::get_string(*parsed, "version"));
      if (const auto* added = json::find(*parsed, "annotationsAdded"); added != nullptr && added->is_bool()) read.annotations_added = added->get_bool();
      if (const auto* added = json::find(*parsed, "metadataAdded"); added != nullptr && added->is_bool()) read.metadata_added = added->get_bool();
      bool readable = !read.version.empty();
      if (const auto* entries = json::find(*parsed, "entries"); entries != nullptr && entries->is_array()) {
        for (const auto& e : entries->get_array()) {
          auto entry = entry_from_json(e);
          if (!entry) readable = false;
          else read.entries.push_back(std::move(*entry));
        }
      } else {
        readable = false;
      }
      if (readable) stash = std::move(read);
    }
  }
  map->erase(kStashAnnotation);
  if (stash && stash->annotations_added && map->empty()) metadata->as_object().erase("annotations");
  if (stash && stash->metadata_added && metadata->as_object().empty()) object.erase("metadata");
  return stash;
}

void put_stash(json::object& object, const Stash& stash) {
  const bool metadata_added = object.if_contains("metadata") == nullptr;
  auto& metadata = object["metadata"];
  if (!metadata.is_object()) metadata.emplace_object();
  auto& meta = metadata.as_object();
  // Only a map the stash made is removed with it: an empty one the user wrote stays.
  const auto* existing = json::find(meta, "annotations");
  const bool added = existing == nullptr || !existing->is_object();
  auto& annotations = meta["annotations"];
  if (added) annotations.emplace_object();
  json::object body;
  body["version"] = json::string(stash.version);
  if (added) body["annotationsAdded"] = true;
  if (metadata_added) body["metadataAdded"] = true;
  json::array entries;
  entries.reserve(stash.entries.size());
  for (const auto& e : stash.entries) entries.emplace_back(entry_to_json(e));
  body["entries"] = std::move(entries);
  annotations.as_object()[kStashAnnotation] = json::string(json::dump(json::value(std::move(body))));
}

void restore_stash(json::value& object, const std::vector<StashEntry>& entries) {
  std::map<std::string, std::vector<const StashEntry*>> groups;
  for (const auto& e : entries) {
    const auto* top = e.path.empty() ? nullptr : std::get_if<std::string>(&e.path.front());
    if (top != nullptr) groups[*top].push_back(&e);
  }
  auto* root = object.if_object();
  if (root == nullptr) return;
  for (const auto& [top, group] : groups) {
    bool current = true;
    for (const auto* e : group) current = current && matches(value_at(object, e->path), e->converted);
    if (!current) continue;
    // Applied to a copy of the group's field, committed whole: an entry that cannot be
    // applied leaves the group out.
    json::value trial(json::object{});
    if (const auto* field = json::find(*root, top)) trial.as_object()[top] = *field;
    bool applied = true;
    for (const auto* e : group) {
      if (e->original) applied = applied && set_value_at(trial, e->path, *e->original).has_value();
      else erase_value_at(trial, e->path);
    }
    if (!applied) continue;
    auto* restored = json::find(trial, top);
    if (restored != nullptr) (*root)[top] = std::move(*restored);
    else root->erase(top);
  }
}

}  // namespace kueuepp::kube::conversion

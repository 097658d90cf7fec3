#include "kube/apiserver/server/watch/watch_hub.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

bool ObjectFilter::matches(const StoredObject& object) const {
  if (!ns.empty() && object.ns != ns) return false;
  const json::object& obj = object.doc.as_object();
  if (!labels.empty() && !labels.matches(labels_of(obj))) return false;
  if (fields.empty()) return true;
  return fields.matches([&](std::string_view field) -> std::optional<std::string> {
    if (field == "metadata.name") return object.name;
    if (field == "metadata.namespace") return object.ns;
    return view->strategy->field_value(obj, field);
  });
}

std::optional<std::pair<ChangeType, ObjectPtr>> WatchHub::route(const ObjectFilter& filter, const Change& change) {
  switch (change.type) {
    case ChangeType::Added:
      if (filter.matches(*change.object)) return std::make_pair(ChangeType::Added, change.object);
      return std::nullopt;
    case ChangeType::Deleted:
      if (filter.matches(*change.previous)) return std::make_pair(ChangeType::Deleted, change.object);
      return std::nullopt;
    case ChangeType::Modified: {
      bool now = filter.matches(*change.object);
      bool before = filter.matches(*change.previous);
      if (now && before) return std::make_pair(ChangeType::Modified, change.object);
      if (now) return std::make_pair(ChangeType::Added, change.object);
      if (before) {
        // The previous content, stamped with this change's resourceVersion so clients that
        // track the last seen version do not go backwards.
        return std::make_pair(ChangeType::Deleted, restamped(*change.previous, change.rv));
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

WatchHub::WatcherId WatchHub::add(WatcherSpec spec, std::shared_ptr<StreamSink> sink, std::uint64_t start_rv) {
  auto w = std::make_shared<Watcher>();
  w->id = next_id_++;
  w->spec = std::move(spec);
  w->sink = std::move(sink);
  w->start_rv = start_rv;
  by_bucket_[w->spec.bucket].push_back(w);
  watchers_.emplace(w->id, w);
  return w->id;
}

void WatchHub::remove(WatcherId id) {
  auto it = watchers_.find(id);
  if (it == watchers_.end()) return;
  it->second->active = false;
  needs_compact_ = true;
  if (!publishing_) compact();
}

void WatchHub::compact() {
  if (!needs_compact_) return;
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    it = it->second->active ? std::next(it) : watchers_.erase(it);
  }
  for (auto& [bucket, list] : by_bucket_) {
    list.erase(std::remove_if(list.begin(), list.end(), [](const auto& w) { return !w->active; }), list.end());
  }
  needs_compact_ = false;
}

void WatchHub::deliver(Watcher& w, std::shared_ptr<const std::string> bytes) {
  if (w.sink->write(std::move(bytes))) return;
  // Closed, or too far behind: end it with 410 so the client relists and re-watches.
  if (!w.sink->closed()) {
    spdlog::warn("watch of {} ended: the client is not reading fast enough (buffer bound exceeded)",
                 w.spec.view->plural);
    w.sink->finish(error_line(to_status(gone("too old resource version: the watch fell too far behind"))));
  }
  remove(w.id);
}

void WatchHub::publish(const Change& change) {
  published_rv_ = std::max(published_rv_, change.rv);
  auto it = by_bucket_.find(change.bucket);
  if (it == by_bucket_.end() || it->second.empty()) return;
  publishing_ = true;
  // Encoded events of this change, shared by every watcher with the same view.
  struct Encoded {
    const ResourceType* view;
    Representation rep;
    ChangeType type;
    const StoredObject* object;
    std::shared_ptr<const std::string> bytes;
  };
  std::vector<Encoded> cache;
  for (const auto& w : it->second) {
    if (!w->active || change.rv <= w->start_rv) continue;
    auto routed = route(w->spec.filter, change);
    if (!routed) continue;
    if (w->spec.converting) {
      if (!w->spec.converting->event(to_string(routed->first), routed->second)) remove(w->id);
      continue;
    }
    const ResourceType* view = w->spec.view.get();
    bool plain = w->spec.representation == Representation::Json && !view->strategy->converts(*view);
    const ResourceType* key = plain ? nullptr : view;
    auto hit = std::find_if(cache.begin(), cache.end(), [&](const Encoded& e) {
      return e.view == key && e.rep == w->spec.representation && e.type == routed->first &&
             e.object == routed->second.get();
    });
    if (hit == cache.end()) {
      cache.push_back(Encoded{key, w->spec.representation, routed->first, routed->second.get(),
                              watch_event_line(to_string(routed->first), *routed->second, *view,
                                               w->spec.representation, w->spec.include_object)});
      hit = std::prev(cache.end());
    }
    deliver(*w, hit->bytes);
  }
  publishing_ = false;
  compact();
}

void WatchHub::bookmark(std::uint64_t rv) {
  publishing_ = true;
  for (auto& [id, w] : watchers_) {
    if (!w->active || !w->spec.bookmarks || rv <= w->start_rv) continue;
    if (w->spec.converting) {
      if (!w->spec.converting->raw(bookmark_line(*w->spec.view, rv))) remove(w->id);
      continue;
    }
    deliver(*w, bookmark_line(*w->spec.view, rv));
  }
  publishing_ = false;
  compact();
}

}  // namespace kueuepp::kube::server

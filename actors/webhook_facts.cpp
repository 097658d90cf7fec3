#include "actors/webhook_facts.hpp"

namespace kueuepp::actors {

using messages::ObjectKind;

namespace {

constexpr std::string_view kDefault = "default";

core::Labels labels_of(const kube::client::Object& object) {
  core::Labels out;
  for (auto& [k, v] : object.labels()) out.emplace(k, v);
  return out;
}

}  // namespace

bool WebhookFacts::wants(ObjectKind kind) {
  return kind == ObjectKind::Namespace || kind == ObjectKind::LocalQueue || kind == ObjectKind::WorkloadPriorityClass;
}

void WebhookFacts::relist(ObjectKind kind, const std::vector<messages::CachedObject>& items) {
  if (!wants(kind)) return;
  listed_.insert(kind);
  switch (kind) {
    case ObjectKind::Namespace: namespaces_.clear(); break;
    case ObjectKind::LocalQueue: default_queue_namespaces_.clear(); break;
    case ObjectKind::WorkloadPriorityClass: default_priority_class_ = false; break;
    default: break;
  }
  for (const auto& item : items) apply(kind, false, item);
}

void WebhookFacts::apply(ObjectKind kind, bool deleted, const messages::CachedObject& object) {
  if (!object) return;
  const kube::client::Object& meta = *object;  // the metadata is always decoded
  switch (kind) {
    case ObjectKind::Namespace:
      if (deleted) {
        namespaces_.erase(std::string(meta.name()));
      } else {
        namespaces_.insert_or_assign(std::string(meta.name()), labels_of(meta));
      }
      break;
    case ObjectKind::LocalQueue:
      if (meta.name() != kDefault) break;
      if (deleted) {
        default_queue_namespaces_.erase(std::string(meta.namespace_name()));
      } else {
        default_queue_namespaces_.insert(std::string(meta.namespace_name()));
      }
      break;
    case ObjectKind::WorkloadPriorityClass:
      if (meta.name() == kDefault) default_priority_class_ = !deleted;
      break;
    default: break;
  }
}

bool WebhookFacts::default_local_queue_exists(std::string_view ns) const {
  return default_queue_namespaces_.contains(ns);
}

const core::Labels* WebhookFacts::namespace_labels(std::string_view ns) const {
  auto it = namespaces_.find(ns);
  return it == namespaces_.end() ? nullptr : &it->second;
}

}  // namespace kueuepp::actors

#include "actors/tree_router.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "kube/objects/decoders.hpp"

namespace kueuepp::actors {

using messages::ModelObject;
using messages::ObjectKind;
using messages::ObjectPtr;
using messages::TreeObjectChange;

namespace {

std::size_t index(ObjectKind kind) { return static_cast<std::size_t>(kind); }

/// Decodes a watched object into the engine's model.
Expected<ModelObject> decode(ObjectKind kind, const json::value& doc) {
  auto wrap = [](auto result) -> Expected<ModelObject> {
    if (!result) return fail(result.error().message);
    return ModelObject(std::move(*result));
  };
  switch (kind) {
    case ObjectKind::ResourceFlavor: return wrap(kube::decode_resource_flavor(doc));
    case ObjectKind::ClusterQueue: return wrap(kube::decode_cluster_queue(doc));
    case ObjectKind::Cohort: return wrap(kube::decode_cohort(doc));
    case ObjectKind::LocalQueue: return wrap(kube::decode_local_queue(doc));
    case ObjectKind::WorkloadPriorityClass: return wrap(kube::decode_workload_priority_class(doc));
    case ObjectKind::PriorityClass: return wrap(kube::decode_priority_class(doc));
    case ObjectKind::Namespace: return wrap(kube::decode_namespace(doc));
    case ObjectKind::AdmissionCheck: return wrap(kube::decode_admission_check(doc));
    case ObjectKind::Workload: return wrap(kube::decode_workload(doc));
    default: break;  // not routed_to_trees: never stored
  }
  return fail("kind not routed to cohort trees");
}

/// A packed workload into the engine's model, read from its text in place.
Expected<ModelObject> decode_packed_workload(const kube::client::PackedObject& packed) {
  auto wl = kube::decode_workload_text(packed.text());
  if (!wl) return fail(wl.error().message);
  return ModelObject(std::move(*wl));
}

}  // namespace

std::string TreeRouter::key_of(const kube::client::Object& object) { return object.key(); }

bool TreeRouter::is_global(ObjectKind kind) {
  return messages::kind_traits(kind).route == messages::KindTraits::Route::Everyone;
}

bool TreeRouter::is_topology(ObjectKind kind) {
  return messages::kind_traits(kind).route == messages::KindTraits::Route::Topology;
}

bool TreeRouter::store(ObjectKind kind, const messages::CachedObject& object, bool deleted, Output& out) {
  std::string key = key_of(*object);
  Table& t = table(kind);
  if (deleted) {
    t.erase(key);
    fresh_.erase(key);
    track_routing(kind, key);
    return false;
  }
  // Workloads are kept packed (their decoded documents were most of the controller's
  // memory, and routing reads only e.route), and read from their text: a packed event's
  // decoded part is only its metadata.
  Entry& e = t[key];
  e.object = object.packed_if(messages::travels_packed(kind));
  auto model = kind == ObjectKind::Workload && e.object.is_packed() ? decode_packed_workload(*e.object.text())
                                                                    : decode(kind, e.object->json());
  track_routing(kind, key);
  if (!model) {
    // Keep the JSON (for introspection) but nothing the engine could misread.
    e.model.reset();
    e.usable = false;
    fresh_.erase(key);
    out.errors.push_back(std::string(messages::to_string(kind)) + " " + key + ": " + model.error().message);
    return false;
  }
  e.usable = true;
  auto shared = std::make_shared<const ModelObject>(std::move(*model));
  if (kind == ObjectKind::Workload) {
    const auto& wl = std::get<core::Workload>(*shared);
    e.route.ns = wl.ns;
    e.route.queue_name = wl.queue_name;
    e.route.admitted_to.reset();
    if (wl.admission) e.route.admitted_to = wl.admission->cluster_queue;
    fresh_[key] = std::move(shared);
  } else {
    e.model = std::move(shared);
  }
  return true;
}

std::shared_ptr<const ModelObject> TreeRouter::model_of(ObjectKind kind, const std::string& key,
                                                        const Entry& entry) const {
  if (entry.model) return entry.model;
  if (auto it = fresh_.find(key); it != fresh_.end()) return it->second;
  if (kind == ObjectKind::Workload && entry.object.is_packed()) {
    auto model = decode_packed_workload(*entry.object.text());  // decoded before: it decodes again
    if (!model) return nullptr;
    return std::make_shared<const ModelObject>(std::move(*model));
  }
  ObjectPtr object = document_of(key, entry);
  if (!object) return nullptr;
  auto model = decode(kind, object->json());  // decoded before: it decodes again
  if (!model) return nullptr;
  return std::make_shared<const ModelObject>(std::move(*model));
}

ObjectPtr TreeRouter::document_of(const std::string& key, const Entry& entry) const {
  auto object = entry.object.document();
  if (!object) {
    spdlog::error("router: {}: {}", key, object.error().message);
    return nullptr;
  }
  return *object;
}

std::string TreeRouter::root_of_cohort(const std::string& cohort) const {
  std::string current = cohort;
  std::set<std::string> seen;
  const Table& cohorts = table(ObjectKind::Cohort);
  while (seen.insert(current).second) {
    auto it = cohorts.find(current);
    if (it == cohorts.end() || !it->second.model) return current;  // implicit cohort: a root
    const auto& parent = std::get<core::Cohort>(*it->second.model).parent;
    if (parent.empty()) return current;
    current = parent;
  }
  // A cycle (Kueue reports it on the cohorts): name the tree after its smallest member
  // so that every member agrees.
  return *seen.begin();
}

std::optional<std::string> TreeRouter::tree_of_cluster_queue(const std::string& name) const {
  auto tree = desired_tree(ObjectKind::ClusterQueue, name);
  if (!tree || trees_.count(*tree) == 0) return std::nullopt;
  return tree;
}

const TreeRouter::KeyMap<std::string>& TreeRouter::local_queue_trees() const {
  return placed_[index(ObjectKind::LocalQueue)];
}

std::string_view TreeRouter::root_of_tree(std::string_view tree) {
  auto slash = tree.find('/');
  return slash == std::string_view::npos ? tree : tree.substr(slash + 1);
}

std::optional<std::string> TreeRouter::tree_of_workload(const std::string& key) const {
  auto it = placed_[index(ObjectKind::Workload)].find(key);
  if (it == placed_[index(ObjectKind::Workload)].end()) return std::nullopt;
  return it->second;
}

std::size_t TreeRouter::object_count(ObjectKind kind) const { return table(kind).size(); }

std::size_t TreeRouter::unrouted_workloads() const { return unrouted_.size(); }

std::vector<std::string> TreeRouter::unrouted_workload_keys() const { return {unrouted_.begin(), unrouted_.end()}; }

void TreeRouter::track_routing(ObjectKind kind, const std::string& key) {
  if (kind != ObjectKind::Workload) return;
  const bool stored = table(kind).count(key) != 0;
  const bool placed = placed_[index(kind)].count(key) != 0;
  if (stored && !placed) {
    unrouted_.insert(key);
  } else {
    unrouted_.erase(key);
  }
}

std::optional<TreeRouter::Blocker> TreeRouter::why_unrouted(const std::string& key) const {
  if (tree_of_workload(key)) return std::nullopt;
  auto it = table(ObjectKind::Workload).find(key);
  if (it == table(ObjectKind::Workload).end() || !it->second.usable) return std::nullopt;
  const WorkloadRoute& wl = it->second.route;
  if (wl.admitted_to) return std::nullopt;
  auto lq = table(ObjectKind::LocalQueue).find(wl.ns + "/" + wl.queue_name);
  if (lq == table(ObjectKind::LocalQueue).end() || !lq->second.model) {
    return Blocker{"Misconfigured", "LocalQueue " + wl.queue_name + " doesn't exist", document_of(key, it->second)};
  }
  const auto& cq = std::get<core::LocalQueue>(*lq->second.model).cluster_queue;
  return Blocker{"Misconfigured", "ClusterQueue " + cq + " doesn't exist", document_of(key, it->second)};
}

std::optional<std::string> TreeRouter::desired_tree(ObjectKind kind, const std::string& key) const {
  const Table& t = table(kind);
  auto it = t.find(key);
  if (it == t.end() || !it->second.usable) return std::nullopt;
  if (kind == ObjectKind::Workload) {
    const WorkloadRoute& wl = it->second.route;
    if (wl.admitted_to) {
      if (auto tree = tree_of_cluster_queue(*wl.admitted_to)) return tree;
    }
    auto lq = table(ObjectKind::LocalQueue).find(wl.ns + "/" + wl.queue_name);
    if (lq == table(ObjectKind::LocalQueue).end() || !lq->second.model) return std::nullopt;
    return tree_of_cluster_queue(std::get<core::LocalQueue>(*lq->second.model).cluster_queue);
  }
  const ModelObject& model = *it->second.model;
  switch (kind) {
    case ObjectKind::ClusterQueue: {
      const auto& cq = std::get<core::ClusterQueue>(model);
      if (cq.cohort.empty()) return "cq/" + cq.name;
      return "cohort/" + root_of_cohort(cq.cohort);
    }
    case ObjectKind::Cohort: {
      std::string tree = "cohort/" + root_of_cohort(key);
      if (trees_.count(tree) == 0) return std::nullopt;
      return tree;
    }
    case ObjectKind::LocalQueue:
      return tree_of_cluster_queue(std::get<core::LocalQueue>(model).cluster_queue);
    default: return std::nullopt;
  }
}

void TreeRouter::send(const std::string& tree, ObjectKind kind, const std::string& key, bool removed,
                      Output& out) {
  TreeObjectChange change;
  change.kind = kind;
  change.key = key;
  const Table& t = table(kind);
  auto it = t.find(key);
  if (!removed && it != t.end() && it->second.usable) change.model = model_of(kind, key, it->second);
  if (change.model) {
    change.object = it->second.object;
  } else {
    change.removed = true;
  }
  out.batches[tree].push_back(std::move(change));
}

void TreeRouter::place(ObjectKind kind, const std::string& key, Output& out, bool content_changed) {
  auto desired = desired_tree(kind, key);
  auto& placed = placed_[index(kind)];
  auto current = placed.find(key);
  if (current != placed.end() && (!desired || current->second != *desired)) {
    send(current->second, kind, key, true, out);
    placed.erase(current);
    current = placed.end();
  }
  if (desired && (current == placed.end() || content_changed)) {
    send(*desired, kind, key, false, out);
    placed[key] = *desired;
  }
  track_routing(kind, key);
}

void TreeRouter::seed_tree(const std::string& tree, Output& out) {
  for (ObjectKind kind : messages::kAllObjectKinds) {
    if (!is_global(kind)) continue;
    std::set<std::string_view> keys;  // in key order, as before the tables were hashed
    for (const auto& [key, entry] : table(kind)) {
      if (entry.usable) keys.insert(key);
    }
    for (std::string_view key : keys) send(tree, kind, std::string(key), false, out);
  }
}

void TreeRouter::update_trees(Output& out) {
  std::set<std::string> wanted;
  for (const auto& [name, entry] : table(ObjectKind::ClusterQueue)) {
    if (!entry.usable) continue;
    // desired_tree of a ClusterQueue does not depend on trees_.
    if (auto tree = desired_tree(ObjectKind::ClusterQueue, name)) wanted.insert(*tree);
  }
  for (const auto& tree : wanted) {
    if (trees_.count(tree) == 0) {
      out.created.push_back(tree);
      seed_tree(tree, out);
    }
  }
  for (const auto& tree : trees_) {
    if (wanted.count(tree) == 0) out.retired.push_back(tree);
  }
  trees_ = std::move(wanted);
}

void TreeRouter::place_all(Output& out) {
  // Parents before children: cohorts and queues before the workloads they hold.
  for (ObjectKind kind : {ObjectKind::Cohort, ObjectKind::ClusterQueue, ObjectKind::LocalQueue,
                          ObjectKind::Workload}) {
    std::set<std::string> keys;
    for (const auto& [key, entry] : table(kind)) keys.insert(key);
    for (const auto& [key, tree] : placed_[index(kind)]) keys.insert(key);
    for (const auto& key : keys) place(kind, key, out, false);
  }
}

namespace {
void drop_retired(TreeRouter::Output& out) {
  for (const auto& tree : out.retired) out.batches.erase(tree);
}
}  // namespace

std::optional<std::string> TreeRouter::topology_link(ObjectKind kind, const std::string& key) const {
  const Table& t = table(kind);
  auto it = t.find(key);
  if (it == t.end() || !it->second.model) return std::nullopt;
  const ModelObject& model = *it->second.model;
  switch (kind) {
    case ObjectKind::ClusterQueue: return std::get<core::ClusterQueue>(model).cohort;
    case ObjectKind::Cohort: return std::get<core::Cohort>(model).parent;
    case ObjectKind::LocalQueue: return std::get<core::LocalQueue>(model).cluster_queue;
    default: return std::nullopt;
  }
}

void TreeRouter::on_changed(const messages::ObjectChanged& event, Output& out) {
  on_changed_impl(event, out);
  fresh_.clear();
}

void TreeRouter::on_relisted(const messages::ObjectsRelisted& event, Output& out) {
  on_relisted_impl(event, out);
  fresh_.clear();
}

void TreeRouter::on_changed_impl(const messages::ObjectChanged& event, Output& out) {
  if (!messages::routed_to_trees(event.kind) || !event.object) return;
  std::string key = key_of(*event.object);
  const std::optional<std::string> link_before =
      is_topology(event.kind) ? topology_link(event.kind, key) : std::nullopt;
  store(event.kind, event.object, event.deleted, out);
  if (is_global(event.kind)) {
    for (const auto& tree : trees_) send(tree, event.kind, key, event.deleted, out);
    return;
  }
  // A queue or cohort that stays where it was (a status write, a quota change) moves
  // nothing: only the object itself goes to its tree. Re-placing everything is for
  // changes of the topology, and costs a pass over every workload.
  if (is_topology(event.kind) && !event.deleted && link_before && link_before == topology_link(event.kind, key)) {
    place(event.kind, key, out, true);
    return;
  }
  if (is_topology(event.kind)) {
    update_trees(out);
    place(event.kind, key, out, true);
    place_all(out);
    drop_retired(out);
    return;
  }
  place(event.kind, key, out, true);
}

void TreeRouter::on_relisted_impl(const messages::ObjectsRelisted& event, Output& out) {
  if (!messages::routed_to_trees(event.kind) || !event.items) return;
  Table& t = table(event.kind);
  std::set<std::string> fresh;
  for (const auto& object : *event.items) fresh.insert(key_of(*object));
  std::vector<std::string> gone;
  for (const auto& [key, entry] : t) {
    if (fresh.count(key) == 0) gone.push_back(key);
  }
  for (const auto& key : gone) {
    t.erase(key);
    track_routing(event.kind, key);
  }
  for (const auto& object : *event.items) store(event.kind, object, false, out);

  if (is_global(event.kind)) {
    for (const auto& tree : trees_) {
      for (const auto& key : gone) send(tree, event.kind, key, true, out);
      for (const auto& key : fresh) send(tree, event.kind, key, false, out);
    }
    return;
  }
  if (is_topology(event.kind)) update_trees(out);
  for (const auto& key : gone) place(event.kind, key, out, true);
  for (const auto& key : fresh) place(event.kind, key, out, true);
  if (is_topology(event.kind)) place_all(out);
  drop_retired(out);
}

}  // namespace kueuepp::actors

#include "actors/visibility_page.hpp"

#include "kube/json/json.hpp"

namespace kueuepp::actors {

namespace vis = kube::visibility;

namespace {

std::string str(const json::value* v) {
  return v != nullptr && v->is_string() ? std::string(v->as_string().data(), v->as_string().size()) : std::string();
}

/// The item's metadata from the stored object; the engine's key when it is not cached.
void fill_metadata(vis::PendingWorkloadItem& item, std::string_view key, std::string_view text) {
  auto slash = key.find('/');
  item.ns = std::string(key.substr(0, slash));
  item.name = std::string(key.substr(slash + 1));
  if (text.empty()) return;
  auto doc = json::parse(text);
  if (!doc) return;
  const json::value* meta = json::find(*doc, "metadata");
  if (meta == nullptr) return;
  item.creation_timestamp = str(json::find(*meta, "creationTimestamp"));
  const json::value* owners = json::find(*meta, "ownerReferences");
  if (owners == nullptr || !owners->is_array()) return;
  for (const auto& o : owners->as_array()) {
    item.owner_references.push_back(vis::OwnerReference{str(json::find(o, "apiVersion")), str(json::find(o, "kind")),
                                                        str(json::find(o, "name")), str(json::find(o, "uid"))});
  }
}

}  // namespace

vis::PendingWorkloadsResult visibility_page(const core::Engine& engine, const vis::PendingWorkloadsQuery& query,
                                            const WorkloadText& text_of) {
  vis::PendingWorkloadsResult result;
  std::string cluster_queue = query.cluster_queue;
  const bool local = !query.local_queue.empty();
  if (local) {
    auto cq = engine.cluster_queue_of_local_queue(query.ns, query.local_queue);
    if (!cq) return result;
    // As Kueue: a LocalQueue whose ClusterQueue does not exist has no pending workloads.
    result.found = true;
    cluster_queue = *cq;
  }
  // A ClusterQueue page needs the order up to its end only; a LocalQueue's, all of it.
  const std::size_t needed = local ? static_cast<std::size_t>(-1)
                                   : static_cast<std::size_t>(query.page.offset) +
                                         static_cast<std::size_t>(query.page.limit);
  auto refs = engine.pending_workloads(cluster_queue, needed);
  if (!refs) return result;
  result.found = true;
  std::vector<core::QueuedWorkloadRef> order;
  order.reserve(refs->size());
  for (const auto& r : *refs) order.push_back(core::QueuedWorkloadRef{r.key.substr(0, r.key.find('/')), r.local_queue});
  auto page = local ? core::local_queue_page(order, query.ns, query.local_queue, query.page)
                    : core::cluster_queue_page(order, query.page);
  result.items.reserve(page.size());
  for (const auto& p : page) {
    const core::PendingWorkloadRef& ref = (*refs)[p.index];
    vis::PendingWorkloadItem item;
    fill_metadata(item, ref.key, text_of(ref.key));
    item.priority = ref.priority;
    item.local_queue = std::string(ref.local_queue);
    item.position_in_cluster_queue = p.in_cluster_queue;
    item.position_in_local_queue = p.in_local_queue;
    result.items.push_back(std::move(item));
  }
  return result;
}

}  // namespace kueuepp::actors

#pragma once

// The snapshot actor's bookkeeping, kept free of CAF so it can be tested directly: it
// caches every watched Kueue object, decodes it once into the engine's model, assigns
// each object to the cohort tree that needs it, and says what every tree must be told
// after each watch event.
//
// Placement:
// - cluster-wide kinds (ResourceFlavor, Namespace, PriorityClass,
//   WorkloadPriorityClass, AdmissionCheck) go to every tree;
// - a ClusterQueue goes to the tree of its root cohort ("cohort/<root>"), or to its
//   own tree ("cq/<name>") when it has no cohort; a Cohort to its root's tree;
// - a LocalQueue to its ClusterQueue's tree;
// - a Workload to the tree of the ClusterQueue that holds its quota (status.admission)
//   or else of its LocalQueue's ClusterQueue; a Workload with neither stays here.
// A tree exists while at least one ClusterQueue belongs to it. When a ClusterQueue
// moves (its cohort or a cohort's parent changed), its objects are removed from the
// old tree and added to the new one in the same output, in that order.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/string_key_map.hpp"
#include "messages/tree_protocol.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::actors {

class TreeRouter {
 public:
  /// Every watch event looks its object up a few times: hashed, not ordered, since this
  /// is the actor's hot path. Nothing depends on their order: what needs one sorts its keys.
  template <class Value>
  using KeyMap = core::StringKeyMap<Value>;

  struct Output {
    /// Trees to create before the batches are delivered.
    std::vector<std::string> created;
    /// Changes per tree, in order.
    std::map<std::string, std::vector<messages::TreeObjectChange>> batches;
    /// Trees with no ClusterQueue left (delivered after the batches).
    std::vector<std::string> retired;
    /// Objects that could not be decoded: "ClusterQueue cq-a: spec.resourceGroups[0]...".
    std::vector<std::string> errors;
  };

  void on_changed(const messages::ObjectChanged& event, Output& out);
  void on_relisted(const messages::ObjectsRelisted& event, Output& out);

  std::optional<std::string> tree_of_cluster_queue(const std::string& name) const;
  /// Where the workload was routed, if anywhere.
  std::optional<std::string> tree_of_workload(const std::string& key) const;
  std::vector<std::string> trees() const { return {trees_.begin(), trees_.end()}; }
  /// The tree of every LocalQueue whose ClusterQueue exists (`namespace/name` -> tree).
  const KeyMap<std::string>& local_queue_trees() const;
  /// The root a tree is named after: "cohort/<root>" and "cq/<name>" -> the name.
  static std::string_view root_of_tree(std::string_view tree);
  std::size_t object_count(messages::ObjectKind kind) const;
  bool knows(messages::ObjectKind kind, const std::string& key) const { return table(kind).count(key) != 0; }
  /// Workloads whose LocalQueue or ClusterQueue does not exist (yet).
  std::size_t unrouted_workloads() const;
  std::vector<std::string> unrouted_workload_keys() const;

  /// Why a known workload reached no tree, in Kueue's words (getQueueBlocker): reason
  /// Misconfigured, "LocalQueue <name> doesn't exist" or "ClusterQueue <name> doesn't
  /// exist". nullopt when it was routed, is unknown, or holds quota (nothing to say).
  struct Blocker {
    std::string reason;
    std::string message;
    messages::ObjectPtr workload;
  };
  std::optional<Blocker> why_unrouted(const std::string& key) const;

  static std::string key_of(const kube::client::Object& object);

 private:
  /// What routing needs of a workload. Its decoded model (1.6 KB each, tens of
  /// thousands of them) is not kept here: the tree it was sent to holds what it needs.
  struct WorkloadRoute {
    std::string ns;
    std::string queue_name;
    std::optional<std::string> admitted_to;  ///< status.admission.clusterQueue
  };
  struct Entry {
    messages::CachedObject object;  ///< packed for the kinds that travel packed (workloads)
    std::shared_ptr<const messages::ModelObject> model;  ///< null for workloads (see fresh_)
    bool usable = false;  ///< decoded without error
    WorkloadRoute route;  ///< workloads only
  };
  using Table = KeyMap<Entry>;

  Table& table(messages::ObjectKind kind) { return tables_[static_cast<std::size_t>(kind)]; }
  const Table& table(messages::ObjectKind kind) const { return tables_[static_cast<std::size_t>(kind)]; }

  /// Decodes and stores (or erases); returns false when the object is unusable.
  bool store(messages::ObjectKind kind, const messages::CachedObject& object, bool deleted, Output& out);
  static bool is_global(messages::ObjectKind kind);
  static bool is_topology(messages::ObjectKind kind);

  std::string root_of_cohort(const std::string& cohort) const;
  /// What a topology object links to (a ClusterQueue's cohort, a Cohort's parent, a
  /// LocalQueue's ClusterQueue); nullopt when it is absent or undecodable.
  std::optional<std::string> topology_link(messages::ObjectKind kind, const std::string& key) const;
  std::optional<std::string> desired_tree(messages::ObjectKind kind, const std::string& key) const;
  /// Re-places one object: removal from its old tree, addition to its new one.
  void place(messages::ObjectKind kind, const std::string& key, Output& out, bool content_changed);
  void place_all(Output& out);
  void update_trees(Output& out);
  void send(const std::string& tree, messages::ObjectKind kind, const std::string& key, bool removed,
            Output& out);
  void seed_tree(const std::string& tree, Output& out);

  static constexpr std::size_t kKinds = static_cast<std::size_t>(messages::ObjectKind::Event) + 1;
  Table tables_[kKinds];
  /// Where each tree-scoped object currently lives, per kind.
  KeyMap<std::string> placed_[kKinds];
  std::set<std::string> trees_;
  /// Workloads stored but placed in no tree, kept as they change: the snapshot actor
  /// asks for them after every queue event, and a scan of every workload there cost a
  /// third of the controller's CPU on a deep queue.
  std::set<std::string, std::less<>> unrouted_;
  /// Workloads' models of the current event, for the sends it causes; emptied after each
  /// event. A later send (a queue moved trees) decodes the packed text again.
  KeyMap<std::shared_ptr<const messages::ModelObject>> fresh_;
  std::shared_ptr<const messages::ModelObject> model_of(messages::ObjectKind kind, const std::string& key,
                                                        const Entry& entry) const;
  /// The entry's whole document: kept, or unpacked (null if that fails, logged).
  messages::ObjectPtr document_of(const std::string& key, const Entry& entry) const;
  void on_changed_impl(const messages::ObjectChanged& event, Output& out);
  void on_relisted_impl(const messages::ObjectsRelisted& event, Output& out);
  /// Brings unrouted_ up to date for one object after its table entry or placement changed.
  void track_routing(messages::ObjectKind kind, const std::string& key);
};

}  // namespace kueuepp::actors

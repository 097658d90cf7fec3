#include "actors/snapshot_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <map>

#include "actors/tree_router.hpp"
#include "kube/jobs/workload_status.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct SnapshotState {
  CohortTreeOptions tree_options;
  CohortTreeLinks links;
  std::vector<job_actor> jobs;  ///< one per kind of job (none without job integrations)
  TreeRouter router;
  std::map<std::string, cohort_tree_actor> trees;
  /// With sharding: what this replica holds. Without, every tree is acted on.
  std::optional<ShardOwnership> ownership;
  /// What the job actor was last told (sent again only when it changes).
  std::shared_ptr<const std::map<std::string, std::uint32_t, std::less<>>> sent_local_queue_shards;
  std::uint64_t sent_ownership_version = 0;
  std::uint64_t handled = 0;
  std::uint64_t decode_errors = 0;
  std::uint64_t blocker_writes = 0;
};

using Self = snapshot_actor::stateful_pointer<SnapshotState>;

TreeOwnership ownership_of(const SnapshotState& st, const std::string& tree) {
  if (!st.ownership) return TreeOwnership{};
  std::uint32_t shard = shard_of_root(TreeRouter::root_of_tree(tree), st.ownership->shard_count);
  return TreeOwnership{st.ownership->holds(shard), shard};
}

bool owns_unrouted(const SnapshotState& st) { return !st.ownership || st.ownership->holds(0); }

/// Tells the job actor which LocalQueues' Jobs this replica handles, when that changed.
void update_job_shards(Self self) {
  auto& st = self->state;
  if (!st.ownership || st.jobs.empty()) return;
  auto shards = std::make_shared<std::map<std::string, std::uint32_t, std::less<>>>();
  for (const auto& [lq, tree] : st.router.local_queue_trees()) {
    shards->emplace(lq, shard_of_root(TreeRouter::root_of_tree(tree), st.ownership->shard_count));
  }
  if (st.sent_local_queue_shards && *st.sent_local_queue_shards == *shards &&
      st.sent_ownership_version == st.ownership->version) {
    return;
  }
  st.sent_local_queue_shards = shards;
  st.sent_ownership_version = st.ownership->version;
  for (const auto& jobs : st.jobs) self->send(jobs, JobShards{shards, *st.ownership});
}

void deliver(Self self, TreeRouter::Output& out) {
  auto& st = self->state;
  for (const auto& error : out.errors) {
    ++st.decode_errors;
    spdlog::error("object ignored: {} (fix the object; the API server's validation should have refused it)", error);
  }
  for (const auto& tree : out.created) {
    auto actor = spawn_cohort_tree(self->system(), tree, st.tree_options, st.links);
    // Linked: trees (and their ClusterQueue actors) stop with the snapshot actor.
    self->link_to(actor);
    if (st.ownership) self->send(actor, ownership_of(st, tree));  // before its first batch
    st.trees.emplace(tree, actor);
    spdlog::info("cohort tree {} created", tree);
  }
  for (auto& [tree, changes] : out.batches) {
    auto it = st.trees.find(tree);
    if (it == st.trees.end()) continue;
    self->send(it->second, TreeBatch{std::move(changes)});
  }
  for (const auto& tree : out.retired) {
    auto it = st.trees.find(tree);
    if (it == st.trees.end()) continue;
    self->send(st.links.scheduler, TreeRetired{tree});
    self->unlink_from(it->second);
    self->send_exit(it->second, caf::exit_reason::user_shutdown);
    st.trees.erase(it);
    spdlog::info("cohort tree {} retired (no ClusterQueue left)", tree);
  }
}

/// `more`'s batches and errors after `into`'s (neither creates nor retires trees).
void append(TreeRouter::Output& into, TreeRouter::Output& more) {
  for (auto& [tree, changes] : more.batches) {
    auto& to = into.batches[tree];
    if (to.empty()) {
      to = std::move(changes);
    } else {
      to.insert(to.end(), std::make_move_iterator(changes.begin()), std::make_move_iterator(changes.end()));
    }
  }
  into.errors.insert(into.errors.end(), std::make_move_iterator(more.errors.begin()),
                     std::make_move_iterator(more.errors.end()));
}

/// Why a workload reached no tree, in Kueue's words.
ExplainReply unrouted(const TreeRouter& router, const std::string& key) {
  json::object o;
  o["workload"] = key;
  o["state"] = "Pending";
  if (auto blocker = router.why_unrouted(key)) {
    o["reason"] = blocker->reason;
    o["message"] = blocker->message;
  } else {
    o["reason"] = "Unknown";
    o["message"] = "the workload reached no ClusterQueue";
  }
  return ExplainReply{200, json::dump(o)};
}

/// Hands a visibility question to the tree holding the queue. Every replica holds every
/// tree (a tree of a shard held elsewhere keeps applying changes), so every replica
/// answers from its own watches, with the tree's engine's own queue order.
void answer_visibility(Self self, PendingWorkloadsCall call) {
  auto& st = self->state;
  const auto& q = call.query;
  std::optional<std::string> tree;
  if (q.local_queue.empty()) {
    tree = st.router.tree_of_cluster_queue(q.cluster_queue);
  } else {
    const std::string key = q.ns + "/" + q.local_queue;
    const auto& placed = st.router.local_queue_trees();
    if (auto it = placed.find(key); it != placed.end()) {
      tree = it->second;
    } else if (st.router.knows(ObjectKind::LocalQueue, key)) {
      // As Kueue: a LocalQueue whose ClusterQueue does not exist has no pending workloads.
      call.done(kube::visibility::PendingWorkloadsResult{true, {}});
      return;
    }
  }
  auto it = tree ? st.trees.find(*tree) : st.trees.end();
  if (it == st.trees.end()) {
    call.done(kube::visibility::PendingWorkloadsResult{});
    return;
  }
  self->send(it->second, std::move(call));
}

/// Hands a what-if question to the tree holding the LocalQueue, as a LocalQueue's page.
void answer_what_if(Self self, WhatIfCall call) {
  auto& st = self->state;
  const auto& q = call.query;
  const std::string key = q.ns + "/" + q.local_queue;
  const auto& placed = st.router.local_queue_trees();
  auto placed_at = placed.find(key);
  if (placed_at == placed.end()) {
    kube::visibility::WhatIfResult r;
    if (st.router.knows(ObjectKind::LocalQueue, key)) {
      r.kind = kube::visibility::WhatIfResult::Kind::Invalid;
      r.message = "LocalQueue " + key + " points to a ClusterQueue that does not exist: a workload submitted to it " +
                  "would wait until that ClusterQueue is created";
    } else {
      r.kind = kube::visibility::WhatIfResult::Kind::LocalQueueNotFound;
    }
    call.done(std::move(r));
    return;
  }
  auto it = st.trees.find(placed_at->second);
  if (it == st.trees.end()) {
    call.done(fail("the tree of LocalQueue " + key + " is not running on this replica yet; ask again"));
    return;
  }
  self->send(it->second, std::move(call));
}

core::Time now_of(const SnapshotState& st) {
  return st.tree_options.clock
             ? st.tree_options.clock()
             : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

/// A workload that reaches no tree says why on its QuotaReserved condition, as Kueue's
/// workload controller does (written only when the condition would change).
void write_blocker(Self self, const std::string& key) {
  auto& st = self->state;
  if (!owns_unrouted(st)) return;  // the holder of shard 0 speaks for workloads of no tree
  auto blocker = st.router.why_unrouted(key);
  if (!blocker || !blocker->workload || blocker->workload->condition_true("Finished")) return;
  auto patch = kube::jobs::pending_patch(*blocker->workload,
                                         core::PendingDecision{key, blocker->reason, blocker->message}, now_of(st));
  if (!patch) return;
  WriteRequest req;
  req.kind = ObjectKind::Workload;
  req.verb = WriteVerb::MergePatchStatus;
  req.ns = std::string(blocker->workload->namespace_name());
  req.name = std::string(blocker->workload->name());
  req.body = std::make_shared<const json::value>(std::move(*patch));
  req.intent = WriteIntent::PendingExplanation;
  if (st.ownership) req.shard = 0u;
  ++st.blocker_writes;
  self->request(st.links.writer, caf::infinite, std::move(req))
      .then(
          [key](WriteOutcome& o) {
            if (!o.ok && !o.superseded && o.http_status != 404 && o.http_status != 409 && o.reason != "NotOwner") {
              spdlog::warn("status of unrouted workload {} not written: {} {}", key, o.reason, o.message);
            }
          },
          [](caf::error&) {});
}

/// After a queue changed, every unrouted workload may have a new blocker.
void write_blockers(Self self, ObjectKind kind, const std::string& workload_key) {
  auto& st = self->state;
  if (kind == ObjectKind::Workload) {
    if (!workload_key.empty()) write_blocker(self, workload_key);
    return;
  }
  if (kind != ObjectKind::LocalQueue && kind != ObjectKind::ClusterQueue) return;
  for (const auto& key : st.router.unrouted_workload_keys()) write_blocker(self, key);
}

/// One watch event: routed into `out` (delivered by the caller), blockers and job shards
/// brought up to date.
void on_changed(Self self, const ObjectChanged& event, TreeRouter::Output& out) {
  self->state.router.on_changed(event, out);
  if (event.object && !event.deleted) {
    write_blockers(self, event.kind, event.kind == ObjectKind::Workload ? TreeRouter::key_of(*event.object) : "");
  } else if (event.deleted) {
    write_blockers(self, event.kind, "");
  }
  if (event.kind == ObjectKind::LocalQueue || event.kind == ObjectKind::ClusterQueue ||
      event.kind == ObjectKind::Cohort) {
    update_job_shards(self);
  }
}

}  // namespace

messages::snapshot_actor spawn_snapshot(caf::actor_system& system, CohortTreeOptions tree_options,
                                        CohortTreeLinks links, std::vector<messages::job_actor> jobs,
                                        std::optional<std::uint32_t> shard_count) {
  return system.spawn([tree_options, links, jobs, shard_count](Self self) -> snapshot_actor::behavior_type {
    if (shard_count) {  // holds nothing until the shard actor says otherwise
      ShardOwnership none;
      none.shard_count = *shard_count;
      self->state.ownership = none;
    }
    self->state.tree_options = tree_options;
    self->state.links = links;
    self->state.jobs = jobs;
    self->send(links.introspection, ActorRegistered{"snapshot", "snapshot", self->address(),
                                                    caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](ObjectsRelisted& event) {
          ++self->state.handled;
          TreeRouter::Output out;
          self->state.router.on_relisted(event, out);
          deliver(self, out);
          write_blockers(self, event.kind == ObjectKind::Workload ? ObjectKind::LocalQueue : event.kind, "");
          update_job_shards(self);
        },
        [self](ObjectChanged& event) {
          ++self->state.handled;
          TreeRouter::Output out;
          on_changed(self, event, out);
          deliver(self, out);
        },
        [self](ObjectChanges& batch) {
          ++self->state.handled;
          // The trees get one TreeBatch for the lot, unless the topology changed on the
          // way (a tree created or retired): what came before is delivered first.
          TreeRouter::Output out;
          for (const auto& event : batch.changes) {
            TreeRouter::Output one;
            on_changed(self, event, one);
            if (!one.created.empty() || !one.retired.empty()) {
              deliver(self, out);
              out = TreeRouter::Output{};
              deliver(self, one);
            } else {
              append(out, one);
            }
          }
          deliver(self, out);
        },
        [self](ShardOwnership& ownership) {
          auto& st = self->state;
          ++st.handled;
          if (st.ownership && st.ownership->version > ownership.version) return;  // late
          // Renewals (same shards, a later valid_until) concern only the writer.
          if (st.ownership && st.ownership->same_shards(ownership)) return;
          bool gained_unrouted = !owns_unrouted(st) && ownership.holds(0);
          st.ownership = std::move(ownership);
          for (const auto& [tree, actor] : st.trees) self->send(actor, ownership_of(st, tree));
          update_job_shards(self);
          if (gained_unrouted) write_blockers(self, ObjectKind::LocalQueue, "");
        },
        [self](Explain& q) -> caf::result<ExplainReply> {
          ++self->state.handled;
          auto& st = self->state;
          std::optional<std::string> tree = q.what == Explain::What::Workload
                                                ? st.router.tree_of_workload(q.key)
                                                : st.router.tree_of_cluster_queue(q.key);
          auto it = tree ? st.trees.find(*tree) : st.trees.end();
          if (it == st.trees.end()) {
            if (q.what == Explain::What::Workload && st.router.knows(ObjectKind::Workload, q.key)) {
              return unrouted(st.router, q.key);
            }
            return ExplainReply{404, json::dump(json::object{{"error", "not found: " + q.key}})};
          }
          return self->delegate(it->second, std::move(q));
        },
        [self](PendingWorkloadsCall& call) {
          ++self->state.handled;
          answer_visibility(self, std::move(call));
        },
        [self](WhatIfCall& call) {
          ++self->state.handled;
          answer_what_if(self, std::move(call));
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          json::object o;
          o["trees"] = st.trees.size();
          o["clusterQueues"] = st.router.object_count(ObjectKind::ClusterQueue);
          o["localQueues"] = st.router.object_count(ObjectKind::LocalQueue);
          o["workloads"] = st.router.object_count(ObjectKind::Workload);
          o["unroutedWorkloads"] = st.router.unrouted_workloads();
          o["decodeErrors"] = st.decode_errors;
          o["blockerWrites"] = st.blocker_writes;
          if (st.ownership) {
            // Which shard each tree belongs to, and whether this replica acts on it.
            json::object trees;
            for (const auto& [tree, actor] : st.trees) {
              auto owned = ownership_of(st, tree);
              trees[tree] = json::object{{"shard", *owned.shard}, {"heldHere", owned.active}};
            }
            o["shardCount"] = st.ownership->shard_count;
            json::array held;
            for (auto shard : st.ownership->held) held.push_back(shard);
            o["shardsHeld"] = std::move(held);
            o["treeShards"] = std::move(trees);
          }
          return ActorInfo{"snapshot", "snapshot", self->mailbox().size(), st.handled, json::dump(o)};
        },
    };
  });
}

}  // namespace kueuepp::actors

#pragma once

// The typed interfaces of the controller's actors, and the message types they exchange
// (whitelisted for local, in-process messaging: kueuepp never serializes them, so they
// need no inspect()). Include this only from actor implementation files (.cpp): it
// pulls in CAF's typed-actor headers.

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <functional>
#include <memory>
#include <string>

#include "messages/event_protocol.hpp"
#include "messages/introspection_protocol.hpp"
#include "messages/metrics_protocol.hpp"
#include "messages/shard_protocol.hpp"
#include "messages/status_protocol.hpp"
#include "messages/tree_protocol.hpp"
#include "messages/visibility_protocol.hpp"
#include "messages/watch_events.hpp"
#include "messages/writer_protocol.hpp"

namespace kueuepp::messages {

/// Whatever consumes watch events (the snapshot actor, the job actor).
using object_sink =
    caf::typed_actor<caf::reacts_to<ObjectsRelisted>, caf::reacts_to<ObjectChanged>, caf::reacts_to<ObjectChanges>>;

/// The API budget: writes in, outcomes back.
using writer_actor = caf::typed_actor<caf::replies_to<WriteRequest>::with<WriteOutcome>, caf::reacts_to<WriteDone>,
                                      caf::reacts_to<ShardOwnership>, caf::replies_to<DrainWrites>::with<WritesDrained>,
                                      caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// One per ClusterQueue: its status and its LocalQueues' status.
using cluster_queue_actor =
    caf::typed_actor<caf::reacts_to<ClusterQueueSnapshot>, caf::reacts_to<RetryQueueStatus>,
                     caf::replies_to<QueueReport>::with<QueueReportReply>,
                     caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// One per cohort tree (a root cohort and its subtree, or a ClusterQueue without a
/// cohort): owns the admission engine of the tree; rounds are atomic per tree.
using cohort_tree_actor = caf::typed_actor<caf::reacts_to<TreeBatch>, caf::reacts_to<TreeOwnership>,
                                           caf::reacts_to<RunRound>,
                                           caf::reacts_to<PublishStatus>, caf::reacts_to<ReadBackDue>,
                                           caf::replies_to<Explain>::with<ExplainReply>,
                                           caf::reacts_to<PendingWorkloadsCall>, caf::reacts_to<WhatIfCall>,
                                           caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// Snapshot actor -> scheduler: a tree appeared or went away.
struct TreeRegistered {
  std::string tree;
  cohort_tree_actor actor;
};
struct TreeRetired {
  std::string tree;
};
/// The scheduler's own pacing tick.
struct SchedulerTick {};

/// Paces admission rounds over all trees.
using scheduler_actor =
    caf::typed_actor<caf::reacts_to<TreeRegistered>, caf::reacts_to<TreeRetired>, caf::reacts_to<TreeDirty>,
                     caf::reacts_to<RoundDone>, caf::reacts_to<SchedulerTick>,
                     caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// Watch events in; routes model objects to the trees and answers "where is X".
using snapshot_actor = caf::typed_actor<caf::reacts_to<ObjectsRelisted>, caf::reacts_to<ObjectChanged>,
                                        caf::reacts_to<ObjectChanges>,
                                        caf::reacts_to<ShardOwnership>,
                                        caf::replies_to<Explain>::with<ExplainReply>,
                                        caf::reacts_to<PendingWorkloadsCall>, caf::reacts_to<WhatIfCall>,
                                        caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// Records Kubernetes Events (rate limited and aggregated per object).
using event_recorder_actor =
    caf::typed_actor<caf::reacts_to<RecordEvent>, caf::reacts_to<RecordEvents>,
                     caf::replies_to<WorkloadHistoryQuery>::with<WorkloadHistoryReply>,
                     caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// Owns Kueue's metrics: events and gauges in, the Prometheus exposition out.
using metrics_actor = caf::typed_actor<caf::reacts_to<WorkloadMetricEvent>, caf::reacts_to<MetricReports>,
                                       caf::reacts_to<QueueGauges>, caf::reacts_to<ClusterQueueGone>,
                                       caf::reacts_to<ShardOwnership>,
                                       caf::reacts_to<ScrapeMetrics>,
                                       caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// The job actor's own timer tick (retries of failed job operations).
struct JobTick {};

/// Kueue's batch Job integration: Jobs and Workloads in, Job/Workload writes out.
using job_actor = caf::typed_actor<caf::reacts_to<ObjectsRelisted>, caf::reacts_to<ObjectChanged>,
                                   caf::reacts_to<ObjectChanges>,
                                   caf::reacts_to<JobTick>, caf::reacts_to<JobShards>, caf::replies_to<IntrospectActor>::with<ActorInfo>>;

/// Answers one HTTP request of the introspection endpoint (called exactly once, from
/// any thread).
using HttpResponder = std::function<void(int status, std::string content_type, std::string body)>;

/// An actor announces itself to the introspection registry.
struct ActorRegistered {
  std::string kind;
  std::string name;
  caf::actor_addr address;
  caf::strong_actor_ptr handle;  ///< answers IntrospectActor
};

struct HttpQuery {
  std::string path;  ///< e.g. /debug/actors, /debug/clusterqueues/NAME?offset=0&limit=100, /debug/workloads/NS/NAME
  HttpResponder respond;
};

using introspection_actor = caf::typed_actor<caf::reacts_to<ActorRegistered>, caf::reacts_to<HttpQuery>>;

}  // namespace kueuepp::messages

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ObjectsRelisted)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ObjectChanged)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ObjectChanges)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::FlushChanges)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::TreeBatch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::RunRound)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::TreeOwnership)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ShardOwnership)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::JobShards)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::TreeDirty)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::RoundDone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WriteRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WriteOutcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WriteDone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::DrainWrites)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WritesDrained)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::PublishStatus)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ReadBackDue)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ClusterQueueSnapshot)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::RetryQueueStatus)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::IntrospectActor)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ActorInfo)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::Explain)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ExplainReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::QueueReport)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::QueueReportReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WorkloadHistoryQuery)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WorkloadHistoryReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::PendingWorkloadsCall)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WhatIfCall)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::TreeRegistered)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::TreeRetired)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::SchedulerTick)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::JobTick)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::RecordEvent)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::RecordEvents)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ActorRegistered)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::HttpQuery)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::WorkloadMetricEvent)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::MetricReports)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::QueueGauges)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ClusterQueueGone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ScrapeMetrics)

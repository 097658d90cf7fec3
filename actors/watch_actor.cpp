#include "actors/watch_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <iterator>

#include "actors/watched_kinds.hpp"
#include "kube/client/informer.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct WatchState {
  ObjectKind kind = ObjectKind::Workload;
  std::vector<messages::object_sink> subscribers;
  std::shared_ptr<kube::client::Informer> informer;
  std::uint64_t handled = 0;
  std::uint64_t relists = 0;
  std::uint64_t changes = 0;
  std::size_t objects = 0;
  /// Changes handled since the last flush, forwarded together (see ObjectChanges).
  std::vector<ObjectChanged> gathered;
  std::uint64_t forwarded_batches = 0;
};

using Self = watch_actor::stateful_pointer<WatchState>;

/// The changes the io thread gathered from one read of the watch stream. Only the
/// informer's callbacks touch it, and they run one at a time.
struct IoBatch {
  std::vector<ObjectChanged> changes;
};

/// A batch bigger than this goes out at once (one read holds at most a few dozen).
constexpr std::size_t kMaxIoBatch = 512;

/// Runs on the io thread: hands the gathered changes to the actor as one message (a
/// message per watch event was one CAF enqueue, and often a worker wake-up, per event).
void send_batch(const watch_actor& self, ObjectKind kind, IoBatch& batch) {
  if (batch.changes.empty()) return;
  caf::anon_send(self, ObjectChanges{kind, std::move(batch.changes)});
  batch.changes = {};
}

/// Runs on the io thread: a change joins the batch. Kinds that travel packed come packed
/// from the decoder: their `object` is only apiVersion, kind and metadata (see
/// ObjectChanged).
void gather(IoBatch& batch, ObjectKind kind, kube::client::InformerEvent event) {
  auto decoded = std::make_shared<const kube::client::Object>(std::move(event.object));
  batch.changes.push_back(ObjectChanged{kind, event.type == kube::client::InformerEvent::Type::Deleted,
                                        CachedObject(std::move(decoded), std::move(event.packed))});
}

/// Runs on the io thread: a relist as a typed message to the actor.
void send_relisted(const watch_actor& self, ObjectKind kind, kube::client::InformerEvent event) {
  auto items = std::make_shared<std::vector<CachedObject>>();
  items->reserve(event.items.size());
  for (auto& item : event.items) items->emplace_back(std::make_shared<const kube::client::Object>(std::move(item)));
  caf::anon_send(self, ObjectsRelisted{kind, std::move(items)});
}

// Packed here, once for every subscriber (the caches share the text), and on this
// actor's thread rather than the io thread that decodes every watch stream.
void pack(ObjectsRelisted& event) {
  if (!travels_packed(event.kind) || !event.items) return;
  auto packed = std::make_shared<std::vector<CachedObject>>();
  packed->reserve(event.items->size());
  for (const auto& item : *event.items) packed->push_back(item.packed_if(true));
  event.items = std::move(packed);
}

void pack(ObjectChanged& event) { event.object = event.object.packed_if(travels_packed(event.kind) && !event.deleted); }

/// Forwards the gathered changes: one message per subscriber, the last one moved.
void flush(Self self) {
  auto& s = self->state;
  if (s.gathered.empty()) return;
  ++s.forwarded_batches;
  if (s.gathered.size() == 1) {
    for (auto& sub : s.subscribers) self->send(sub, s.gathered.front());
  } else {
    for (std::size_t i = 0; i < s.subscribers.size(); ++i) {
      if (i + 1 == s.subscribers.size()) {
        self->send(s.subscribers[i], ObjectChanges{s.kind, std::move(s.gathered)});
      } else {
        self->send(s.subscribers[i], ObjectChanges{s.kind, s.gathered});
      }
    }
  }
  s.gathered.clear();
}

}  // namespace

watch_actor spawn_watch(caf::actor_system& system, kube::client::Client& client, ObjectKind kind,
                        std::vector<messages::object_sink> subscribers, introspection_actor introspection,
                        std::function<void()> on_synced) {
  return system.spawn([&client, kind, subscribers, introspection, on_synced](Self self) -> watch_actor::behavior_type {
    auto& st = self->state;
    st.kind = kind;
    st.subscribers = subscribers;
    std::string name(to_string(kind));
    self->send(introspection, ActorRegistered{"watch", name, self->address(),
                                              caf::actor_cast<caf::strong_actor_ptr>(self)});
    // The informer holds only a weak reference: a strong handle in its callback would
    // keep this actor alive after shutdown.
    caf::weak_actor_ptr weak = caf::actor_cast<caf::weak_actor_ptr>(self);
    auto synced = std::make_shared<std::atomic<bool>>(false);
    auto batch = std::make_shared<IoBatch>();
    kube::client::InformerOptions informer_options;
    informer_options.packed_objects = travels_packed(kind);  // decoded straight to their packed text
    // A kind served by a CRD that may be applied later is tried again within seconds, not
    // half a minute: its objects wait unqueued (and unsuspended, if created before their
    // webhook could act) until it is listed.
    for (const JobKindEntry& e : job_kinds()) {
      if (e.tag == kind && e.custom_resource) informer_options.backoff.cap = std::chrono::milliseconds(5'000);
    }
    st.informer = kube::client::Informer::start(
        client, resource_of(kind), informer_options,
        [weak, kind, synced, on_synced, batch](kube::client::InformerEvent event) {
          const bool relisted = event.type == kube::client::InformerEvent::Type::Relisted;
          if (!relisted) {
            gather(*batch, kind, std::move(event));
            if (batch->changes.size() < kMaxIoBatch) return;  // goes out at the batch's end
          }
          auto strong = caf::actor_cast<caf::strong_actor_ptr>(weak);
          if (!strong) {
            batch->changes.clear();  // the actor is gone: nobody will take them
            return;
          }
          auto actor = caf::actor_cast<watch_actor>(strong);
          send_batch(actor, kind, *batch);  // what came before a relist goes first
          if (!relisted) return;
          send_relisted(actor, kind, std::move(event));
          if (!synced->exchange(true) && on_synced) on_synced();
        },
        [name, missing = std::make_shared<std::atomic<bool>>(false)](const kube::client::ApiError& error) {
          // A kind the server does not serve (its CRD not installed yet) is said once and
          // waited for: the informer keeps trying with backoff and the kind is managed
          // from its first list on.
          if (error.http_status == 404) {
            if (!missing->exchange(true)) {
              spdlog::warn("watch of {}: the API server does not serve it (is its CRD installed?); "
                           "waiting for it, retrying with backoff",
                           name);
            }
            return;
          }
          if (missing->exchange(false)) spdlog::info("watch of {}: now served", name);
          spdlog::warn("watch of {}: {} {} (recovering)", name, error.reason, error.message);
        },
        [weak, kind, batch] {
          auto strong = caf::actor_cast<caf::strong_actor_ptr>(weak);
          if (!strong) {
            batch->changes.clear();
            return;
          }
          send_batch(caf::actor_cast<watch_actor>(strong), kind, *batch);
        });
    auto informer = st.informer;
    self->attach_functor([informer] { informer->stop(); });
    return {
        [self](ObjectsRelisted& event) {
          auto& s = self->state;
          ++s.handled;
          ++s.relists;
          s.objects = event.items ? event.items->size() : 0;
          pack(event);
          flush(self);  // the changes before it go first
          for (auto& sub : s.subscribers) self->send(sub, event);
        },
        [self](ObjectChanges& arrived) {
          auto& s = self->state;
          ++s.handled;
          s.changes += arrived.changes.size();
          for (auto& event : arrived.changes) {
            if (event.deleted && s.objects > 0) --s.objects;
            pack(event);
          }
          // The cue goes behind the batches already waiting: they join this one.
          if (s.gathered.empty()) {
            self->send(self, FlushChanges{});
            s.gathered = std::move(arrived.changes);
          } else {
            std::move(arrived.changes.begin(), arrived.changes.end(), std::back_inserter(s.gathered));
          }
        },
        [self](FlushChanges) { flush(self); },
        [self](IntrospectActor) -> ActorInfo {
          auto& s = self->state;
          json::object o;
          o["relists"] = s.relists;
          o["changes"] = s.changes;
          o["forwardedBatches"] = s.forwarded_batches;
          o["resourceVersion"] = s.informer ? s.informer->resource_version() : std::string();
          return ActorInfo{"watch", std::string(to_string(s.kind)), self->mailbox().size(), s.handled, json::dump(o)};
        },
    };
  });
}

}  // namespace kueuepp::actors

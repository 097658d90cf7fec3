#include "kube/client/informer.hpp"

#include <spdlog/spdlog.h>

#include <mutex>

#include "kube/client/informer_state.hpp"

namespace kueuepp::kube::client {

struct Informer::Impl : std::enable_shared_from_this<Informer::Impl> {
  Impl(Client& c, const ResourceDescriptor& r, InformerOptions o, EventHandler e, ErrorHandler err,
       BatchEndHandler batch_end)
      : client(c), resource(r), options(std::move(o)), on_event(std::move(e)),
        on_error(std::move(err)), on_batch_end(std::move(batch_end)),
        state(Backoff(options.backoff, c.options().random)) {}

  Client& client;
  ResourceDescriptor resource;
  InformerOptions options;
  EventHandler on_event;
  ErrorHandler on_error;
  BatchEndHandler on_batch_end;

  mutable std::mutex mutex;
  InformerState state;
  bool stopped = false;
  // Every list/watch/timer carries the generation it was started in; answers from an
  // abandoned generation (a cancelled watch, a superseded timer) are ignored.
  std::uint64_t generation = 0;
  CancelHandle watch_handle;
  CancelHandle timer_handle;
  std::chrono::steady_clock::time_point watch_started;

  void act(InformerState::Action action) {
    std::unique_lock lock(mutex);
    if (stopped) return;
    const std::uint64_t gen = ++generation;
    if (action.delay.count() > 0) {
      spdlog::debug("informer {}: {} in {} ms", resource.plural,
                    action.kind == InformerState::Action::Kind::List ? "re-list" : "re-watch",
                    action.delay.count());
      auto self = shared_from_this();
      timer_handle = client.after(action.delay, [self, action, gen] { self->perform(action, gen); });
      return;
    }
    lock.unlock();
    perform(action, gen);
  }

  void perform(const InformerState::Action& action, std::uint64_t gen) {
    if (action.kind == InformerState::Action::Kind::List) list(gen);
    else watch(action.resource_version, gen);
  }

  bool current(std::uint64_t gen) {
    std::lock_guard lock(mutex);
    return !stopped && gen == generation;
  }

  void report(const ApiError& error) {
    // An owner that listens says how loud each error is (a kind whose CRD is missing is
    // said once, not at every retry); without one, every error is a warning.
    if (on_error) {
      spdlog::debug("informer {}: {}", resource.plural, error.describe());
      on_error(error);
      return;
    }
    spdlog::warn("informer {}: {}", resource.plural, error.describe());
  }

  void list(std::uint64_t gen) {
    if (!current(gen)) return;
    ListOptions list_options;
    list_options.label_selector = options.label_selector;
    list_options.field_selector = options.field_selector;
    auto self = shared_from_this();
    client.list_all(resource, options.namespace_name, list_options,
                    [self, gen](Result<ObjectList> result) { self->on_list(gen, std::move(result)); },
                    options.page_size);
  }

  void on_list(std::uint64_t gen, Result<ObjectList> result) {
    if (!current(gen)) return;
    if (!result) {
      report(result.error());
      InformerState::Action next;
      {
        std::lock_guard lock(mutex);
        next = state.on_list_failed(result.error());
      }
      return act(next);
    }
    InformerEvent relisted;
    relisted.type = InformerEvent::Type::Relisted;
    relisted.items = std::move(result->items);
    relisted.resource_version = result->resource_version;
    if (on_event) on_event(std::move(relisted));
    InformerState::Action next;
    {
      std::lock_guard lock(mutex);
      next = state.on_list_succeeded(std::move(result->resource_version));
    }
    act(next);
  }

  std::int64_t watch_timeout_seconds() {
    const auto min = std::max<std::int64_t>(options.min_watch_timeout.count(), 1);
    const double u = client.options().random ? client.options().random() : 0.0;
    return min + static_cast<std::int64_t>(u * static_cast<double>(min));
  }

  void watch(const std::string& resource_version, std::uint64_t gen) {
    WatchOptions watch_options;
    watch_options.resource_version = resource_version;
    watch_options.label_selector = options.label_selector;
    watch_options.field_selector = options.field_selector;
    watch_options.allow_bookmarks = true;
    watch_options.timeout_seconds = watch_timeout_seconds();
    watch_options.packed_objects = options.packed_objects;
    auto self = shared_from_this();
    WatchHandlers handlers;
    handlers.on_event = [self, gen](WatchEvent event) { self->on_watch_event(gen, std::move(event)); };
    handlers.on_end = [self, gen](Result<void> end) { self->on_watch_end(gen, std::move(end)); };
    if (on_batch_end) {
      handlers.on_batch_end = [self, gen] {
        if (self->current(gen)) self->on_batch_end();
      };
    }
    {
      std::lock_guard lock(mutex);
      if (stopped || gen != generation) return;
      watch_started = std::chrono::steady_clock::now();
    }
    // Not under the lock: a shutting-down client ends the watch inline.
    CancelHandle handle =
        client.watch(resource, options.namespace_name, watch_options, std::move(handlers));
    std::lock_guard lock(mutex);
    if (stopped || gen != generation) {
      handle.cancel();
      return;
    }
    watch_handle = std::move(handle);
  }

  void on_watch_event(std::uint64_t gen, WatchEvent event) {
    if (!current(gen)) return;
    if (event.type == WatchEventType::Error) {
      ApiError error = event.status_error("watch " + std::string(resource.kind));
      report(error);
      InformerState::Action next;
      {
        std::lock_guard lock(mutex);
        next = state.on_watch_error_event(error);
        watch_handle.cancel();  // the server ends the stream anyway; do not wait for it
      }
      return act(next);  // bumps the generation: this stream's on_end is ignored
    }
    {
      std::lock_guard lock(mutex);
      state.on_event(event.resource_version());
    }
    if (event.type == WatchEventType::Bookmark) return;
    InformerEvent out;
    out.type = event.type == WatchEventType::Added      ? InformerEvent::Type::Added
               : event.type == WatchEventType::Modified ? InformerEvent::Type::Modified
                                                        : InformerEvent::Type::Deleted;
    out.resource_version = std::string(event.resource_version());
    out.object = Object(std::move(event.object));
    out.packed = std::move(event.packed);
    if (on_event) on_event(std::move(out));
  }

  void on_watch_end(std::uint64_t gen, Result<void> end) {
    if (!current(gen)) return;
    InformerState::Action next;
    if (end) {
      std::lock_guard lock(mutex);
      const auto lasted = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - watch_started);
      next = state.on_watch_closed(lasted);
    } else {
      report(end.error());
      std::lock_guard lock(mutex);
      next = state.on_watch_failed(end.error());
    }
    act(next);
  }
};

Informer::Informer(Client& client, const ResourceDescriptor& resource, InformerOptions options,
                   EventHandler on_event, ErrorHandler on_error, BatchEndHandler on_batch_end)
    : impl_(std::make_shared<Impl>(client, resource, std::move(options), std::move(on_event),
                                   std::move(on_error), std::move(on_batch_end))) {}

Informer::~Informer() { stop(); }

std::shared_ptr<Informer> Informer::start(Client& client, const ResourceDescriptor& resource,
                                          InformerOptions options, EventHandler on_event,
                                          ErrorHandler on_error, BatchEndHandler on_batch_end) {
  auto informer = std::make_shared<Informer>(client, resource, std::move(options), std::move(on_event),
                                             std::move(on_error), std::move(on_batch_end));
  InformerState::Action first;
  {
    std::lock_guard lock(informer->impl_->mutex);
    first = informer->impl_->state.start();
  }
  informer->impl_->act(first);
  return informer;
}

void Informer::stop() {
  std::lock_guard lock(impl_->mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->watch_handle.cancel();
  impl_->timer_handle.cancel();
}

int Informer::relists() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state.relists();
}

std::string Informer::resource_version() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state.resource_version();
}

}  // namespace kueuepp::kube::client

// WATCH: replays history after the requested resourceVersion (or synthesizes ADDED
// events for the current state), then registers with the watch hub for live changes
// until timeoutSeconds, the client going away, or the stream falling too far behind.

#include <charconv>
#include <chrono>
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/list_options.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"

namespace kueuepp::kube::server {

namespace {

/// kube-apiserver ends watches without timeoutSeconds after a random 30-60 minutes.
std::chrono::milliseconds default_timeout() {
  static thread_local std::mt19937 gen{std::random_device{}()};
  std::uniform_int_distribution<int> minutes(30, 59);
  return std::chrono::minutes(minutes(gen));
}

}  // namespace

void handle_watch(const RequestPtr& r) {
  auto filter = filter_of(*r);
  if (!filter) return respond_error(*r->responder, filter.error(), r->rep);
  if (!r->info.name.empty()) {
    // GET .../name?watch=1 watches one object.
    auto named = FieldSelector::parse("metadata.name=" + r->info.name);
    filter->fields = std::move(*named);
  }
  auto rv = parse_resource_version(r->query.get_or("resourceVersion", ""));
  if (!rv) return respond_error(*r->responder, rv.error(), r->rep);
  std::chrono::milliseconds timeout = default_timeout();
  if (auto t = r->query.get("timeoutSeconds")) {
    long long secs = 0;
    auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), secs);
    if (ec != std::errc() || p != t->data() + t->size() || secs < 0) {
      return respond_error(*r->responder, bad_request(fmt::format("invalid timeoutSeconds: \"{}\"", *t)), r->rep);
    }
    if (secs > 0) timeout = std::chrono::seconds(secs);
  }
  ServerContext& ctx = r->ctx;
  ObjectStore& store = ctx.store;
  bool from_version = *rv && **rv != 0;
  if (from_version && **rv < store.compacted_rv()) {
    return respond_error(*r->responder,
                         gone(fmt::format("too old resource version: {} ({})", **rv, store.compacted_rv())), r->rep);
  }
  Representation rep = r->rep == Representation::Yaml ? Representation::Json : r->rep;
  WatcherSpec spec;
  spec.bucket = r->bucket;
  spec.view = r->type;
  spec.representation = rep;
  spec.include_object = std::string(r->query.get_or("includeObject", "Metadata"));
  spec.filter = std::move(*filter);
  spec.bookmarks = r->query.flag("allowWatchBookmarks");
  bool initial_events = r->query.flag("sendInitialEvents");

  std::shared_ptr<StreamSink> sink = r->responder->stream(
      200, rep == Representation::Json ? "application/json" : content_type_of(rep), {});
  const ResourceType& view = r->view();
  std::uint64_t now = store.current_rv();
  bool overflow = false;
  if (view.converter && view.converter->calls_webhook()) {
    spec.converting = std::make_shared<ConvertingWatchStream>(sink, r->type, rep, spec.include_object);
  }
  auto send = [&](std::string_view type, const ObjectPtr& o) {
    if (overflow) return;
    if (spec.converting) {
      overflow = !spec.converting->event(type, o);
    } else if (!sink->write(watch_event_line(type, *o, view, rep, spec.include_object))) {
      overflow = true;
    }
  };
  if (from_version) {
    for (const Change* c : store.changes_after(**rv)) {
      if (c->bucket != r->bucket) continue;
      if (auto routed = WatchHub::route(spec.filter, *c)) send(to_string(routed->first), routed->second);
    }
  } else {
    store.scan(r->bucket, scan_prefix(view, spec.filter), "", 0, [&](const ObjectPtr& o) {
      if (spec.filter.matches(*o)) send("ADDED", o);
      return !overflow;
    });
    if (initial_events && spec.bookmarks && !overflow) {
      auto bookmark = bookmark_line(view, now, true);
      overflow = spec.converting ? !spec.converting->raw(std::move(bookmark)) : !sink->write(std::move(bookmark));
    }
  }
  if (spec.converting && spec.converting->ended()) return;  // it said why
  if (overflow) {
    sink->finish(error_line(to_status(gone("too old resource version: the initial events exceeded the stream buffer"))));
    return;
  }
  WatchHub::WatcherId id = ctx.watches.add(std::move(spec), sink, now);
  std::weak_ptr<StreamSink> weak = sink;
  auto timer = ctx.scheduler.after(timeout, [weak] {
    if (auto s = weak.lock()) s->finish();
  });
  sink->on_close([&ctx, id, timer] {
    ctx.watches.remove(id);
    timer->cancel();
  });
}

}  // namespace kueuepp::kube::server

#pragma once

// The asynchronous Kubernetes API client. Every call returns at once; its completion
// callback runs later on one of the client's io threads (never on the caller's), so
// CAF actors can forward results as messages and never block. Calls are thread-safe.
// Do not block inside callbacks, and do not destroy the Client from one of them.
//
// Beast/Asio/OpenSSL stay behind the pimpl (kube/client/detail/): including this
// header costs little.
//
// Requests are rate limited (token bucket), authenticated (bearer token re-read from
// its file periodically and on 401, or client certificates) and retried with jittered
// backoff where safe (see retry_policy.hpp). Non-2xx answers become ApiError.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/client/api_error.hpp"
#include "kube/client/cancel_handle.hpp"
#include "kube/client/client_config.hpp"
#include "kube/client/client_options.hpp"
#include "kube/client/client_stats.hpp"
#include "kube/client/http_types.hpp"
#include "kube/client/object.hpp"
#include "kube/client/request_options.hpp"
#include "kube/client/resource.hpp"
#include "kube/client/watch_event.hpp"

namespace kueuepp::kube::client {

namespace detail {
class ClientImpl;
}

template <class T>
using Result = Expected<T, ApiError>;

/// The answer to a delete: the object is gone (Status answer), or it is kept by
/// finalizers until they are removed (the object, with deletionTimestamp).
struct DeleteResult {
  bool finalizing = false;
  /// The returned object when finalizing, else the Status.
  Object object;
};

using ObjectCallback = std::function<void(Result<Object>)>;
using ListCallback = std::function<void(Result<ObjectList>)>;
using DeleteCallback = std::function<void(Result<DeleteResult>)>;
using RawCallback = std::function<void(Result<HttpResponse>)>;

struct RawOptions {
  /// Retry as typed calls do (off: exactly one attempt, as the replayer needs).
  bool retry = false;
  /// 0: ClientOptions::request_timeout.
  std::chrono::milliseconds timeout{0};
};

/// Callbacks of a raw streaming request, all on the io thread, in this order:
/// on_head once (if the server answered), on_chunk for each piece of the body as it
/// arrives, on_end exactly once (success when the server finished the body).
struct StreamHandlers {
  std::function<void(int status, const Headers& headers)> on_head;
  std::function<void(std::string_view chunk)> on_chunk;
  std::function<void(Result<void>)> on_end;
  /// Optional: after on_chunk when none of the data received so far waits to be parsed
  /// (more of the body needs another read of the connection).
  std::function<void()> on_drained;
};

/// Callbacks of a watch: events in order, then on_end exactly once: success when the
/// server closed the stream normally (e.g. its timeout), an ApiError otherwise (the
/// watch request's error status such as 410 Gone, a broken connection, cancellation,
/// an undecodable line).
struct WatchHandlers {
  std::function<void(WatchEvent)> on_event;
  std::function<void(Result<void>)> on_end;
  /// Optional: after events were delivered (at least one) and none of the data received
  /// so far waits to be decoded, and before on_end if events came since the last call.
  /// Lets a consumer pass on what arrived together in one batch without holding any
  /// event back until more data arrives.
  std::function<void()> on_batch_end;
};

/// read_modify_write: the mutation edits the object in place and returns true when
/// there is something to write, false when nothing changed (no request is sent), or
/// an error to abort.
using Mutation = std::function<Expected<bool>(Object&)>;

struct ReadModifyWriteOptions {
  int max_attempts = 5;
  /// Write the status subresource.
  bool status = false;
  WriteOptions write;
};

class Client {
 public:
  /// Validates the configuration (server URL, PEM data), builds the TLS context and
  /// starts the io threads. The error says what is wrong with the configuration.
  static Expected<std::unique_ptr<Client>> create(ClientConfig config, ClientOptions options = {});

  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Cancels watches, streams, timers and in-flight requests (their callbacks run with
  /// a Cancelled error), closes connections and joins the io threads. Idempotent;
  /// must not be called from an io thread. Later calls fail with Cancelled at once.
  void shutdown();

  // -- raw HTTP ---------------------------------------------------------------------
  /// One request; any HTTP status is a successful Result (the caller interprets it).
  void raw(HttpRequest request, RawCallback done, RawOptions options = {});
  /// A streaming request: the body is delivered as it arrives until the server ends it.
  CancelHandle raw_stream(HttpRequest request, StreamHandlers handlers);

  // -- verbs -----------------------------------------------------------------------
  /// `ns` is ignored for cluster-scoped resources.
  void get(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
           ObjectCallback done, const GetOptions& options = {});
  /// One page (ListOptions::limit) or everything (limit 0). Items get apiVersion/kind
  /// filled in when the server omits them (built-in lists do).
  void list(const ResourceDescriptor& resource, std::string_view ns, const ListOptions& options,
            ListCallback done);
  /// Every page (`page_size` per request) concatenated. If a continue token expires
  /// (410) it restarts once with a single unpaginated list.
  void list_all(const ResourceDescriptor& resource, std::string_view ns, ListOptions options,
                ListCallback done, std::int64_t page_size = 500);
  /// POST. The namespace is the object's (or the config's default namespace).
  void create(const ResourceDescriptor& resource, Object object, ObjectCallback done,
              const WriteOptions& options = {});
  /// POST of an object the caller wrote as JSON text already: one complete object of
  /// the resource that names its apiVersion, kind, name and (namespaced resources)
  /// namespace `ns`, sent as it is (for writers that never build a document of it).
  void create_text(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
                   std::string json_text, ObjectCallback done, const WriteOptions& options = {});
  /// POST of a document the caller keeps: sent as it is when it names its apiVersion,
  /// kind and (namespaced resources) namespace, else completed on a copy as above.
  void create(const ResourceDescriptor& resource, const json::value& object, ObjectCallback done,
              const WriteOptions& options = {});
  /// PUT of the object (name, namespace, resourceVersion taken from it: a stale
  /// resourceVersion fails with is_conflict()). options.status_subresource: PUT .../status.
  void update(const ResourceDescriptor& resource, Object object, ObjectCallback done,
              const WriteOptions& options = {});
  void update_status(const ResourceDescriptor& resource, Object object, ObjectCallback done,
                     WriteOptions options = {});
  /// PATCH with the given patch type and document.
  void patch(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
             PatchType type, const json::value& patch, ObjectCallback done,
             const PatchOptions& options = {});
  /// Server-side apply of `object` (its apiVersion/kind/name must be set).
  void apply(const ResourceDescriptor& resource, const Object& object, ObjectCallback done,
             const PatchOptions& options = {});
  void remove(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
              DeleteCallback done, const DeleteOptions& options = {});
  /// One watch stream (no reconnects; see Informer for list+watch that survives them).
  CancelHandle watch(const ResourceDescriptor& resource, std::string_view ns,
                     const WatchOptions& options, WatchHandlers handlers);

  /// get → mutate → update, repeated on 409 Conflict (with a short jittered backoff)
  /// up to max_attempts. `done` receives the written (or unchanged) object.
  void read_modify_write(const ResourceDescriptor& resource, std::string_view ns,
                         std::string_view name, Mutation mutate, ObjectCallback done,
                         ReadModifyWriteOptions options = {});

  // -- io thread helpers -------------------------------------------------------------
  /// Runs `fn` on an io thread after `delay` unless cancelled or the client shuts down.
  CancelHandle after(std::chrono::milliseconds delay, std::function<void()> fn);
  /// Runs `fn` on an io thread soon.
  void post(std::function<void()> fn);
  /// True on one of this client's io threads.
  bool in_io_thread() const;

  ClientStats stats() const;
  const ClientConfig& config() const;
  const ClientOptions& options() const;

 private:
  explicit Client(std::unique_ptr<detail::ClientImpl> impl);
  DecodeOptions decode_options() const;
  DecodeOptions decode_options(const WriteOptions& write) const;
  /// POST of `object`, complete (apiVersion, kind, namespace) and in namespace `ns`.
  void send_create(const ResourceDescriptor& resource, const std::string& ns, const json::value& object,
                   ObjectCallback done, const WriteOptions& options);
  std::unique_ptr<detail::ClientImpl> impl_;
};

}  // namespace kueuepp::kube::client

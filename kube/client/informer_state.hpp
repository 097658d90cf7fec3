#pragma once

// The list+watch state machine of an informer (client-go's Reflector), pure so that
// 410 handling and reconnect timing are unit-tested without a server:
//   - start: list; a successful list → watch from the list's resourceVersion;
//   - events advance the stored resourceVersion (BOOKMARK too);
//   - 410 Gone, as the watch's HTTP status or as an in-stream ERROR event: forget the
//     version and re-list (never watch again from a stale version); a 410 right after a
//     fresh list waits a backoff first, so a misbehaving server cannot cause a hot loop;
//   - a watch that ends normally (server timeout) resumes at once from the last version
//     (unless streams keep closing immediately: then it backs off);
//   - failures (list errors, watch errors, dropped connections) retry with jittered
//     exponential backoff; progress (a list, a watch that delivered events) resets it.

#include <chrono>
#include <string>

#include "kube/client/api_error.hpp"
#include "kube/client/backoff.hpp"

namespace kueuepp::kube::client {

class InformerState {
 public:
  struct Action {
    enum class Kind { List, Watch };
    Kind kind = Kind::List;
    /// For Watch: the version to watch from.
    std::string resource_version;
    /// Wait this long before acting (zero: at once).
    std::chrono::milliseconds delay{0};
  };

  explicit InformerState(Backoff backoff);

  Action start();
  Action on_list_succeeded(std::string resource_version);
  Action on_list_failed(const ApiError& error);
  /// ADDED/MODIFIED/DELETED/BOOKMARK: remember the version.
  void on_event(std::string_view resource_version);
  /// An in-stream ERROR event; the stream is abandoned.
  Action on_watch_error_event(const ApiError& error);
  /// The watch request itself failed (HTTP error status, connection failure).
  Action on_watch_failed(const ApiError& error);
  /// The stream ended without an error (server-side timeout, clean close) after
  /// `lasted`. A stream that lasted at least kHealthyStream (or delivered events) was
  /// healthy: resume at once; a stream that closes at once, repeatedly, backs off.
  Action on_watch_closed(std::chrono::milliseconds lasted);

  static constexpr std::chrono::milliseconds kHealthyStream{1000};

  const std::string& resource_version() const { return resource_version_; }
  int relists() const { return relists_; }

 private:
  Action relist(bool after_gone);
  Action watch_after(std::chrono::milliseconds delay) const;

  Backoff backoff_;
  std::string resource_version_;
  bool events_since_watch_start_ = false;
  bool gone_since_list_ = false;
  int relists_ = 0;
};

}  // namespace kueuepp::kube::client

#pragma once

// The runs a standalone runner plays (the Job, Kubeflow and Ray runners): per job, the
// uid it was started for and the timer that completes it. Watch events and timers come
// from the client's io threads, so each call holds one lock, and the calls that start or
// cancel a run hold it while they do: a run's completion never overtakes its start, and
// a cancelled run never completes.

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "kube/client/cancel_handle.hpp"

namespace kueuepp::cmd {

class RunningJobs {
 public:
  /// Starts the run of `key` for `uid`, unless it runs for `uid` already; a run for
  /// another uid (the job deleted and created again under its name) is cancelled first.
  /// `begin` (called under the lock) writes the job's start and returns the timer that
  /// will call finish(). False when nothing started: running already, or closed.
  bool start(const std::string& key, std::string_view uid, const std::function<kube::client::CancelHandle()>& begin);

  /// Cancels the run of `key`, if any (the job suspended, finished or deleted). False
  /// once closed: the runner writes nothing more.
  bool cancel(const std::string& key);

  /// The completion timer's call: true, and the run forgotten, if `key` still runs for
  /// `uid`; false if it was cancelled, restarted for another uid, or the runner closed.
  bool finish(const std::string& key, std::string_view uid);

  /// Cancels every run; nothing starts or finishes afterwards.
  void close();

  bool closed() const;
  std::size_t size() const;

 private:
  struct Run {
    std::string uid;
    kube::client::CancelHandle timer;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Run, std::less<>> runs_;
  bool closed_ = false;
};

}  // namespace kueuepp::cmd

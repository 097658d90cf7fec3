#include "cmd/standalone/running_jobs.hpp"

namespace kueuepp::cmd {

bool RunningJobs::start(const std::string& key, std::string_view uid,
                        const std::function<kube::client::CancelHandle()>& begin) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  auto it = runs_.find(key);
  if (it != runs_.end()) {
    if (it->second.uid == uid) return false;
    it->second.timer.cancel();
    runs_.erase(it);
  }
  runs_.emplace(key, Run{std::string(uid), begin()});
  return true;
}

bool RunningJobs::cancel(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  if (auto it = runs_.find(key); it != runs_.end()) {
    it->second.timer.cancel();
    runs_.erase(it);
  }
  return true;
}

bool RunningJobs::finish(const std::string& key, std::string_view uid) {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(key);
  if (closed_ || it == runs_.end() || it->second.uid != uid) return false;
  runs_.erase(it);
  return true;
}

void RunningJobs::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  for (auto& [key, run] : runs_) run.timer.cancel();
  runs_.clear();
}

bool RunningJobs::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

std::size_t RunningJobs::size() const {
  std::lock_guard lock(mutex_);
  return runs_.size();
}

}  // namespace kueuepp::cmd

#pragma once

// The open HTTP connections, so that stopping the server can close every one of them
// (ending watches) instead of waiting for clients. Store thread only.

#include <memory>
#include <unordered_map>

namespace kueuepp::kube::server {

class Session {
 public:
  virtual ~Session() = default;
  /// Closes the connection; pending handlers complete with errors.
  virtual void shutdown() = 0;
};

class SessionRegistry {
 public:
  void add(const std::shared_ptr<Session>& s) { sessions_[s.get()] = s; }
  void remove(Session* s) { sessions_.erase(s); }
  void shutdown_all() {
    auto copy = sessions_;
    for (auto& [ptr, weak] : copy) {
      if (auto s = weak.lock()) s->shutdown();
    }
  }
  std::size_t size() const { return sessions_.size(); }

 private:
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;
};

}  // namespace kueuepp::kube::server

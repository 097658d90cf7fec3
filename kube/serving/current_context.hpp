#pragma once

// The TLS context a server's new connections take, replaced while it runs (a rotated
// certificate): connections already open keep the one they began with.

#include <memory>
#include <mutex>

namespace boost::asio::ssl {
class context;
}

namespace kueuepp::kube::serving {

class CurrentContext {
 public:
  void set(std::shared_ptr<boost::asio::ssl::context> context) {
    std::lock_guard lock(mutex_);
    context_ = std::move(context);
  }
  /// Null until one is set.
  std::shared_ptr<boost::asio::ssl::context> get() const {
    std::lock_guard lock(mutex_);
    return context_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<boost::asio::ssl::context> context_;
};

}  // namespace kueuepp::kube::serving

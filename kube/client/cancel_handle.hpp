#pragma once

// A handle to something running on the client's io thread (a stream, a watch, a
// timer) that the owner may cancel from any thread. Cancelling is idempotent; a
// default-constructed handle does nothing. Dropping the handle does not cancel.

#include <functional>
#include <memory>
#include <utility>

namespace kueuepp::kube::client {

class CancelHandle {
 public:
  CancelHandle() = default;
  explicit CancelHandle(std::function<void()> cancel)
      : cancel_(std::make_shared<std::function<void()>>(std::move(cancel))) {}

  void cancel() const {
    if (cancel_ && *cancel_) (*cancel_)();
  }
  explicit operator bool() const { return cancel_ != nullptr; }

 private:
  std::shared_ptr<std::function<void()>> cancel_;
};

}  // namespace kueuepp::kube::client

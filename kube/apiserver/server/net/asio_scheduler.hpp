#pragma once

// Scheduler over an Asio io_context (the store thread's). Internal to kube/apiserver/server.

#include <boost/asio/io_context.hpp>

#include "kube/apiserver/server/http/scheduler.hpp"

namespace kueuepp::kube::server {

class AsioScheduler : public Scheduler {
 public:
  explicit AsioScheduler(boost::asio::io_context& io) : io_(io) {}
  void post(std::function<void()> task) override;
  std::shared_ptr<TimerHandle> after(std::chrono::milliseconds delay, std::function<void()> task) override;

 private:
  boost::asio::io_context& io_;
};

}  // namespace kueuepp::kube::server

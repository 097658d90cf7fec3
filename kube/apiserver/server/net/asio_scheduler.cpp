#include "kube/apiserver/server/net/asio_scheduler.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace kueuepp::kube::server {

namespace {

class AsioTimer : public TimerHandle, public std::enable_shared_from_this<AsioTimer> {
 public:
  explicit AsioTimer(boost::asio::io_context& io) : timer_(io) {}
  void start(std::chrono::milliseconds delay, std::function<void()> task) {
    timer_.expires_after(delay);
    timer_.async_wait([self = shared_from_this(), task = std::move(task)](boost::system::error_code ec) {
      if (!ec && !self->cancelled_) task();
    });
  }
  void cancel() override {
    cancelled_ = true;
    timer_.cancel();
  }

 private:
  boost::asio::steady_timer timer_;
  bool cancelled_ = false;
};

}  // namespace

void AsioScheduler::post(std::function<void()> task) { boost::asio::post(io_, std::move(task)); }

std::shared_ptr<TimerHandle> AsioScheduler::after(std::chrono::milliseconds delay, std::function<void()> task) {
  auto timer = std::make_shared<AsioTimer>(io_);
  timer->start(delay, std::move(task));
  return timer;
}

}  // namespace kueuepp::kube::server

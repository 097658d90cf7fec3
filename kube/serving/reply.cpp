#include "kube/serving/reply.hpp"

#include "kube/serving/connection.hpp"

namespace kueuepp::kube::serving {

namespace {

/// Posts `fn` to the connection while the server lives and the connection is open.
bool post_to(const std::weak_ptr<Connection>& weak, Life& life, std::function<void(Connection&)> fn) {
  std::lock_guard lock(life.mutex);
  if (!life.alive) return false;
  auto connection = weak.lock();
  if (!connection) return false;
  Connection* raw = connection.get();
  raw->post([connection = std::move(connection), fn = std::move(fn)] { fn(*connection); });
  return true;
}

}  // namespace

StreamSink::StreamSink(std::weak_ptr<Connection> connection, std::shared_ptr<Life> life)
    : connection_(std::move(connection)), life_(std::move(life)) {}

void StreamSink::post(std::function<void(Connection&)> fn) { post_to(connection_, *life_, std::move(fn)); }

void StreamSink::send(std::string bytes, std::function<void(bool)> then) {
  post([bytes = std::move(bytes), then = std::move(then)](Connection& c) mutable {
    c.stream_send(std::move(bytes), std::move(then));
  });
}

void StreamSink::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  post([delay, fn = std::move(fn)](Connection& c) mutable { c.stream_after(delay, std::move(fn)); });
}

void StreamSink::run(std::function<void()> fn) {
  post([fn = std::move(fn)](Connection& c) {
    if (c.stream_open()) fn();
  });
}

void StreamSink::close() {
  post([](Connection& c) { c.stream_close(); });
}

Reply::Reply(std::weak_ptr<Connection> connection, std::shared_ptr<Life> life, std::shared_ptr<ExchangeState> exchange)
    : connection_(std::move(connection)), life_(std::move(life)), exchange_(std::move(exchange)) {}

bool Reply::post(std::function<void(Connection&)> fn) const { return post_to(connection_, *life_, std::move(fn)); }

bool Reply::operator()(Response response) const {
  if (exchange_->answered.exchange(true)) return false;
  post([exchange = exchange_, response = std::move(response)](Connection& c) mutable {
    c.answer(*exchange, std::move(response));
  });
  return true;
}

std::shared_ptr<StreamSink> Reply::stream(std::string head) const {
  auto sink = std::make_shared<StreamSink>(connection_, life_);
  if (exchange_->answered.exchange(true)) return sink;  // too late: its calls find no open stream
  post([exchange = exchange_, head = std::move(head)](Connection& c) mutable {
    c.open_stream(*exchange, std::move(head));
  });
  return sink;
}

void Reply::restart_deadline(std::chrono::milliseconds timeout, Response on_timeout) const {
  if (exchange_->answered.load()) return;
  post([exchange = exchange_, timeout, on_timeout = std::move(on_timeout)](Connection& c) mutable {
    c.restart_deadline(*exchange, timeout, std::move(on_timeout));
  });
}

}  // namespace kueuepp::kube::serving

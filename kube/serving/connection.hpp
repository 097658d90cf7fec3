#pragma once

// What replies and streams ask of a served connection (kube/serving internals; its
// implementation, on Beast, is in http_server.cpp). Replies come from other threads: they
// reach a connection only through Life, which stop() marks dead before the server's
// io_context goes.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "kube/serving/exchange.hpp"

namespace kueuepp::kube::serving {

/// Whether the server still takes work posted from other threads (under `mutex`).
struct Life {
  std::mutex mutex;
  bool alive = true;
};

/// One request being answered: the first answer wins.
struct ExchangeState {
  std::atomic<bool> answered{false};
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  virtual ~Connection() = default;
  /// Runs `fn` on the connection's strand (the caller checked Life).
  virtual void post(std::function<void()> fn) = 0;

  // On the connection's strand:
  virtual void answer(const ExchangeState& exchange, Response response) = 0;
  virtual void restart_deadline(const ExchangeState& exchange, std::chrono::milliseconds timeout,
                                Response on_timeout) = 0;
  virtual void open_stream(const ExchangeState& exchange, std::string head) = 0;
  virtual void stream_send(std::string bytes, std::function<void(bool)> then) = 0;
  virtual void stream_after(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  virtual void stream_close() = 0;
  virtual bool stream_open() const = 0;
  /// The server stops, its threads joined: closes the socket and lets go of the
  /// connection's hold on itself.
  virtual void close_now() = 0;
};

}  // namespace kueuepp::kube::serving

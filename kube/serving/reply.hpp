#pragma once

// How a handler answers a request: once, from any thread, now or later. Everything a
// reply or a stream does after the server stopped (or after the connection went) is
// dropped: nothing is ever posted to a server that is gone.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "kube/serving/exchange.hpp"

namespace kueuepp::kube::serving {

class Connection;
struct Life;
struct ExchangeState;

/// A streamed answer: raw bytes after the head the handler wrote (for server-sent events,
/// whose head says Connection: close). Every call is safe from any thread; `then` and
/// `fn` run on the server's thread, never after the server stopped.
class StreamSink {
 public:
  StreamSink(std::weak_ptr<Connection> connection, std::shared_ptr<Life> life);
  /// Writes `bytes` after what is queued; `then(true)` once written, `then(false)` when the
  /// client is gone (the stream is then closed).
  void send(std::string bytes, std::function<void(bool written)> then = {});
  /// Runs `fn` after `delay` while the stream is open.
  void after(std::chrono::milliseconds delay, std::function<void()> fn);
  /// Runs `fn` on the server's thread while the stream is open.
  void run(std::function<void()> fn);
  /// Ends the stream and closes the connection.
  void close();

 private:
  void post(std::function<void(Connection&)> fn);
  std::weak_ptr<Connection> connection_;
  std::shared_ptr<Life> life_;
};

class Reply {
 public:
  Reply(std::weak_ptr<Connection> connection, std::shared_ptr<Life> life, std::shared_ptr<ExchangeState> exchange);
  /// The answer; only the first of the answers, the timeout's and a stream counts: true
  /// when this one is (it is then written unless the server stops first).
  bool operator()(Response response) const;
  /// Answers with a stream that begins with `head` (status line and fields, as written).
  std::shared_ptr<StreamSink> stream(std::string head) const;
  /// Starts the answer's deadline again: `on_timeout` is answered if nothing else is
  /// within `timeout` (a handler that waits in two steps gives each its own).
  void restart_deadline(std::chrono::milliseconds timeout, Response on_timeout) const;

 private:
  bool post(std::function<void(Connection&)> fn) const;
  std::weak_ptr<Connection> connection_;
  std::shared_ptr<Life> life_;
  std::shared_ptr<ExchangeState> exchange_;
};

}  // namespace kueuepp::kube::serving

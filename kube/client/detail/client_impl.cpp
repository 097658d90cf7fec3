#include "kube/client/detail/client_impl.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <chrono>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "kube/client/detail/transport.hpp"
#include "kube/client/rate_limiter.hpp"
#include "kube/client/retry_policy.hpp"
#include "kube/client/token_source.hpp"

namespace kueuepp::kube::client::detail {

namespace {

namespace asio = boost::asio;
using error_code = boost::system::error_code;
using Strand = asio::strand<asio::io_context::executor_type>;

// Something in flight that shutdown must cancel.
class Operation {
 public:
  virtual ~Operation() = default;
  virtual void cancel() = 0;
};

thread_local const void* tl_current_runtime = nullptr;

// Runs `io` until it stops (no work guard, nothing in flight). With an interval, a thread
// that found work looks again one interval after it started the look, so that what
// arrives in the meantime shares one wake-up; it blocks in the reactor only when a poll
// found nothing. A poll that took the whole interval is followed by the next at once: a
// saturated thread never idles. Work posted while it sleeps does not wake it (asio
// interrupts the reactor only for a thread waiting in it): it waits at most the interval.
void run_io(asio::io_context& io, std::chrono::microseconds interval) {
  if (interval.count() <= 0) {
    io.run();
    return;
  }
  for (;;) {
    const auto look = std::chrono::steady_clock::now();
    const std::size_t handled = io.poll();
    if (io.stopped()) return;
    if (handled == 0) {
      if (io.run_one() == 0) return;  // blocked until something happened; stopped if 0
      continue;
    }
    std::this_thread::sleep_until(look + interval);
  }
}

}  // namespace

struct ClientImpl::Runtime {
  Runtime(ClientConfig c, ClientOptions o)
      : config(std::move(c)),
        options(std::move(o)),
        limiter(options.qps, options.burst, options.clock),
        tokens(config.token, config.token_file, options.token_refresh_period, options.clock) {}

  ClientConfig config;
  ClientOptions options;
  asio::io_context io;  // declared before everything that holds io objects
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::thread> threads;
  std::unique_ptr<Transport> transport;
  RateLimiter limiter;
  TokenSource tokens;

  std::atomic<bool> stopping{false};
  std::mutex shutdown_mutex;
  bool joined = false;

  std::array<std::atomic<std::uint64_t>, kVerbCount> requests{};
  std::atomic<std::uint64_t> retries{0};
  std::atomic<std::uint64_t> throttled_requests{0};
  std::atomic<std::int64_t> throttled_ns{0};

  std::mutex ops_mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<Operation>> ops;
  std::uint64_t next_op_id = 1;

  // Registers `op` for shutdown to cancel (its key in `id`, set before the step can run)
  // and posts its first step to `strand`; once shutdown has begun, does neither and
  // returns false (the caller answers "cancelled"). Both under the lock shutdown takes to
  // set `stopping` and collect the operations: an operation started while the client
  // shuts down is either collected and cancelled, its first step queued before the io
  // threads can run out of work, or refused here; never posted to an io_context whose
  // threads have already returned, which would lose its callback.
  template <class Step>
  bool track_and_post(const std::shared_ptr<Operation>& op, std::uint64_t& id, const Strand& strand,
                      Step first_step) {
    std::lock_guard lock(ops_mutex);
    if (stopping) return false;
    id = next_op_id++;
    ops.emplace(id, op);
    asio::post(strand, std::move(first_step));
    return true;
  }
  void untrack(std::uint64_t id) {
    std::lock_guard lock(ops_mutex);
    ops.erase(id);
  }

  void count_request(Verb verb) { ++requests[static_cast<std::size_t>(verb)]; }

  // Adds credentials and the user agent unless the request carries its own.
  void authenticate(HttpRequest& request) {
    if (!find_header(request.headers, "Authorization")) {
      const std::string token = tokens.token();
      if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
    }
    if (!find_header(request.headers, "User-Agent")) {
      request.headers.emplace_back("User-Agent", options.user_agent);
    }
  }

  // Waits for the rate limiter with `timer`, then runs `next` (or `cancelled`).
  // `step`: the deadline is rounded up to a multiple of it (see round_up_to_step).
  template <class Next, class Cancelled>
  void throttle(asio::steady_timer& timer, const Strand& strand, std::chrono::nanoseconds step, Next next,
                Cancelled cancelled) {
    const auto wait = limiter.reserve();
    if (wait.count() <= 0) return next();
    ++throttled_requests;
    throttled_ns += wait.count();
    timer.expires_at(round_up_to_step(std::chrono::steady_clock::now() + wait, step));
    timer.async_wait(asio::bind_executor(
        strand, [next = std::move(next), cancelled = std::move(cancelled)](const error_code& ec) {
          if (ec) cancelled();
          else next();
        }));
  }

  // A background request (WriteOptions::background): holds no reservation while it
  // waits, and asks again when a token would be free; requests reserving meanwhile go
  // first. `since`: when it began to wait (the wait is counted once in the stats).
  template <class Next, class Cancelled>
  void throttle_background(asio::steady_timer& timer, const Strand& strand, std::chrono::nanoseconds step,
                           Next next, Cancelled cancelled, std::chrono::steady_clock::time_point since = {}) {
    const auto wait = limiter.take_spare();
    const auto now = std::chrono::steady_clock::now();
    if (wait.count() <= 0) {
      if (since != std::chrono::steady_clock::time_point{}) {
        ++throttled_requests;
        throttled_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count();
      }
      return next();
    }
    if (since == std::chrono::steady_clock::time_point{}) since = now;
    timer.expires_at(round_up_to_step(now + wait, step));
    timer.async_wait(asio::bind_executor(
        strand, [this, &timer, strand, step, since, next = std::move(next),
                 cancelled = std::move(cancelled)](const error_code& ec) mutable {
          if (ec) return cancelled();
          throttle_background(timer, strand, step, std::move(next), std::move(cancelled), since);
        }));
  }
};

namespace {

using Runtime = ClientImpl::Runtime;

std::string describe_request(const HttpRequest& r) { return r.method + " " + r.target; }

/// A request the server's authorization refused is a deployment error (the credentials'
/// roles lack a rule), not a passing fault: said at error level, with the request and the
/// server's message (which names the user, verb, resource and namespace, and the
/// authorizer's reason when it gives one), whatever the caller does next. A write into a
/// terminating namespace is refused with 403 too; that one is the caller's to handle.
void log_forbidden(const HttpRequest& request, const ApiError& error) {
  for (const StatusCause& cause : error.details.causes) {
    if (cause.reason == "NamespaceTerminating") return;
  }
  spdlog::error("the API server forbade {}: {}; grant this permission to the client's identity (for the "
                "controller: its ServiceAccount's roles in deploy/rbac/)",
                describe_request(request), error.message.empty() ? std::string("403 Forbidden") : error.message);
}

ApiError cancelled_error(const HttpRequest& r) {
  return make_error(ApiError::Kind::Cancelled, describe_request(r),
                    "cancelled (the client is shutting down or the caller cancelled)");
}

// One request with rate limiting, authentication and retries.
class RequestOperation final : public Operation,
                               public std::enable_shared_from_this<RequestOperation> {
 public:
  RequestOperation(Runtime& rt, RequestSpec spec, RawCallback done)
      : rt_(rt),
        spec_(std::move(spec)),
        done_(std::move(done)),
        strand_(asio::make_strand(rt.io)),
        timer_(strand_),
        backoff_(rt.options.retry_backoff, rt.options.random),
        idempotent_(is_idempotent_method(spec_.http.method)) {
    if (spec_.timeout.count() <= 0) spec_.timeout = rt.options.request_timeout;
  }

  void start() {
    auto self = shared_from_this();
    if (!rt_.track_and_post(self, id_, strand_, [self] { self->attempt(); })) {
      finish(unexpected(cancelled_error(spec_.http)));
    }
  }

  void cancel() override {
    cancelled_ = true;
    asio::post(strand_, [self = shared_from_this()] {
      self->timer_.cancel();
      if (self->exchange_) self->exchange_->cancel();
    });
  }

 private:
  void attempt() {
    if (cancelled_ || rt_.stopping) return finish(unexpected(cancelled_error(spec_.http)));
    auto self = shared_from_this();
    const std::chrono::nanoseconds step = spec_.may_wait_for_step ? rt_.options.throttle_granularity
                                                                  : std::chrono::nanoseconds(0);
    auto send = [self] { self->send(); };
    auto cancelled = [self] { self->finish(unexpected(cancelled_error(self->spec_.http))); };
    if (spec_.background) return rt_.throttle_background(timer_, strand_, step, send, cancelled);
    rt_.throttle(timer_, strand_, step, send, cancelled);
  }

  void send() {
    if (cancelled_) return finish(unexpected(cancelled_error(spec_.http)));
    HttpRequest request = spec_.http;
    rt_.authenticate(request);
    rt_.count_request(spec_.verb);
    auto self = shared_from_this();
    exchange_ = rt_.transport->send(std::move(request), spec_.timeout,
                                    [self](Result<HttpResponse> result) {
                                      asio::post(self->strand_, [self, r = std::move(result)]() mutable {
                                        self->on_result(std::move(r));
                                      });
                                    });
  }

  void on_result(Result<HttpResponse> result) {
    exchange_.reset();
    if (cancelled_) return finish(unexpected(cancelled_error(spec_.http)));
    if (!result) {
      const ApiError error = result.error();
      return maybe_retry(std::move(result), error);
    }
    if (result->status == 401 && rt_.tokens.refreshable() && !token_refreshed_) {
      // The token file may have rotated since we read it: re-read once and resend.
      token_refreshed_ = true;
      rt_.tokens.invalidate();
      return attempt();
    }
    if (result->status == 403) log_forbidden(spec_.http, decode_error_response(*result, ""));
    if (spec_.retry && (result->status == 429 || result->status >= 500)) {
      const ApiError error = decode_error_response(*result, describe_request(spec_.http));
      return maybe_retry(std::move(result), error);
    }
    finish(std::move(result));
  }

  void maybe_retry(Result<HttpResponse> result, const ApiError& error) {
    if (!spec_.retry) return finish(std::move(result));
    const RetryDecision decision =
        decide_retry(error, idempotent_, retries_, backoff_, rt_.options.retry);
    if (!decision.retry || rt_.stopping) return finish(std::move(result));
    ++retries_;
    ++rt_.retries;
    spdlog::debug("{}; retry {} in {} ms", error.describe(), retries_, decision.delay.count());
    timer_.expires_after(decision.delay);
    timer_.async_wait(asio::bind_executor(strand_, [self = shared_from_this()](const error_code& ec) {
      if (ec || self->cancelled_) return self->finish(unexpected(cancelled_error(self->spec_.http)));
      self->attempt();
    }));
  }

  void finish(Result<HttpResponse> result) {
    if (finished_) return;
    finished_ = true;
    rt_.untrack(id_);
    if (auto done = std::move(done_)) done(std::move(result));
  }

  Runtime& rt_;
  RequestSpec spec_;
  RawCallback done_;
  Strand strand_;
  asio::steady_timer timer_;
  Backoff backoff_;
  bool idempotent_;
  std::uint64_t id_ = 0;
  int retries_ = 0;
  bool token_refreshed_ = false;
  bool finished_ = false;
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<Exchange> exchange_;
};

// One streaming request: rate limited and authenticated, never retried.
class StreamOperation final : public Operation,
                              public std::enable_shared_from_this<StreamOperation> {
 public:
  StreamOperation(Runtime& rt, RequestSpec spec, StreamHandlers handlers)
      : rt_(rt), spec_(std::move(spec)), handlers_(std::move(handlers)),
        strand_(asio::make_strand(rt.io)), timer_(strand_) {}

  void start() {
    auto self = shared_from_this();
    const bool started = rt_.track_and_post(self, id_, strand_, [self] {
      if (self->cancelled_ || self->rt_.stopping) {
        return self->end(unexpected(cancelled_error(self->spec_.http)));
      }
      self->rt_.throttle(
          self->timer_, self->strand_, std::chrono::nanoseconds(0), [self] { self->send(); },
          [self] { self->end(unexpected(cancelled_error(self->spec_.http))); });
    });
    if (!started) end(unexpected(cancelled_error(spec_.http)));
  }

  void cancel() override {
    cancelled_ = true;
    asio::post(strand_, [self = shared_from_this()] {
      self->timer_.cancel();
      if (self->exchange_) self->exchange_->cancel();
    });
  }

 private:
  void send() {
    if (cancelled_) return end(unexpected(cancelled_error(spec_.http)));
    HttpRequest request = spec_.http;
    rt_.authenticate(request);
    rt_.count_request(spec_.verb);
    auto self = shared_from_this();
    StreamCallbacks callbacks;
    callbacks.on_head = [self](int status, const Headers& headers) {
      if (status == 401 && self->rt_.tokens.refreshable()) self->rt_.tokens.invalidate();
      if (status == 403) log_forbidden(self->spec_.http, ApiError{});
      if (self->handlers_.on_head) self->handlers_.on_head(status, headers);
    };
    callbacks.on_chunk = [self](std::string_view chunk) {
      if (self->handlers_.on_chunk) self->handlers_.on_chunk(chunk);
    };
    if (handlers_.on_drained) {
      callbacks.on_drained = [self] { self->handlers_.on_drained(); };
    }
    callbacks.on_end = [self](Expected<void, ApiError> result) { self->end(std::move(result)); };
    exchange_ = rt_.transport->stream(std::move(request), std::move(callbacks));
  }

  void end(Expected<void, ApiError> result) {
    if (finished_.exchange(true)) return;
    rt_.untrack(id_);
    if (auto on_end = std::move(handlers_.on_end)) on_end(std::move(result));
    handlers_ = {};  // drop captured state (actor handles, buffers) promptly
  }

  Runtime& rt_;
  RequestSpec spec_;
  StreamHandlers handlers_;
  Strand strand_;
  asio::steady_timer timer_;
  std::uint64_t id_ = 0;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> finished_{false};
  std::shared_ptr<Exchange> exchange_;
};

class TimerOperation final : public Operation,
                             public std::enable_shared_from_this<TimerOperation> {
 public:
  TimerOperation(Runtime& rt, std::function<void()> fn)
      : rt_(rt), fn_(std::move(fn)), strand_(asio::make_strand(rt.io)), timer_(strand_) {}

  void start(std::chrono::milliseconds delay) {
    auto self = shared_from_this();
    // A timer started while the client shuts down never fires, as one cancelled by it.
    rt_.track_and_post(self, id_, strand_, [self, delay] {
      if (self->cancelled_) return self->done();
      self->timer_.expires_after(delay);
      self->timer_.async_wait(asio::bind_executor(self->strand_, [self](const error_code& ec) {
        auto fn = std::move(self->fn_);
        self->done();
        if (!ec && !self->cancelled_ && !self->rt_.stopping && fn) fn();
      }));
    });
  }

  void cancel() override {
    cancelled_ = true;
    asio::post(strand_, [self = shared_from_this()] { self->timer_.cancel(); });
  }

 private:
  void done() { rt_.untrack(id_); }

  Runtime& rt_;
  std::function<void()> fn_;
  Strand strand_;
  asio::steady_timer timer_;
  std::uint64_t id_ = 0;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

ClientImpl::ClientImpl(std::unique_ptr<Runtime> runtime) : rt_(std::move(runtime)) {}

ClientImpl::~ClientImpl() {
  if (rt_ && in_io_thread()) {
    // Destroyed from one of its own callbacks: the threads cannot be joined from here.
    // Stop everything, let the threads finish on their own and leak the runtime rather
    // than destroy the io_context under a running thread.
    shutdown();
    for (std::thread& t : rt_->threads) t.detach();
    (void)rt_.release();  // intentionally leaked, see above
    return;
  }
  shutdown();
}

Expected<std::unique_ptr<ClientImpl>> ClientImpl::create(ClientConfig config,
                                                         ClientOptions options) {
  if (options.io_threads < 1) options.io_threads = 1;
  auto rt = std::make_unique<Runtime>(std::move(config), std::move(options));
  auto transport = Transport::create(rt->io, rt->config, rt->options);
  if (!transport) return unexpected(transport.error());
  rt->transport = std::move(*transport);
  rt->work.emplace(asio::make_work_guard(rt->io));
  for (int i = 0; i < rt->options.io_threads; ++i) {
    rt->threads.emplace_back([r = rt.get()] {
      tl_current_runtime = r;
      run_io(r->io, r->options.io_batch_interval);
    });
  }
  return std::unique_ptr<ClientImpl>(new ClientImpl(std::move(rt)));
}

void ClientImpl::shutdown() {
  if (!rt_) return;
  std::lock_guard lock(rt_->shutdown_mutex);
  if (rt_->joined) return;
  std::vector<std::shared_ptr<Operation>> live;
  {
    // Under the lock track_and_post takes: every operation is either collected here or
    // refused there.
    std::lock_guard ops_lock(rt_->ops_mutex);
    rt_->stopping = true;
    for (auto& [id, weak] : rt_->ops) {
      if (auto op = weak.lock()) live.push_back(std::move(op));
    }
  }
  for (auto& op : live) op->cancel();
  live.clear();
  if (rt_->transport) rt_->transport->close_idle();
  rt_->work.reset();
  if (in_io_thread()) {
    spdlog::error("kube client: shutdown() called on the client's own io thread; the threads "
                  "cannot be joined from there (destroy the client from another thread)");
    return;
  }
  for (std::thread& t : rt_->threads) t.join();
  rt_->threads.clear();
  rt_->joined = true;
}

void ClientImpl::execute(RequestSpec spec, RawCallback done) {
  if (rt_->stopping) {
    done(unexpected(cancelled_error(spec.http)));
    return;
  }
  std::make_shared<RequestOperation>(*rt_, std::move(spec), std::move(done))->start();
}

CancelHandle ClientImpl::stream(RequestSpec spec, StreamHandlers handlers) {
  if (rt_->stopping) {
    if (handlers.on_end) handlers.on_end(unexpected(cancelled_error(spec.http)));
    return {};
  }
  auto op = std::make_shared<StreamOperation>(*rt_, std::move(spec), std::move(handlers));
  op->start();
  return CancelHandle([weak = std::weak_ptr<StreamOperation>(op)] {
    if (auto o = weak.lock()) o->cancel();
  });
}

CancelHandle ClientImpl::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  if (rt_->stopping) return {};
  auto op = std::make_shared<TimerOperation>(*rt_, std::move(fn));
  op->start(delay);
  return CancelHandle([weak = std::weak_ptr<TimerOperation>(op)] {
    if (auto o = weak.lock()) o->cancel();
  });
}

void ClientImpl::post(std::function<void()> fn) {
  if (rt_->stopping) return;
  asio::post(rt_->io, std::move(fn));
}

bool ClientImpl::in_io_thread() const { return tl_current_runtime == rt_.get(); }

ClientStats ClientImpl::stats() const {
  ClientStats s;
  for (std::size_t i = 0; i < kVerbCount; ++i) s.requests[i] = rt_->requests[i].load();
  s.retries = rt_->retries.load();
  s.throttled_requests = rt_->throttled_requests.load();
  s.throttled_time = std::chrono::nanoseconds(rt_->throttled_ns.load());
  if (rt_->transport) {
    s.connections_opened = rt_->transport->connections_opened();
    s.connections_reused = rt_->transport->connections_reused();
  }
  return s;
}

const ClientConfig& ClientImpl::config() const { return rt_->config; }
const ClientOptions& ClientImpl::options() const { return rt_->options; }

}  // namespace kueuepp::kube::client::detail

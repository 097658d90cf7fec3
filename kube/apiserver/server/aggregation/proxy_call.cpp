#include "kube/apiserver/server/aggregation/proxy_call.hpp"

#include "kube/apiserver/server/aggregation/front_proxy.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"

namespace kueuepp::kube::server {

namespace {

/// A buffered answer larger than this is refused rather than held in memory.
constexpr std::size_t kMaxBufferedBytes = 256u << 20;

class ProxyCall : public std::enable_shared_from_this<ProxyCall> {
 public:
  ProxyCall(Scheduler& scheduler, ResponderPtr responder, ProxyCallOptions options)
      : scheduler_(scheduler), responder_(std::move(responder)), options_(options) {}

  void start(BackendTransport& transport, const BackendTarget& target, BackendRequest request) {
    BackendHandlers handlers;
    handlers.head = [self = shared_from_this()](Expected<BackendResponseHead> head) { self->on_head(std::move(head)); };
    handlers.data = [self = shared_from_this()](std::string data) { return self->on_data(std::move(data)); };
    handlers.end = [self = shared_from_this()](Status result) { self->on_end(std::move(result)); };
    exchange_ = transport.send(target, std::move(request), options_.timeouts, std::move(handlers));
    if (!options_.long_running) {
      timer_ = scheduler_.after(options_.timeout, [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->on_timeout();
      });
    }
  }

 private:
  void on_head(Expected<BackendResponseHead> head) {
    if (done_) return;
    if (!head) return answer_error(503, head.error().message);
    head_ = std::move(*head);
    content_type_ = std::string(http::find_header(head_.headers, "content-type").value_or(""));
    for (auto& [name, value] : head_.headers) {
      if (passed_back(name)) passed_headers_.emplace_back(name, value);
    }
    bool streams = options_.long_running || !head_.content_length;
    if (!streams) return;
    sink_ = responder_->stream(head_.status, content_type_, passed_headers_);
    sink_->on_close([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->on_caller_gone();
    });
  }

  bool on_data(std::string data) {
    if (done_) return false;
    if (sink_) return sink_->write(std::make_shared<const std::string>(std::move(data)));
    if (body_.size() + data.size() > kMaxBufferedBytes) {
      answer_error(503, "the aggregated API server's answer is larger than 256 MiB");
      return false;
    }
    body_ += data;
    return true;
  }

  void on_end(Status result) {
    if (done_) return;
    if (sink_) {
      done_ = true;
      cancel_timer();
      sink_->finish();
      return;
    }
    if (!result) return answer_error(503, result.error().message);
    done_ = true;
    cancel_timer();
    HttpResponse res;
    res.status = head_.status;
    res.content_type = content_type_;
    res.headers = std::move(passed_headers_);
    res.body = std::move(body_);
    responder_->respond(std::move(res));
  }

  void on_timeout() {
    if (done_) return;
    if (exchange_) exchange_->cancel();
    if (sink_) {
      done_ = true;
      sink_->finish();
      return;
    }
    done_ = true;
    respond_error(*responder_, timeout("Timeout: request did not complete within requested timeout - context deadline exceeded"));
  }

  void on_caller_gone() {
    if (done_) return;
    done_ = true;
    cancel_timer();
    if (exchange_) exchange_->cancel();
  }

  void answer_error(int status, std::string_view message) {
    done_ = true;
    cancel_timer();
    if (exchange_) exchange_->cancel();
    respond_proxy_error(*responder_, status, message);
  }

  void cancel_timer() {
    if (timer_) timer_->cancel();
  }

  Scheduler& scheduler_;
  ResponderPtr responder_;
  ProxyCallOptions options_;
  std::shared_ptr<BackendExchange> exchange_;
  std::shared_ptr<TimerHandle> timer_;
  std::shared_ptr<StreamSink> sink_;
  BackendResponseHead head_;
  std::string content_type_;
  http::Headers passed_headers_;
  std::string body_;
  bool done_ = false;
};

}  // namespace

void start_proxy_call(Scheduler& scheduler, BackendTransport& transport, const BackendTarget& target,
                      BackendRequest request, ProxyCallOptions options, ResponderPtr responder) {
  auto call = std::make_shared<ProxyCall>(scheduler, std::move(responder), options);
  call->start(transport, target, std::move(request));
}

void respond_proxy_error(Responder& responder, int status, std::string_view message) {
  HttpResponse res;
  res.status = status;
  res.content_type = "text/plain; charset=utf-8";
  res.headers.emplace_back("X-Content-Type-Options", "nosniff");
  res.body = std::string(message) + "\n";
  responder.respond(std::move(res));
}

}  // namespace kueuepp::kube::server

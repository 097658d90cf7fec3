#include "kube/apiserver/server/api/in_flight_limit.hpp"

namespace kueuepp::kube::server {

namespace {

/// Answers through `inner`; the slot goes with the first answer.
class ReleasingResponder final : public Responder {
 public:
  ReleasingResponder(ResponderPtr inner, std::shared_ptr<void> slot) : inner_(std::move(inner)), slot_(std::move(slot)) {}

  void respond(HttpResponse response) override {
    slot_.reset();
    inner_->respond(std::move(response));
  }
  std::shared_ptr<StreamSink> stream(int status, std::string content_type, http::Headers headers) override {
    slot_.reset();
    return inner_->stream(status, std::move(content_type), std::move(headers));
  }

 private:
  ResponderPtr inner_;
  std::shared_ptr<void> slot_;
};

}  // namespace

InFlightLimiter::InFlightLimiter(std::size_t max_reads, std::size_t max_mutating)
    : max_reads_(max_reads), max_mutating_(max_mutating) {}

std::shared_ptr<void> InFlightLimiter::try_admit(bool mutating) {
  const std::size_t limit = mutating ? max_mutating_ : max_reads_;
  std::size_t& count = mutating ? counts_->mutating : counts_->reads;
  if (limit != 0 && count >= limit) return nullptr;
  ++count;
  // The handle's deleter gives the slot back; it holds the counts, not the limiter.
  return std::shared_ptr<void>(static_cast<void*>(counts_.get()), [counts = counts_, mutating](void*) {
    --(mutating ? counts->mutating : counts->reads);
  });
}

bool is_mutating_verb(std::string_view verb) { return verb != "get" && verb != "list" && verb != "watch"; }

bool is_long_running(std::string_view verb, std::string_view subresource) {
  if (verb == "watch" || verb == "proxy") return true;
  for (std::string_view s : {"attach", "exec", "proxy", "log", "portforward"}) {
    if (subresource == s) return true;
  }
  return false;
}

ResponderPtr releasing_responder(ResponderPtr responder, std::shared_ptr<void> slot) {
  return std::make_shared<ReleasingResponder>(std::move(responder), std::move(slot));
}

HttpResponse too_many_requests() {
  HttpResponse res;
  res.status = 429;
  res.content_type = "text/plain; charset=utf-8";
  res.headers.emplace_back("Retry-After", "1");
  res.headers.emplace_back("X-Content-Type-Options", "nosniff");
  res.body = "Too many requests, please try again later.\n";
  return res;
}

}  // namespace kueuepp::kube::server

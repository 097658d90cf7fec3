#pragma once

// kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight: how many
// requests (reads, and writes, counted apart) may be in flight at once before more are
// answered 429 with Retry-After. A request is in flight from its arrival until it is
// answered: on this server that is the time it waits for admission webhooks, aggregated
// backends and the data directory's fsync. As in kube-apiserver, long-running requests
// (watches, proxy, exec, attach, log, portforward) and system:masters are not counted.

#include <cstddef>
#include <memory>
#include <string_view>

#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

class InFlightLimiter {
 public:
  /// 0: no limit for that kind.
  InFlightLimiter(std::size_t max_reads, std::size_t max_mutating);

  /// A slot for one request, released when the returned handle goes; null when the
  /// kind's limit is reached.
  std::shared_ptr<void> try_admit(bool mutating);

  std::size_t in_flight(bool mutating) const { return mutating ? counts_->mutating : counts_->reads; }

 private:
  std::size_t max_reads_;
  std::size_t max_mutating_;
  // Counted through shared state: a slot may outlive the limiter (an answer still
  // queued when the server stops).
  struct Counts {
    std::size_t reads = 0;
    std::size_t mutating = 0;
  };
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();
};

/// Whether kube-apiserver counts the request as mutating: any verb but get, list, watch.
bool is_mutating_verb(std::string_view verb);
/// Whether kube-apiserver treats it as long-running (never limited): watches, proxy, and
/// the attach, exec, proxy, log and portforward subresources.
bool is_long_running(std::string_view verb, std::string_view subresource);

/// `responder`, releasing `slot` once it has answered (or is dropped unanswered).
ResponderPtr releasing_responder(ResponderPtr responder, std::shared_ptr<void> slot);

/// kube-apiserver's answer beyond the limit: 429, Retry-After: 1, plain text.
HttpResponse too_many_requests();

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

ServerContext::ServerContext(Scheduler& sched, std::size_t history_limit)
    : scheduler(sched), store(history_limit) {}

void ServerContext::commit(const Change& change, std::function<void()> done) {
  for (const auto& observer : observers_) observer(change);
  if (journal == nullptr) {
    watches.publish(change);
    if (done) done();
    return;
  }
  journal->append(change, [this, published = change, done = std::move(done)] {
    watches.publish(published);
    if (done) done();
  });
}

}  // namespace kueuepp::kube::server

#pragma once

// The requests of leader election against coordination.k8s.io/v1 Leases in one
// namespace, through the shared API client. Each request is a single attempt bounded by
// `timeout`: the client's own retries (jittered backoff, 30 s per attempt) would keep a
// renewal pending long past the renew deadline, and a late answer is worth nothing. The
// election retries at its own pace instead. Callbacks run on the client's io thread.

#include <chrono>
#include <string>
#include <string_view>

#include "kube/client/client.hpp"
#include "kube/leader/lease_api.hpp"

namespace kueuepp::kube::leader {

class LeaseClient final : public LeaseApi {
 public:
  /// `client` must outlive every request.
  LeaseClient(client::Client& client, std::string ns, std::chrono::milliseconds timeout);

  const std::string& namespace_name() const { return ns_; }

  void get(std::string_view name, ObjectDone done) override;
  /// One page.
  void list(std::string_view label_selector, ListDone done) override;
  /// The namespace is set to this client's.
  void create(client::Object lease, ObjectDone done) override;
  void update(client::Object lease, ObjectDone done) override;
  void remove(std::string_view name, DeleteDone done, std::string_view precondition_resource_version = {}) override;

 private:
  void send(std::string method, std::string target, const json::value* body, std::string operation,
            std::function<void(client::Result<json::value>)> done) const;

  client::Client& client_;
  std::string ns_;
  std::chrono::milliseconds timeout_;
};

}  // namespace kueuepp::kube::leader

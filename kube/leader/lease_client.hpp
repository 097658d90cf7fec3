#pragma once

// The requests of leader election against coordination.k8s.io/v1 Leases in one
// namespace, through the shared API client. Each request is a single attempt bounded by
// `timeout`: the client's own retries (jittered backoff, 30 s per attempt) would keep a
// renewal pending long past the renew deadline, and a late answer is worth nothing. The
// election retries at its own pace instead. Callbacks run on the client's io thread.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/client.hpp"

namespace kueuepp::kube::leader {

class LeaseClient {
 public:
  using ObjectDone = std::function<void(client::Result<client::Object>)>;
  using ListDone = std::function<void(client::Result<std::vector<client::Object>>)>;
  using DeleteDone = std::function<void(client::Result<void>)>;

  /// `client` must outlive every request.
  LeaseClient(client::Client& client, std::string ns, std::chrono::milliseconds timeout);

  const std::string& namespace_name() const { return ns_; }

  /// NotFound arrives as an ApiError with is_not_found().
  void get(std::string_view name, ObjectDone done) const;
  /// Every Lease of the namespace matching the label selector (one page).
  void list(std::string_view label_selector, ListDone done) const;
  /// The namespace is set to this client's.
  void create(client::Object lease, ObjectDone done) const;
  /// PUT; metadata.resourceVersion is the precondition (a stale one fails with 409).
  void update(client::Object lease, ObjectDone done) const;
  /// Already gone counts as done.
  void remove(std::string_view name, DeleteDone done) const;

 private:
  void send(std::string method, std::string target, const client::Object* body, std::string operation,
            std::function<void(client::Result<json::value>)> done) const;

  client::Client& client_;
  std::string ns_;
  std::chrono::milliseconds timeout_;
};

}  // namespace kueuepp::kube::leader

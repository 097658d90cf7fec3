#pragma once

// What leader election needs from the API server: reads and writes of the Leases of one
// namespace. LeaseClient (lease_client.hpp) implements it over the API client; protocol
// tests implement it in memory. Each call answers exactly once, on any thread.

#include <functional>
#include <string_view>

#include "kube/client/client.hpp"

namespace kueuepp::kube::leader {

class LeaseApi {
 public:
  using ObjectDone = std::function<void(client::Result<client::Object>)>;
  using ListDone = std::function<void(client::Result<client::ObjectList>)>;
  using DeleteDone = std::function<void(client::Result<void>)>;

  virtual ~LeaseApi() = default;

  /// NotFound arrives as an ApiError with is_not_found().
  virtual void get(std::string_view name, ObjectDone done) = 0;
  /// Every Lease of the namespace matching the label selector.
  virtual void list(std::string_view label_selector, ListDone done) = 0;
  /// Fails with AlreadyExists (409) when the name is taken.
  virtual void create(client::Object lease, ObjectDone done) = 0;
  /// Replaces the Lease; metadata.resourceVersion is the precondition (409 when stale).
  virtual void update(client::Object lease, ObjectDone done) = 0;
  /// Already gone counts as done. With a precondition, a Lease changed since that
  /// resourceVersion is kept (409).
  virtual void remove(std::string_view name, DeleteDone done, std::string_view precondition_resource_version = {}) = 0;
};

}  // namespace kueuepp::kube::leader

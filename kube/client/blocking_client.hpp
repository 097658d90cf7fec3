#pragma once

// A blocking facade over Client for tools and tests: each call runs the asynchronous
// call and waits for its callback. Never use it from the client's io thread (the call
// would wait for itself): there it fails at once with a Usage error.

#include <chrono>
#include <string>

#include "kube/client/client.hpp"

namespace kueuepp::kube::client {

/// A streamed response collected whole (watch requests end when the server closes).
struct CollectedStream {
  int status = 0;
  Headers headers;
  std::string body;
};

class BlockingClient {
 public:
  explicit BlockingClient(Client& client) : client_(client) {}

  Result<HttpResponse> raw(HttpRequest request, RawOptions options = {});
  /// Streams the response and returns it whole once the server ends it.
  Result<CollectedStream> raw_stream(HttpRequest request);

  Result<Object> get(const ResourceDescriptor& resource, std::string_view ns,
                     std::string_view name, const GetOptions& options = {});
  Result<ObjectList> list(const ResourceDescriptor& resource, std::string_view ns,
                          const ListOptions& options = {});
  Result<ObjectList> list_all(const ResourceDescriptor& resource, std::string_view ns,
                              const ListOptions& options = {}, std::int64_t page_size = 500);
  Result<Object> create(const ResourceDescriptor& resource, Object object,
                        const WriteOptions& options = {});
  Result<Object> update(const ResourceDescriptor& resource, Object object,
                        const WriteOptions& options = {});
  Result<Object> update_status(const ResourceDescriptor& resource, Object object,
                               const WriteOptions& options = {});
  Result<Object> patch(const ResourceDescriptor& resource, std::string_view ns,
                       std::string_view name, PatchType type, const json::value& patch,
                       const PatchOptions& options = {});
  Result<Object> apply(const ResourceDescriptor& resource, const Object& object,
                       const PatchOptions& options = {});
  Result<DeleteResult> remove(const ResourceDescriptor& resource, std::string_view ns,
                              std::string_view name, const DeleteOptions& options = {});
  Result<Object> read_modify_write(const ResourceDescriptor& resource, std::string_view ns,
                                   std::string_view name, Mutation mutate,
                                   ReadModifyWriteOptions options = {});

  Client& client() { return client_; }

 private:
  Client& client_;
};

}  // namespace kueuepp::kube::client

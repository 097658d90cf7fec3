#include "kube/client/blocking_client.hpp"

#include <future>

namespace kueuepp::kube::client {

namespace {

// Runs `start(callback)` and waits for the callback's value.
template <class T, class Start>
Result<T> wait_for(Client& client, std::string_view what, Start start) {
  if (client.in_io_thread()) {
    return unexpected(make_error(ApiError::Kind::Usage, std::string(what),
                                 "a blocking call on the client's io thread would deadlock; "
                                 "use the asynchronous Client API there"));
  }
  auto promise = std::make_shared<std::promise<Result<T>>>();
  auto future = promise->get_future();
  start([promise](Result<T> r) { promise->set_value(std::move(r)); });
  return future.get();
}

}  // namespace

Result<HttpResponse> BlockingClient::raw(HttpRequest request, RawOptions options) {
  std::string what = request.method + " " + request.target;
  return wait_for<HttpResponse>(client_, what, [&](RawCallback done) {
    client_.raw(std::move(request), std::move(done), options);
  });
}

Result<CollectedStream> BlockingClient::raw_stream(HttpRequest request) {
  std::string what = request.method + " " + request.target;
  return wait_for<CollectedStream>(client_, what, [&](auto done) {
    auto collected = std::make_shared<CollectedStream>();
    StreamHandlers handlers;
    handlers.on_head = [collected](int status, const Headers& headers) {
      collected->status = status;
      collected->headers = headers;
    };
    handlers.on_chunk = [collected](std::string_view chunk) { collected->body.append(chunk); };
    handlers.on_end = [collected, done](Result<void> end) {
      if (!end) return done(unexpected(std::move(end).error()));
      done(std::move(*collected));
    };
    client_.raw_stream(std::move(request), std::move(handlers));
  });
}

Result<Object> BlockingClient::get(const ResourceDescriptor& resource, std::string_view ns,
                                   std::string_view name, const GetOptions& options) {
  return wait_for<Object>(client_, "get", [&](ObjectCallback done) {
    client_.get(resource, ns, name, std::move(done), options);
  });
}

Result<ObjectList> BlockingClient::list(const ResourceDescriptor& resource, std::string_view ns,
                                        const ListOptions& options) {
  return wait_for<ObjectList>(client_, "list", [&](ListCallback done) {
    client_.list(resource, ns, options, std::move(done));
  });
}

Result<ObjectList> BlockingClient::list_all(const ResourceDescriptor& resource,
                                            std::string_view ns, const ListOptions& options,
                                            std::int64_t page_size) {
  return wait_for<ObjectList>(client_, "list", [&](ListCallback done) {
    client_.list_all(resource, ns, options, std::move(done), page_size);
  });
}

Result<Object> BlockingClient::create(const ResourceDescriptor& resource, Object object,
                                      const WriteOptions& options) {
  return wait_for<Object>(client_, "create", [&](ObjectCallback done) {
    client_.create(resource, std::move(object), std::move(done), options);
  });
}

Result<Object> BlockingClient::update(const ResourceDescriptor& resource, Object object,
                                      const WriteOptions& options) {
  return wait_for<Object>(client_, "update", [&](ObjectCallback done) {
    client_.update(resource, std::move(object), std::move(done), options);
  });
}

Result<Object> BlockingClient::update_status(const ResourceDescriptor& resource, Object object,
                                             const WriteOptions& options) {
  return wait_for<Object>(client_, "update status", [&](ObjectCallback done) {
    client_.update_status(resource, std::move(object), std::move(done), options);
  });
}

Result<Object> BlockingClient::patch(const ResourceDescriptor& resource, std::string_view ns,
                                     std::string_view name, PatchType type,
                                     const json::value& patch, const PatchOptions& options) {
  return wait_for<Object>(client_, "patch", [&](ObjectCallback done) {
    client_.patch(resource, ns, name, type, patch, std::move(done), options);
  });
}

Result<Object> BlockingClient::apply(const ResourceDescriptor& resource, const Object& object,
                                     const PatchOptions& options) {
  return wait_for<Object>(client_, "apply", [&](ObjectCallback done) {
    client_.apply(resource, object, std::move(done), options);
  });
}

Result<DeleteResult> BlockingClient::remove(const ResourceDescriptor& resource,
                                            std::string_view ns, std::string_view name,
                                            const DeleteOptions& options) {
  return wait_for<DeleteResult>(client_, "delete", [&](DeleteCallback done) {
    client_.remove(resource, ns, name, std::move(done), options);
  });
}

Result<Object> BlockingClient::read_modify_write(const ResourceDescriptor& resource,
                                                 std::string_view ns, std::string_view name,
                                                 Mutation mutate, ReadModifyWriteOptions options) {
  return wait_for<Object>(client_, "update", [&](ObjectCallback done) {
    client_.read_modify_write(resource, ns, name, std::move(mutate), std::move(done),
                              std::move(options));
  });
}

}  // namespace kueuepp::kube::client

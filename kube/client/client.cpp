#include "kube/client/client.hpp"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <string>

#include "kube/client/detail/client_impl.hpp"
#include "kube/client/json_decode.hpp"
#include "kube/client/url.hpp"

namespace kueuepp::kube::client {

std::string_view to_string(Verb verb) {
  switch (verb) {
    case Verb::Get: return "get";
    case Verb::List: return "list";
    case Verb::Watch: return "watch";
    case Verb::Create: return "create";
    case Verb::Update: return "update";
    case Verb::Patch: return "patch";
    case Verb::Delete: return "delete";
    case Verb::Raw: return "raw";
  }
  return "unknown";
}

namespace {

using detail::RequestSpec;

// "update Job ct-s06/j1": what failed and on which object, for error messages.
std::string describe(std::string_view verb, const ResourceDescriptor& r, std::string_view ns,
                     std::string_view name) {
  std::string out = std::string(verb) + " " + std::string(r.kind);
  if (r.namespaced && !ns.empty()) {
    out += " " + std::string(ns) + "/" + (name.empty() ? std::string("*") : std::string(name));
  } else if (!name.empty()) {
    out += " " + std::string(name);
  } else {
    out += " (all)";
  }
  return out;
}

void log_warnings(const HttpResponse& response, const std::string& operation) {
  for (std::string_view warning : find_headers(response.headers, "Warning")) {
    spdlog::warn("{}: server warning: {}", operation, warning);
  }
}

bool is_success(int status) { return status >= 200 && status < 300; }

void fill_type(json::value& object, const ResourceDescriptor& r) {
  json::object* o = object.if_object();
  if (o == nullptr) return;
  if (!o->contains("apiVersion")) (*o)["apiVersion"] = r.api_version();
  if (!o->contains("kind")) (*o)["kind"] = r.kind;
}

// The body of a successful answer as an object, or the decoded error.
Result<json::value> decode_body(Result<HttpResponse>& response, const std::string& operation,
                                DecodeOptions options) {
  if (!response) return unexpected(std::move(response).error());
  log_warnings(*response, operation);
  if (!is_success(response->status)) {
    return unexpected(decode_error_response(*response, operation));
  }
  if (options.unread) return json::value(json::object());
  auto parsed = parse_json_in_place(response->body, options);
  if (!parsed || !parsed->is_object()) {
    return unexpected(make_error(ApiError::Kind::Decode, operation,
                                 "the server answered " + std::to_string(response->status) +
                                     " with a body that is not a JSON object" +
                                     (parsed ? std::string() : ": " + parsed.error().message)));
  }
  return std::move(*parsed);
}

RawCallback object_handler(ObjectCallback done, std::string operation, DecodeOptions options) {
  return [done = std::move(done), operation = std::move(operation), options](Result<HttpResponse> r) {
    auto body = decode_body(r, operation, options);
    if (!body) return done(unexpected(std::move(body).error()));
    done(Object(std::move(*body)));
  };
}

Result<ObjectList> decode_list(json::value body, const ResourceDescriptor& r,
                               const std::string& operation) {
  ObjectList list;
  if (const json::value* metadata = json::find(body, "metadata")) {
    list.resource_version = std::string(json::get_string(*metadata, "resourceVersion"));
    list.continue_token = std::string(json::get_string(*metadata, "continue"));
    if (const json::value* rem = json::find(*metadata, "remainingItemCount"); rem && rem->is_int64()) {
      list.remaining_item_count = rem->get_int64();
    }
  }
  json::value* items = json::find(body, "items");
  if (items == nullptr || items->is_null()) return list;
  if (!items->is_array()) {
    return unexpected(make_error(ApiError::Kind::Decode, operation, "list answer has no items array"));
  }
  list.items.reserve(items->get_array().size());
  for (json::value& item : items->get_array()) {
    if (!item.is_object()) continue;
    fill_type(item, r);
    list.items.emplace_back(std::move(item));
  }
  return list;
}

HttpRequest text_request(std::string method, std::string target, std::optional<std::string> body,
                         std::string_view content_type = "application/json") {
  HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.headers.emplace_back("Accept", "application/json");
  if (body) {
    request.headers.emplace_back("Content-Type", std::string(content_type));
    request.body = std::move(*body);
  }
  return request;
}

HttpRequest json_request(std::string method, std::string target, const json::value* body,
                         std::string_view content_type = "application/json") {
  return text_request(std::move(method), std::move(target),
                      body != nullptr ? std::optional<std::string>(json::dump(*body)) : std::nullopt, content_type);
}

// How a write waits for the rate limiter (WriteOptions::may_wait_for_step, ::background),
// and until when it may still go out (::send_before).
void throttle_as(const WriteOptions& options, RequestSpec& spec) {
  spec.may_wait_for_step = options.may_wait_for_step;
  spec.background = options.background;
  spec.http.send_before = options.send_before;  // checked as the request is written
}

// A patch document with metadata.resourceVersion set to `rv`. The usual patch has no
// metadata: the member is written in front of the serialized document instead of
// copying it.
std::string patch_with_precondition(const json::value& patch, std::string_view rv) {
  const json::object* o = patch.if_object();
  if (o != nullptr && !o->contains("metadata")) {
    std::string rest = json::dump(patch);  // "{...}"
    std::string out = R"({"metadata":{"resourceVersion":)" + json::dump(json::value(rv)) + "}";
    out += rest.size() > 2 ? "," : "";
    out.append(rest, 1);
    return out;
  }
  json::value copy = patch;
  if (json::object* c = copy.if_object()) {
    json::value& meta = (*c)["metadata"];
    if (!meta.is_object()) meta = json::object();
    meta.as_object()["resourceVersion"] = rv;
  }
  return json::dump(copy);
}

std::string object_namespace(const Object& object, const ResourceDescriptor& r,
                             const ClientConfig& config) {
  if (!r.namespaced) return {};
  const std::string_view ns = object.namespace_name();
  return ns.empty() ? config.default_namespace : std::string(ns);
}

// list_all: pages until the continue token is empty; restarts once unpaginated when a
// continue token expires (410).
class ListAllOperation : public std::enable_shared_from_this<ListAllOperation> {
 public:
  ListAllOperation(Client& client, const ResourceDescriptor& r, std::string ns, ListOptions options,
                   ListCallback done)
      : client_(client), resource_(r), ns_(std::move(ns)), options_(std::move(options)),
        done_(std::move(done)) {}

  void next_page() {
    auto self = shared_from_this();
    client_.list(resource_, ns_, options_, [self](Result<ObjectList> page) {
      self->on_page(page);
    });
  }

 private:
  void on_page(Result<ObjectList>& page) {
    if (!page) {
      if (page.error().is_gone() && !options_.continue_token.empty() && !restarted_) {
        spdlog::info("{}: continue token expired; listing again without pagination",
                     page.error().operation);
        restarted_ = true;
        result_ = {};
        options_.continue_token.clear();
        options_.limit = 0;
        return next_page();
      }
      return done_(unexpected(std::move(page).error()));
    }
    if (result_.resource_version.empty()) result_.resource_version = page->resource_version;
    for (Object& o : page->items) result_.items.push_back(std::move(o));
    if (page->continue_token.empty()) return done_(std::move(result_));
    options_.continue_token = std::move(page->continue_token);
    next_page();
  }

  Client& client_;
  ResourceDescriptor resource_;
  std::string ns_;
  ListOptions options_;
  ListCallback done_;
  ObjectList result_;
  bool restarted_ = false;
};

// A watch stream: decodes lines into events; turns an error status into an ApiError.
class WatchState {
 public:
  WatchState(WatchHandlers handlers, std::string operation, DecodeOptions options)
      : handlers_(std::move(handlers)), operation_(std::move(operation)),
        decoder_(std::size_t{64} << 20, options) {}

  void on_head(int status) { status_ = status; }

  void on_chunk(std::string_view chunk) {
    if (failure_) return;
    if (status_ != 200) {
      if (error_body_.size() < 64 * 1024) error_body_.append(chunk);
      return;
    }
    decoder_.feed(chunk, [this](Expected<WatchEvent> event) { deliver(std::move(event)); });
  }

  /// Everything received so far was decoded.
  void on_drained() { end_batch(); }

  void on_end(Result<void> result) {
    if (!failure_ && status_ == 200 && result) {
      decoder_.finish([this](Expected<WatchEvent> event) { deliver(std::move(event)); });
    }
    end_batch();
    auto end = std::move(handlers_.on_end);
    handlers_ = {};
    if (!end) return;
    if (failure_) return end(unexpected(std::move(*failure_)));
    if (status_ != 0 && status_ != 200) {
      HttpResponse response{status_, {}, std::move(error_body_)};
      return end(unexpected(decode_error_response(response, operation_)));
    }
    end(std::move(result));
  }

  void set_handle(CancelHandle handle) {
    std::lock_guard lock(mutex_);
    handle_ = std::move(handle);
    if (cancel_requested_) handle_.cancel();
  }

 private:
  void deliver(Expected<WatchEvent> event) {
    if (failure_) return;
    if (!event) {
      failure_ = make_error(ApiError::Kind::Decode, operation_, event.error().message);
      std::lock_guard lock(mutex_);
      cancel_requested_ = true;
      handle_.cancel();
      return;
    }
    if (handlers_.on_event) {
      handlers_.on_event(std::move(*event));
      ++unbatched_;
    }
  }

  void end_batch() {
    if (unbatched_ == 0) return;
    unbatched_ = 0;
    if (handlers_.on_batch_end) handlers_.on_batch_end();
  }

  WatchHandlers handlers_;
  std::size_t unbatched_ = 0;  ///< events delivered since the last on_batch_end
  std::string operation_;
  WatchStreamDecoder decoder_;
  int status_ = 0;
  std::string error_body_;
  std::optional<ApiError> failure_;
  std::mutex mutex_;
  CancelHandle handle_;
  bool cancel_requested_ = false;
};

// read-modify-write with retries on 409 Conflict.
class ReadModifyWriteOperation : public std::enable_shared_from_this<ReadModifyWriteOperation> {
 public:
  ReadModifyWriteOperation(Client& client, const ResourceDescriptor& r, std::string ns,
                           std::string name, Mutation mutate, ObjectCallback done,
                           ReadModifyWriteOptions options)
      : client_(client), resource_(r), ns_(std::move(ns)), name_(std::move(name)),
        mutate_(std::move(mutate)), done_(std::move(done)), options_(std::move(options)),
        backoff_({std::chrono::milliseconds(10), std::chrono::milliseconds(1000), 2.0, 1.0},
                 client.options().random) {
    options_.write.status_subresource = options_.status;
  }

  void run() {
    ++attempts_;
    auto self = shared_from_this();
    client_.get(resource_, ns_, name_, [self](Result<Object> current) {
      self->on_read(std::move(current));
    });
  }

 private:
  void on_read(Result<Object> current) {
    if (!current) return done_(std::move(current));
    auto changed = mutate_(*current);
    if (!changed) {
      return done_(unexpected(make_error(ApiError::Kind::Usage,
                                         describe("update", resource_, ns_, name_),
                                         "the change was refused: " + changed.error().message)));
    }
    if (!*changed) return done_(std::move(current));
    auto self = shared_from_this();
    client_.update(resource_, std::move(*current), [self](Result<Object> written) {
      self->on_written(std::move(written));
    }, options_.write);
  }

  void on_written(Result<Object> written) {
    if (written || !written.error().is_conflict() || attempts_ >= options_.max_attempts) {
      return done_(std::move(written));
    }
    spdlog::debug("{}: conflict, re-reading (attempt {} of {})", written.error().operation,
                  attempts_ + 1, options_.max_attempts);
    auto self = shared_from_this();
    client_.after(backoff_.next(), [self] { self->run(); });
  }

  Client& client_;
  ResourceDescriptor resource_;
  std::string ns_;
  std::string name_;
  Mutation mutate_;
  ObjectCallback done_;
  ReadModifyWriteOptions options_;
  Backoff backoff_;
  int attempts_ = 0;
};

}  // namespace

Client::Client(std::unique_ptr<detail::ClientImpl> impl) : impl_(std::move(impl)) {}
Client::~Client() { shutdown(); }

Expected<std::unique_ptr<Client>> Client::create(ClientConfig config, ClientOptions options) {
  auto impl = detail::ClientImpl::create(std::move(config), std::move(options));
  if (!impl) return unexpected(impl.error());
  return std::unique_ptr<Client>(new Client(std::move(*impl)));
}

void Client::shutdown() {
  if (impl_) impl_->shutdown();
}

void Client::raw(HttpRequest request, RawCallback done, RawOptions options) {
  RequestSpec spec{std::move(request), Verb::Raw, options.retry, options.timeout};
  impl_->execute(std::move(spec), std::move(done));
}

CancelHandle Client::raw_stream(HttpRequest request, StreamHandlers handlers) {
  return impl_->stream(RequestSpec{std::move(request), Verb::Raw, false, {}}, std::move(handlers));
}

void Client::get(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
                 ObjectCallback done, const GetOptions& options) {
  std::string operation = describe("get", resource, ns, name);
  if (name.empty()) {
    return done(unexpected(make_error(ApiError::Kind::Usage, operation, "a name is required")));
  }
  RequestSpec spec{json_request("GET", get_target(resource, ns, name, options), nullptr), Verb::Get};
  impl_->execute(std::move(spec), object_handler(std::move(done), std::move(operation), decode_options()));
}

void Client::list(const ResourceDescriptor& resource, std::string_view ns,
                  const ListOptions& options, ListCallback done) {
  std::string operation = describe("list", resource, ns, {});
  RequestSpec spec{json_request("GET", list_target(resource, ns, options), nullptr), Verb::List};
  impl_->execute(std::move(spec), [done = std::move(done), operation = std::move(operation), resource,
                                   decode = decode_options()](Result<HttpResponse> r) {
    auto body = decode_body(r, operation, decode);
    if (!body) return done(unexpected(std::move(body).error()));
    done(decode_list(std::move(*body), resource, operation));
  });
}

void Client::list_all(const ResourceDescriptor& resource, std::string_view ns, ListOptions options,
                      ListCallback done, std::int64_t page_size) {
  options.limit = page_size;
  std::make_shared<ListAllOperation>(*this, resource, std::string(ns), std::move(options),
                                     std::move(done))
      ->next_page();
}

void Client::create(const ResourceDescriptor& resource, Object object, ObjectCallback done,
                    const WriteOptions& options) {
  const std::string ns = object_namespace(object, resource, config());
  fill_type(object.json(), resource);
  if (resource.namespaced && object.namespace_name().empty()) object.set_namespace(ns);
  send_create(resource, ns, object.json(), std::move(done), options);
}

void Client::create(const ResourceDescriptor& resource, const json::value& object, ObjectCallback done,
                    const WriteOptions& options) {
  const json::object* o = object.if_object();
  const json::value* meta = o != nullptr ? o->if_contains("metadata") : nullptr;
  const std::string_view ns = meta != nullptr ? json::get_string(*meta, "namespace") : std::string_view();
  const bool complete = o != nullptr && o->contains("apiVersion") && o->contains("kind") &&
                        (!resource.namespaced || !ns.empty());
  if (!complete) return create(resource, Object(object), std::move(done), options);
  send_create(resource, resource.namespaced ? std::string(ns) : std::string(), object, std::move(done), options);
}

void Client::send_create(const ResourceDescriptor& resource, const std::string& ns, const json::value& object,
                         ObjectCallback done, const WriteOptions& options) {
  const json::value* meta = json::find(object, "metadata");
  std::string_view name = meta != nullptr ? json::get_string(*meta, "name") : std::string_view();
  if (name.empty() && meta != nullptr) name = json::get_string(*meta, "generateName");
  std::string operation = describe("create", resource, ns, name);
  WriteOptions write = options;
  write.status_subresource = false;
  RequestSpec spec{json_request("POST", write_target(resource, ns, {}, write, impl_->options().field_manager),
                                &object),
                   Verb::Create};
  throttle_as(options, spec);
  impl_->execute(std::move(spec), object_handler(std::move(done), std::move(operation), decode_options(options)));
}

void Client::create_text(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
                         std::string json_text, ObjectCallback done, const WriteOptions& options) {
  const std::string namespace_name = resource.namespaced ? std::string(ns) : std::string();
  std::string operation = describe("create", resource, namespace_name, name);
  WriteOptions write = options;
  write.status_subresource = false;
  RequestSpec spec{text_request("POST", write_target(resource, namespace_name, {}, write, impl_->options().field_manager),
                                std::move(json_text), "application/json"),
                   Verb::Create};
  throttle_as(options, spec);
  impl_->execute(std::move(spec), object_handler(std::move(done), std::move(operation), decode_options(options)));
}

void Client::update(const ResourceDescriptor& resource, Object object, ObjectCallback done,
                    const WriteOptions& options) {
  const std::string ns = object_namespace(object, resource, config());
  const std::string name(object.name());
  std::string operation =
      describe(options.status_subresource ? "update status of" : "update", resource, ns, name);
  if (name.empty()) {
    return done(unexpected(make_error(ApiError::Kind::Usage, operation,
                                      "the object has no metadata.name")));
  }
  fill_type(object.json(), resource);
  RequestSpec spec{json_request("PUT", write_target(resource, ns, name, options, impl_->options().field_manager),
                                &object.json()),
                   Verb::Update};
  throttle_as(options, spec);
  impl_->execute(std::move(spec), object_handler(std::move(done), std::move(operation), decode_options(options)));
}

void Client::update_status(const ResourceDescriptor& resource, Object object, ObjectCallback done,
                           WriteOptions options) {
  options.status_subresource = true;
  update(resource, std::move(object), std::move(done), options);
}

void Client::patch(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
                   PatchType type, const json::value& patch, ObjectCallback done,
                   const PatchOptions& options) {
  std::string operation = describe(options.status_subresource ? "patch status of" : "patch",
                                   resource, ns, name);
  if (name.empty()) {
    return done(unexpected(make_error(ApiError::Kind::Usage, operation, "a name is required")));
  }
  const bool force = type == PatchType::Apply && options.force;
  const std::string& rv = options.precondition_resource_version;
  if (!rv.empty() && type != PatchType::Merge && type != PatchType::StrategicMerge) {
    return done(unexpected(make_error(ApiError::Kind::Usage, operation,
                                      "a resourceVersion precondition needs a merge or strategic merge patch")));
  }
  RequestSpec spec{text_request("PATCH",
                                write_target(resource, ns, name, options,
                                             impl_->options().field_manager, force),
                                rv.empty() ? json::dump(patch) : patch_with_precondition(patch, rv),
                                patch_content_type(type)),
                   Verb::Patch};
  throttle_as(options, spec);
  impl_->execute(std::move(spec), object_handler(std::move(done), std::move(operation), decode_options(options)));
}

void Client::apply(const ResourceDescriptor& resource, const Object& object, ObjectCallback done,
                   const PatchOptions& options) {
  const std::string ns = object_namespace(object, resource, config());
  json::value body = object.json();
  fill_type(body, resource);
  patch(resource, ns, object.name(), PatchType::Apply, body, std::move(done), options);
}

void Client::remove(const ResourceDescriptor& resource, std::string_view ns, std::string_view name,
                    DeleteCallback done, const DeleteOptions& options) {
  std::string operation = describe("delete", resource, ns, name);
  if (name.empty()) {
    return done(unexpected(make_error(ApiError::Kind::Usage, operation, "a name is required")));
  }
  const json::value body = options.to_body();
  RequestSpec spec{json_request("DELETE", delete_target(resource, ns, name, options),
                                body.is_null() ? nullptr : &body),
                   Verb::Delete};
  impl_->execute(std::move(spec), [done = std::move(done), operation = std::move(operation),
                                   decode = decode_options()](Result<HttpResponse> r) {
    auto answer = decode_body(r, operation, decode);
    if (!answer) return done(unexpected(std::move(answer).error()));
    DeleteResult result;
    result.finalizing = json::get_string(*answer, "kind") != "Status";
    result.object = Object(std::move(*answer));
    done(std::move(result));
  });
}

CancelHandle Client::watch(const ResourceDescriptor& resource, std::string_view ns,
                           const WatchOptions& options, WatchHandlers handlers) {
  std::string operation = describe("watch", resource, ns, {});
  DecodeOptions decode = decode_options();
  decode.pack_object_member = options.packed_objects;
  auto state = std::make_shared<WatchState>(std::move(handlers), operation, decode);
  StreamHandlers stream;
  stream.on_head = [state](int status, const Headers&) { state->on_head(status); };
  stream.on_chunk = [state](std::string_view chunk) { state->on_chunk(chunk); };
  stream.on_end = [state](Result<void> result) { state->on_end(std::move(result)); };
  stream.on_drained = [state] { state->on_drained(); };
  CancelHandle handle = impl_->stream(
      RequestSpec{json_request("GET", watch_target(resource, ns, options), nullptr), Verb::Watch, false, {}},
      std::move(stream));
  state->set_handle(handle);
  return handle;
}

void Client::read_modify_write(const ResourceDescriptor& resource, std::string_view ns,
                               std::string_view name, Mutation mutate, ObjectCallback done,
                               ReadModifyWriteOptions options) {
  std::make_shared<ReadModifyWriteOperation>(*this, resource, std::string(ns), std::string(name),
                                             std::move(mutate), std::move(done), std::move(options))
      ->run();
}

CancelHandle Client::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  return impl_->after(delay, std::move(fn));
}
void Client::post(std::function<void()> fn) { impl_->post(std::move(fn)); }
bool Client::in_io_thread() const { return impl_->in_io_thread(); }
ClientStats Client::stats() const { return impl_->stats(); }
const ClientConfig& Client::config() const { return impl_->config(); }
const ClientOptions& Client::options() const { return impl_->options(); }
DecodeOptions Client::decode_options() const { return {impl_->options().strip_managed_fields, false}; }
DecodeOptions Client::decode_options(const WriteOptions& write) const {
  DecodeOptions options{impl_->options().strip_managed_fields, write.metadata_only_answer};
  options.unread = write.answer_unread;
  return options;
}

}  // namespace kueuepp::kube::client

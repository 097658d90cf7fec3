#include "kube/leader/lease_client.hpp"

#include <utility>

#include "kube/client/json_decode.hpp"
#include "kube/client/url.hpp"

namespace kueuepp::kube::leader {

namespace {

using client::ApiError;
using client::HttpResponse;
using client::Object;
using client::Result;

const client::ResourceDescriptor& lease_resource() { return client::resources::kLease; }

bool is_success(int status) { return status >= 200 && status < 300; }

/// A 2xx answer's body as a JSON object, or the decoded error.
Result<json::value> decode(Result<HttpResponse> response, const std::string& operation) {
  if (!response) return unexpected(std::move(response).error());
  if (!is_success(response->status)) return unexpected(client::decode_error_response(*response, operation));
  auto parsed = client::parse_json_in_place(response->body);
  if (!parsed || !parsed->is_object()) {
    return unexpected(client::make_error(ApiError::Kind::Decode, operation,
                                         "the server answered " + std::to_string(response->status) +
                                             " with a body that is not a JSON object"));
  }
  return std::move(*parsed);
}

std::string describe(std::string_view verb, std::string_view ns, std::string_view name) {
  return std::string(verb) + " Lease " + std::string(ns) + "/" + (name.empty() ? std::string("*") : std::string(name));
}

}  // namespace

LeaseClient::LeaseClient(client::Client& client, std::string ns, std::chrono::milliseconds timeout)
    : client_(client), ns_(std::move(ns)), timeout_(timeout) {}

void LeaseClient::send(std::string method, std::string target, const json::value* body, std::string operation,
                       std::function<void(Result<json::value>)> done) const {
  client::HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.headers.emplace_back("Accept", "application/json");
  if (body != nullptr) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = json::dump(*body);
  }
  client::RawOptions options;
  options.retry = false;
  options.timeout = timeout_;
  client_.raw(std::move(request),
              [done = std::move(done), operation = std::move(operation)](Result<HttpResponse> response) {
                done(decode(std::move(response), operation));
              },
              options);
}

void LeaseClient::get(std::string_view name, ObjectDone done) {
  send("GET", client::get_target(lease_resource(), ns_, name, {}), nullptr, describe("get", ns_, name),
       [done = std::move(done)](Result<json::value> body) {
         if (!body) return done(unexpected(std::move(body).error()));
         done(Object(std::move(*body)));
       });
}

void LeaseClient::list(std::string_view label_selector, ListDone done) {
  client::ListOptions options;
  options.label_selector = std::string(label_selector);
  send("GET", client::list_target(lease_resource(), ns_, options), nullptr, describe("list", ns_, {}),
       [done = std::move(done)](Result<json::value> body) {
         if (!body) return done(unexpected(std::move(body).error()));
         client::ObjectList list;
         if (const json::value* meta = json::find(*body, "metadata")) {
           list.resource_version = std::string(json::get_string(*meta, "resourceVersion"));
         }
         if (json::value* items = json::find(*body, "items"); items != nullptr && items->is_array()) {
           for (json::value& item : items->get_array()) {
             if (item.is_object()) list.items.emplace_back(std::move(item));
           }
         }
         done(std::move(list));
       });
}

void LeaseClient::create(Object lease, ObjectDone done) {
  lease.set_type(lease_resource().api_version(), lease_resource().kind);
  lease.set_namespace(ns_);
  std::string operation = describe("create", ns_, lease.name());
  send("POST", client::write_target(lease_resource(), ns_, {}, {}, client_.options().field_manager),
       &lease.json(), std::move(operation), [done = std::move(done)](Result<json::value> body) {
         if (!body) return done(unexpected(std::move(body).error()));
         done(Object(std::move(*body)));
       });
}

void LeaseClient::update(Object lease, ObjectDone done) {
  lease.set_type(lease_resource().api_version(), lease_resource().kind);
  lease.set_namespace(ns_);
  std::string name(lease.name());
  send("PUT", client::write_target(lease_resource(), ns_, name, {}, client_.options().field_manager),
       &lease.json(), describe("update", ns_, name), [done = std::move(done)](Result<json::value> body) {
         if (!body) return done(unexpected(std::move(body).error()));
         done(Object(std::move(*body)));
       });
}

void LeaseClient::remove(std::string_view name, DeleteDone done, std::string_view precondition) {
  client::DeleteOptions options;
  if (!precondition.empty()) options.precondition_resource_version = std::string(precondition);
  const json::value body = options.to_body();
  send("DELETE", client::delete_target(lease_resource(), ns_, name, options), body.is_null() ? nullptr : &body,
       describe("delete", ns_, name), [done = std::move(done)](Result<json::value> answer) {
         if (!answer && !answer.error().is_not_found()) return done(unexpected(std::move(answer).error()));
         done({});
       });
}

}  // namespace kueuepp::kube::leader

#include "actors/write_transport.hpp"

#include <memory>

#include "actors/watched_kinds.hpp"
#include "kube/client/client.hpp"

namespace kueuepp::actors {

using messages::WriteOutcome;
using messages::WriteRequest;
using messages::WriteVerb;

namespace {

/// `unread`: the caller reads nothing of the answer (WritePolicy::Answer::Unread).
WriteOutcome outcome_of(kube::client::Result<kube::client::Object> result, bool unread) {
  WriteOutcome out;
  if (result) {
    out.ok = true;
    out.http_status = 200;
    if (!unread) out.object = std::make_shared<const kube::client::Object>(std::move(*result));
    return out;
  }
  const auto& e = result.error();
  out.http_status = e.http_status;
  out.reason = e.reason;
  out.message = e.message;
  out.maybe_landed = e.may_have_been_applied();
  return out;
}

/// What a create, update or patch asks of the client whatever its verb. A write that is
/// not urgent may wait for the client's next throttle step (ClientOptions::throttle_granularity).
void fill_write_options(kube::client::WriteOptions& options, const WriteRequest& req, const SendOptions& send,
                        const std::string& field_manager) {
  const messages::WritePolicy policy = req.policy();
  options.field_manager = field_manager;
  options.metadata_only_answer = policy.answer == messages::WritePolicy::Answer::MetadataOnly;
  options.answer_unread = policy.answer == messages::WritePolicy::Answer::Unread;
  options.may_wait_for_step = !policy.urgent;
  options.background = send.background;
  options.send_before = send.send_before;
}

}  // namespace

WriteTransport client_write_transport(kube::client::Client& client, std::string field_manager) {
  return [&client, field_manager](const WriteRequest& req, const SendOptions& send,
                                  std::function<void(WriteOutcome)> done) {
    const auto& resource = resource_of(req.kind);
    const bool unread = req.policy().answer == messages::WritePolicy::Answer::Unread;
    auto on_object = [done, unread](kube::client::Result<kube::client::Object> r) {
      done(outcome_of(std::move(r), unread));
    };
    static const json::value kEmpty = json::object();
    const json::value& body = req.body ? *req.body : kEmpty;
    switch (req.verb) {
      case WriteVerb::MergePatch:
      case WriteVerb::MergePatchStatus: {
        kube::client::PatchOptions options;
        fill_write_options(options, req, send, field_manager);
        options.status_subresource = req.verb == WriteVerb::MergePatchStatus;
        // Refused (409) by the API server when the object changed since that version:
        // the write only lands on the state it was decided on.
        options.precondition_resource_version = req.precondition_rv;
        client.patch(resource, req.ns, req.name, kube::client::PatchType::Merge, body, on_object, options);
        return;
      }
      case WriteVerb::Create: {
        kube::client::WriteOptions options;
        fill_write_options(options, req, send, field_manager);
        if (req.body_text) {
          client.create_text(resource, req.ns, req.name, *req.body_text, on_object, options);
        } else {
          client.create(resource, body, on_object, options);
        }
        return;
      }
      case WriteVerb::Update: {
        kube::client::WriteOptions options;
        fill_write_options(options, req, send, field_manager);
        client.update(resource, kube::client::Object(body), on_object, options);
        return;
      }
      case WriteVerb::Get: {
        client.get(resource, req.ns, req.name, [done](kube::client::Result<kube::client::Object> r) {
          WriteOutcome out = outcome_of(std::move(r), false);
          out.maybe_landed = false;  // a read changes nothing
          done(std::move(out));
        });
        return;
      }
      case WriteVerb::Delete: {
        kube::client::DeleteOptions options;
        if (!req.precondition_rv.empty()) options.precondition_resource_version = req.precondition_rv;
        options.propagation_policy = "Background";
        client.remove(resource, req.ns, req.name,
                      [done](kube::client::Result<kube::client::DeleteResult> r) {
                        WriteOutcome out;
                        if (r) {
                          out.ok = true;
                          out.http_status = 200;
                        } else {
                          out.http_status = r.error().http_status;
                          out.reason = r.error().reason;
                          out.message = r.error().message;
                          // Already gone is what a delete wants.
                          out.ok = r.error().is_not_found();
                          out.maybe_landed = !out.ok && r.error().may_have_been_applied();
                        }
                        done(std::move(out));
                      },
                      options);
        return;
      }
    }
  };
}

}  // namespace kueuepp::actors

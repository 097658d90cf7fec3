#pragma once

// An in-memory API server for actor protocol tests: it keeps objects by kind, namespace
// and name, numbers their versions as kube-apiserver does (one counter for every write),
// and applies the writer's requests to them: merge patches (of the status alone on the
// status subresource), conditional on metadata.resourceVersion (409 when stale), creates
// (409 AlreadyExists), deletes and reads. Faults are scripted per request: refuse it with
// an answer, or apply it and lose the answer (a reset after sending). The watch is the
// test's to play: `watch_event` gives the object as stored, to send to the actor.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "actors/write_transport.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::actors::testing {

class FakeApi {
 public:
  using Match = std::function<bool(const messages::WriteRequest&)>;

  struct Fault {
    Match match;
    /// Refuse with this answer (nothing applied); when empty, apply and lose the answer.
    std::optional<messages::WriteOutcome> refuse;
  };

  /// Stores `object` as is, at the next version.
  void put(messages::ObjectKind kind, json::value object) {
    kube::client::Object o(std::move(object));
    o.set_resource_version(std::to_string(++rv_));
    objects_[key(kind, std::string(o.namespace_name()), std::string(o.name()))] = o.json();
  }

  /// Changes a stored object as another writer would (the tree, a user): merge patch
  /// of the whole object, at the next version.
  void change(messages::ObjectKind kind, const std::string& ns, const std::string& name, const json::value& patch) {
    auto& doc = objects_.at(key(kind, ns, name));
    auto applied = kube::patch::merge_patch_into(doc, patch);
    (void)applied;
    kube::client::Object o(doc);
    o.set_resource_version(std::to_string(++rv_));
    doc = o.json();
  }

  /// The stored object, or null.
  messages::ObjectPtr get(messages::ObjectKind kind, const std::string& ns, const std::string& name) const {
    auto it = objects_.find(key(kind, ns, name));
    if (it == objects_.end()) return nullptr;
    return std::make_shared<const kube::client::Object>(it->second);
  }

  /// What a watch delivers for the stored object now.
  messages::ObjectChanged watch_event(messages::ObjectKind kind, const std::string& ns, const std::string& name) const {
    return messages::ObjectChanged{kind, false, get(kind, ns, name)};
  }

  /// Every stored object of `kind`.
  std::vector<messages::ObjectPtr> list(messages::ObjectKind kind) const {
    std::vector<messages::ObjectPtr> out;
    for (const auto& [k, doc] : objects_) {
      if (std::get<0>(k) == kind) out.push_back(std::make_shared<const kube::client::Object>(doc));
    }
    return out;
  }

  void add_fault(Fault fault) { faults_.push_back(std::move(fault)); }

  /// Every request, in the order they came, with whether it was applied.
  std::vector<std::pair<messages::WriteRequest, bool>> requests;

  std::size_t count(const Match& match, bool applied_only = true) const {
    std::size_t n = 0;
    for (const auto& [req, applied] : requests) n += (match(req) && (applied || !applied_only)) ? 1 : 0;
    return n;
  }

  WriteTransport transport() {
    return [this](const messages::WriteRequest& req, const SendOptions&, std::function<void(messages::WriteOutcome)> done) {
      std::optional<Fault> fault;
      for (auto it = faults_.begin(); it != faults_.end(); ++it) {
        if (it->match(req)) {
          fault = std::move(*it);
          faults_.erase(it);
          break;
        }
      }
      if (fault && fault->refuse) {
        requests.emplace_back(req, false);
        done(*fault->refuse);
        return;
      }
      messages::WriteOutcome outcome = carry_out(req);
      requests.emplace_back(req, outcome.ok && req.verb != messages::WriteVerb::Get);
      if (fault) {
        messages::WriteOutcome lost;
        lost.maybe_landed = true;
        lost.message = "reading the response failed: Connection reset by peer";
        done(std::move(lost));
        return;
      }
      done(std::move(outcome));
    };
  }

 private:
  using Key = std::tuple<messages::ObjectKind, std::string, std::string>;
  static Key key(messages::ObjectKind kind, const std::string& ns, const std::string& name) { return {kind, ns, name}; }

  static messages::WriteOutcome refused(int status, std::string reason, std::string message) {
    messages::WriteOutcome o;
    o.http_status = status;
    o.reason = std::move(reason);
    o.message = std::move(message);
    return o;
  }

  messages::WriteOutcome answer(const json::value& doc) const {
    messages::WriteOutcome o;
    o.ok = true;
    o.http_status = 200;
    o.object = std::make_shared<const kube::client::Object>(doc);
    return o;
  }

  messages::WriteOutcome carry_out(const messages::WriteRequest& req) {
    using messages::WriteVerb;
    const Key k = key(req.kind, req.ns, req.name);
    auto it = objects_.find(k);
    switch (req.verb) {
      case WriteVerb::Get:
        if (it == objects_.end()) return refused(404, "NotFound", req.name + " not found");
        return answer(it->second);
      case WriteVerb::Create: {
        if (it != objects_.end()) return refused(409, "AlreadyExists", req.name + " already exists");
        json::value body = json::object{};
        if (req.body) {
          body = *req.body;
        } else if (req.body_text) {
          if (auto parsed = json::parse(*req.body_text)) body = std::move(*parsed);
        }
        kube::client::Object o(std::move(body));
        o.set_resource_version(std::to_string(++rv_));
        o.json().as_object()["metadata"].as_object()["uid"] = "uid-" + req.name;
        objects_[key(req.kind, std::string(o.namespace_name()), std::string(o.name()))] = o.json();
        return answer(o.json());
      }
      case WriteVerb::Delete:
        if (it == objects_.end()) return refused(404, "NotFound", req.name + " not found");
        objects_.erase(it);
        {
          messages::WriteOutcome o;
          o.ok = true;
          o.http_status = 200;
          return o;
        }
      case WriteVerb::MergePatch:
      case WriteVerb::MergePatchStatus:
      case WriteVerb::Update: {
        if (it == objects_.end()) return refused(404, "NotFound", req.name + " not found");
        kube::client::Object current(it->second);
        if (!req.precondition_rv.empty() && req.precondition_rv != current.resource_version()) {
          return refused(409, "Conflict", "the object has been modified; please apply your changes to the latest version");
        }
        json::value patch = req.body ? *req.body : json::value(json::object{});
        if (req.verb == WriteVerb::MergePatchStatus) {
          const json::value* status = patch.is_object() ? patch.as_object().if_contains("status") : nullptr;
          patch = json::object{{"status", status ? *status : json::value(json::object{})}};
        } else if (auto* meta = patch.as_object().if_contains("metadata"); meta && meta->is_object()) {
          meta->as_object().erase("resourceVersion");
        }
        json::value doc = it->second;
        auto applied = kube::patch::merge_patch_into(doc, patch);
        if (!applied) return refused(422, "Invalid", "bad patch");
        kube::client::Object o(std::move(doc));
        o.set_resource_version(std::to_string(++rv_));
        it->second = o.json();
        return answer(it->second);
      }
    }
    return refused(400, "BadRequest", "unknown verb");
  }

  std::map<Key, json::value> objects_;
  std::deque<Fault> faults_;
  std::uint64_t rv_ = 100;
};

}  // namespace kueuepp::actors::testing

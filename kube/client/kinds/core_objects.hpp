#pragma once

// Core kinds the controller touches: Namespace (selectors), Pod (scheduling gates),
// Event (core/v1, what `kubectl describe` shows) and scheduling.k8s.io PriorityClass.

#include <optional>

#include "kube/client/micro_time.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

class Namespace : public Object {
 public:
  using Object::Object;
  Namespace() = default;
  explicit Namespace(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kNamespace; }

  /// Active or Terminating.
  std::string_view phase() const { return string_at({"status", "phase"}); }
};

class Pod : public Object {
 public:
  using Object::Object;
  Pod() = default;
  explicit Pod(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kPod; }

  std::string_view node_name() const { return string_at({"spec", "nodeName"}); }
  std::string_view phase() const { return string_at({"status", "phase"}); }
  std::vector<std::string> scheduling_gates() const;
  /// Removes the gate named `name`; true when it was there.
  bool remove_scheduling_gate(std::string_view name);
};

class PriorityClass : public Object {
 public:
  using Object::Object;
  PriorityClass() = default;
  explicit PriorityClass(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kPriorityClass; }

  std::int64_t value() const { return int_at({"value"}).value_or(0); }
  bool global_default() const { return bool_at({"globalDefault"}).value_or(false); }
  /// PreemptLowerPriority (default) or Never.
  std::string_view preemption_policy() const;
};

/// What an Event is about and what it says.
struct EventInit {
  std::string namespace_name;  ///< the Event's namespace (the object's; "default" for cluster-scoped)
  std::string involved_api_version;
  std::string involved_kind;
  std::string involved_name;
  std::string involved_namespace;
  std::string involved_uid;
  std::string type = "Normal";  ///< Normal or Warning
  std::string reason;
  std::string message;
  std::string action;
  std::string reporting_controller = "kueue.x-k8s.io/kueuepp";
  std::string reporting_instance;
  TimePoint now;
};

class Event : public Object {
 public:
  using Object::Object;
  Event() = default;
  explicit Event(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kEvent; }

  /// A core/v1 Event named `<involved name>.<unique suffix>` with count 1.
  static Event make(const EventInit& init, std::string_view unique_suffix);

  std::string_view reason() const { return string_at({"reason"}); }
  std::string_view message() const { return string_at({"message"}); }
  std::string_view type() const { return string_at({"type"}); }
  std::int64_t count() const { return int_at({"count"}).value_or(0); }
  /// Aggregation: count + 1 and lastTimestamp = now.
  void record_repeat(TimePoint now);
};

}  // namespace kueuepp::kube::client

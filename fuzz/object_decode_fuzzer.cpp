// Fuzzes the decoding of Kubernetes objects from JSON (simdjson → Boost.JSON, as watch
// events are decoded) and every typed accessor and mutator on whatever shape arrives:
// accessors must tolerate wrong types, setters must leave a serializable document,
// and unknown fields must survive edits.

#include <cstdint>
#include <string>
#include <vector>

#include "kube/client/api_error.hpp"
#include "kube/client/kinds/core_objects.hpp"
#include "kube/client/kinds/job.hpp"
#include "kube/client/kinds/kueue_queues.hpp"
#include "kube/client/kinds/lease.hpp"
#include "kube/client/kinds/workload.hpp"
#include "kube/client/json_decode.hpp"
#include "kube/client/micro_time.hpp"
#include "kube/client/watch_event.hpp"

namespace {

using namespace kueuepp::kube::client;
namespace json = kueuepp::json;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// Serializing an edited document and decoding it again with the client's decoder must
// work and round-trip exactly (Boost.JSON's 1.81 parser does not round doubles
// correctly, which is one reason the client decodes server input with simdjson).
void check_round_trip(const json::value& v) {
  const std::string text = json::dump(v);
  std::string copy = text;
  auto again = parse_json_in_place(copy);
  check(again.has_value());
  check(json::dump(*again) == text);
}

void read_everything(const Object& o) {
  (void)o.api_version();
  (void)o.kind();
  (void)o.name();
  (void)o.namespace_name();
  (void)o.uid();
  (void)o.resource_version();
  (void)o.generation();
  (void)o.deletion_timestamp();
  (void)o.key();
  (void)o.labels();
  (void)o.annotations();
  (void)o.owner_references();
  (void)o.controller_reference();
  (void)o.finalizers();
  (void)o.conditions();
  (void)o.condition("Admitted");
  (void)parse_time(o.creation_timestamp());
}

void exercise_kinds(const json::value& doc, bool round_trip) {
  Job job{doc};
  (void)job.suspended();
  (void)job.parallelism();
  (void)job.completions();
  (void)job.node_selector();
  (void)job.tolerations();
  (void)job.queue_name();
  (void)job.finished();
  job.set_suspend(!job.suspended());
  job.set_tolerations(job.tolerations());
  job.set_node_selector(job.node_selector());
  if (round_trip) check_round_trip(job.json());

  Workload wl{doc};
  (void)wl.queue_name();
  (void)wl.priority();
  (void)wl.priority_class_ref();
  (void)wl.pod_sets();
  auto admission = wl.admission();
  if (admission) {
    wl.set_admission(admission);
    check(wl.admission() == admission);  // typed fields survive a write-back
  }
  wl.set_admission(std::nullopt);
  check(!wl.admission());
  if (round_trip) check_round_trip(wl.json());

  Lease lease{doc};
  (void)lease.holder_identity();
  (void)lease.lease_duration_seconds();
  if (auto t = lease.renew_time()) {
    lease.set_renew_time(*t);
    check(parse_time(format_micro_time(*t)).has_value());
  }
  (void)lease.acquire_time();

  ClusterQueue cq{doc};
  (void)cq.cohort_name();
  (void)cq.stop_policy();
  (void)cq.queueing_strategy();
  ResourceFlavor rf{doc};
  (void)rf.node_taints();
  (void)rf.tolerations();
  (void)rf.node_labels();
  LocalQueue lq{doc};
  (void)lq.cluster_queue();
  Cohort cohort{doc};
  (void)cohort.parent_name();
  WorkloadPriorityClass wpc{doc};
  (void)wpc.value();
  PriorityClass pc{doc};
  (void)pc.preemption_policy();
  Pod pod{doc};
  for (const std::string& gate : pod.scheduling_gates()) pod.remove_scheduling_gate(gate);
  check(pod.scheduling_gates().empty());
  Namespace ns{doc};
  (void)ns.phase();
  Event event{doc};
  (void)event.count();
}

void exercise_edits(const json::value& doc, bool round_trip) {
  Object o{doc};
  read_everything(o);
  const std::string before = json::dump(o.json());
  o.set_label("fuzz", "x");
  check(o.label("fuzz") == std::optional<std::string_view>("x"));
  o.remove_label("fuzz");
  o.add_finalizer("fuzz/f");
  check(o.has_finalizer("fuzz/f"));
  o.remove_finalizer("fuzz/f");
  check(!o.has_finalizer("fuzz/f"));
  const bool changed = o.set_condition({"Fuzz", "True", "R", "m", "", 1}, "2024-01-01T00:00:00Z");
  check(o.condition_true("Fuzz"));
  check(!o.set_condition({"Fuzz", "True", "R", "m", "", 1}, "2024-01-02T00:00:00Z"));  // idempotent
  (void)changed;
  o.set_owner_reference({"v1", "K", "n", "uid-fuzz", true, false});
  check(o.controller_reference().has_value());
  if (round_trip) check_round_trip(o.json());
  (void)before;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // simdjson needs padding after the input.
  std::vector<char> padded(size + kJsonPadding, '\0');
  std::copy(text.begin(), text.end(), padded.begin());
  auto doc = parse_json_padded(std::string_view(padded.data(), size));
  auto boost_doc = json::parse(text);
  if (doc) check_round_trip(*doc);

  // The same text as a failed response and as an in-stream watch error.
  (void)decode_error_response(HttpResponse{500, {{"Retry-After", std::string(text.substr(0, 8))}}, std::string(text)}, "fuzz").describe();
  if (doc) (void)decode_status_object(*doc, "fuzz").describe();

  // The client's decoder (simdjson) must produce documents that serialize back to
  // valid JSON. Boost.JSON's own parser (kube/json) is exercised for crashes only: it
  // turns 1e400 into an infinity that it then writes as the invalid `Infinity`.
  const struct {
    const json::value* value;
    bool round_trip;
  } inputs[] = {{doc ? &*doc : nullptr, true}, {boost_doc ? &*boost_doc : nullptr, false}};
  for (const auto& [value, round_trip] : inputs) {
    if (value == nullptr || !Object::from_json(*value)) continue;
    exercise_edits(*value, round_trip);
    exercise_kinds(*value, round_trip);
    if (!round_trip) continue;
    // Wrapped as a watch event, the object must decode back identically.
    const std::string line = R"({"type":"MODIFIED","object":)" + json::dump(*value) + "}";
    WatchEventDecoder decoder;
    auto event = decoder.decode(line);
    check(event.has_value());
    check(json::dump(event->object) == json::dump(*value));
  }
  (void)parse_time(text);
  return 0;
}

#include "cmd/perf/range_spec.hpp"

#include <fmt/format.h>

#include "cmd/perf/config_fields.hpp"
#include "cmd/perf/generator_config.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd::perf {

Expected<RangeSpec> parse_range_spec(std::string_view yaml, std::string_view source) {
  auto doc = json::parse_yaml(yaml);
  if (!doc) return fail(std::string(source) + ": " + doc.error().message);
  auto wrap = [&](const Error& e) { return fail(std::string(source) + ": " + e.message); };
  auto top = read_object(*doc, "");
  if (!top) return wrap(top.error());
  if (auto st = check_fields(**top, "", {"cmd", "clusterQueueClassesMinUsage", "wlClassesMaxAvgTimeToAdmissionMs"});
      !st) {
    return wrap(st.error());
  }
  RangeSpec spec;
  if (const json::value* cmd = member(**top, "cmd")) {
    auto o = read_object(*cmd, "cmd");
    if (!o) return wrap(o.error());
    if (auto st = check_fields(**o, "cmd", {"maxWallMs", "mCPU", "maxrss"}); !st) return wrap(st.error());
    struct Field {
      std::string_view key;
      std::optional<std::int64_t>* out;
    };
    for (Field f : {Field{"maxWallMs", &spec.max_wall_ms}, Field{"mCPU", &spec.max_mcpu},
                    Field{"maxrss", &spec.max_rss_kib}}) {
      if (const json::value* v = member(**o, f.key)) {
        auto n = read_integer(*v, field_path("cmd", f.key));
        if (!n) return wrap(n.error());
        if (*n < 0) return wrap(Error{field_path("cmd", f.key) + ": must not be negative"});
        *f.out = *n;
      }
    }
  }
  if (const json::value* usage = member(**top, "clusterQueueClassesMinUsage")) {
    auto o = read_object(*usage, "clusterQueueClassesMinUsage");
    if (!o) return wrap(o.error());
    for (const auto& kv : **o) {
      std::string path = field_path("clusterQueueClassesMinUsage", kv.key());
      auto n = read_number(kv.value(), path);
      if (!n) return wrap(n.error());
      spec.cluster_queue_classes_min_usage[std::string(kv.key())] = *n;
    }
  }
  if (const json::value* times = member(**top, "wlClassesMaxAvgTimeToAdmissionMs")) {
    auto o = read_object(*times, "wlClassesMaxAvgTimeToAdmissionMs");
    if (!o) return wrap(o.error());
    for (const auto& kv : **o) {
      std::string path = field_path("wlClassesMaxAvgTimeToAdmissionMs", kv.key());
      auto n = read_integer(kv.value(), path);
      if (!n) return wrap(n.error());
      spec.workload_classes_max_avg_time_to_admission_ms[std::string(kv.key())] = *n;
    }
  }
  return spec;
}

Expected<RangeSpec> load_range_spec(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return fail(text.error().message);
  return parse_range_spec(*text, path);
}

std::vector<ThresholdCheck> check_range_spec(const RangeSpec& spec, const MeasuredRun& run) {
  std::vector<ThresholdCheck> out;
  if (spec.max_wall_ms) {
    out.push_back({"cmd.maxWallMs", fmt::format("{} ms", run.wall_ms), fmt::format("<= {} ms", *spec.max_wall_ms),
                   run.wall_ms <= *spec.max_wall_ms});
  }
  if (spec.max_mcpu) {
    if (run.controller_mcpu) {
      out.push_back({"cmd.mCPU", fmt::format("{} mCPU", *run.controller_mcpu), fmt::format("<= {} mCPU", *spec.max_mcpu),
                     *run.controller_mcpu <= *spec.max_mcpu});
    } else {
      out.push_back({"cmd.mCPU", "not measured (external controller)", fmt::format("<= {} mCPU", *spec.max_mcpu), false});
    }
  }
  if (spec.max_rss_kib) {
    if (run.controller_max_rss_kib) {
      out.push_back({"cmd.maxrss", fmt::format("{} KiB", *run.controller_max_rss_kib),
                     fmt::format("<= {} KiB", *spec.max_rss_kib), *run.controller_max_rss_kib <= *spec.max_rss_kib});
    } else {
      out.push_back({"cmd.maxrss", "not measured (external controller)", fmt::format("<= {} KiB", *spec.max_rss_kib), false});
    }
  }
  for (const auto& [cls, c] : run.summary.cluster_queue_classes) {
    std::string name = "clusterQueueClassesMinUsage." + cls;
    auto it = spec.cluster_queue_classes_min_usage.find(cls);
    if (it == spec.cluster_queue_classes_min_usage.end()) {
      out.push_back({name, fmt::format("{:.2f} %", c.usage_percent()), "no threshold for this class", false});
      continue;
    }
    out.push_back({name, fmt::format("{:.2f} %", c.usage_percent()), fmt::format(">= {:g} %", it->second),
                   c.usage_percent() >= it->second});
  }
  for (const auto& [cls, min] : spec.cluster_queue_classes_min_usage) {
    if (!run.summary.cluster_queue_classes.contains(cls)) {
      out.push_back({"clusterQueueClassesMinUsage." + cls, "class not recorded", fmt::format(">= {:g} %", min), false});
    }
  }
  for (const auto& [cls, w] : run.summary.workload_classes) {
    std::string name = "wlClassesMaxAvgTimeToAdmissionMs." + cls;
    auto it = spec.workload_classes_max_avg_time_to_admission_ms.find(cls);
    if (it == spec.workload_classes_max_avg_time_to_admission_ms.end()) {
      out.push_back({name, fmt::format("{} ms", w.average_time_to_admission_ms), "no threshold for this class", false});
      continue;
    }
    out.push_back({name, fmt::format("{} ms", w.average_time_to_admission_ms), fmt::format("<= {} ms", it->second),
                   w.average_time_to_admission_ms <= it->second});
  }
  for (const auto& [cls, max] : spec.workload_classes_max_avg_time_to_admission_ms) {
    if (!run.summary.workload_classes.contains(cls)) {
      out.push_back({"wlClassesMaxAvgTimeToAdmissionMs." + cls, "class not recorded", fmt::format("<= {} ms", max), false});
    }
  }
  return out;
}

}  // namespace kueuepp::cmd::perf

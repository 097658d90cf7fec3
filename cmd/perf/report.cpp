#include "cmd/perf/report.hpp"

#include <fmt/format.h>

#include "kube/json/json.hpp"

namespace kueuepp::cmd::perf {

namespace {

std::string quoted(const std::string& s) { return json::dump(json::value(s)); }

std::string process_line(const ProcessReport& p, Millis wall_ms) {
  return fmt::format("  {:<11} cpu {:>8.2f} s (user {:.2f} s, sys {:.2f} s) = {:.3f} cores on average; peak RSS {:.1f} MiB (VmHWM); pid {}\n"
                     "              context switches {} voluntary, {} involuntary\n",
                     p.name, static_cast<double>(p.usage.cpu_ms()) / 1000.0, static_cast<double>(p.usage.user_ms) / 1000.0,
                     static_cast<double>(p.usage.system_ms) / 1000.0, average_cores(p.usage.cpu_ms(), wall_ms),
                     static_cast<double>(p.usage.peak_rss_kib) / 1024.0, p.pid, p.usage.voluntary_switches,
                     p.usage.involuntary_switches);
}

void process_yaml(std::string& out, const ProcessReport& p, Millis wall_ms) {
  out += fmt::format("  {}:\n", p.name);
  out += fmt::format("    pid: {}\n", p.pid);
  out += fmt::format("    userMs: {}\n", p.usage.user_ms);
  out += fmt::format("    sysMs: {}\n", p.usage.system_ms);
  out += fmt::format("    cpuMs: {}\n", p.usage.cpu_ms());
  out += fmt::format("    averageCores: {:.4f}\n", average_cores(p.usage.cpu_ms(), wall_ms));
  out += fmt::format("    mCPU: {}\n", wall_ms > 0 ? p.usage.cpu_ms() * 1000 / wall_ms : 0);
  out += fmt::format("    maxrssKiB: {}\n", p.usage.peak_rss_kib);
  out += fmt::format("    voluntaryContextSwitches: {}\n", p.usage.voluntary_switches);
  out += fmt::format("    involuntaryContextSwitches: {}\n", p.usage.involuntary_switches);
  out += fmt::format("    lifetimeMs: {}\n", p.lifetime_ms);
}

}  // namespace

double average_cores(std::int64_t cpu_ms, Millis wall_ms) {
  return wall_ms > 0 ? static_cast<double>(cpu_ms) / static_cast<double>(wall_ms) : 0.0;
}

std::string render_text(const RunReport& r) {
  std::string out;
  out += fmt::format("kueuepp perf: {} ({} ClusterQueues, {} workloads)\n", r.generator_path, r.cluster_queues,
                     r.workloads_expected);
  out += fmt::format("  workloads: {} created, {} admitted, {} finished, {} evictions; runner writes: {} finished, {} evictions "
                     "completed, {} conflicts, {} errors\n",
                     r.generator.workloads_created, r.progress.admitted, r.progress.finished, r.progress.evictions,
                     r.progress.finish_writes, r.progress.eviction_writes, r.progress.conflicts, r.progress.write_errors);
  if (r.jobsets_every > 0) {
    out += fmt::format("  of them {} JobSets of two pod sets (one in {} of each workload set), queued by the controller\n",
                       r.generator.jobsets_created, r.jobsets_every);
  }
  out += fmt::format("  wall time: {} ms (first create request -> all workloads finished and queues idle); generation took {} ms\n",
                     r.wall_ms, r.generator.finished_at - r.generator.started_at);
  out += "\n  ClusterQueue classes (usage = sum of integral of flavorsUsage cpu dt / (sum of nominal quota * (last event - first event))):\n";
  for (const auto& [name, c] : r.summary.cluster_queue_classes) {
    out += fmt::format("    {:<10} usage {:6.2f} %  ({} queues, nominal {} cpu, average usage {:.2f} cpu, over {} ms)\n", name,
                       c.usage_percent(), c.queues, static_cast<double>(c.nominal_quota) / 1000.0,
                       static_cast<double>(c.cpu_average_usage()) / 1000.0, c.monitoring_ms());
  }
  out += "\n  Workload classes (time to admission: creation event -> Admitted event, runner's clock):\n";
  for (const auto& [name, w] : r.summary.workload_classes) {
    out += fmt::format("    {:<10} average {:>7} ms  (p50 {} ms, p90 {} ms, max {} ms; to first admission {} ms; "
                       "count {}, evictions {}, average to finish {} ms)\n",
                       name, w.average_time_to_admission_ms, w.p50_time_to_admission_ms, w.p90_time_to_admission_ms,
                       w.max_time_to_admission_ms, w.average_time_to_first_admission_ms, w.count, w.total_evictions,
                       w.average_time_to_finish_ms);
  }
  out += "\n  Processes (cpu time read from /proc just before stopping; cores = cpu time / wall time):\n";
  if (r.controller) {
    out += process_line(*r.controller, r.wall_ms);
    out += "              configuration: " +
           (r.controller_config.empty() ? std::string("the controller's defaults (clientConnection qps 300, burst 500)")
                                        : r.controller_config) +
           "\n";
    if (!r.controller_args.empty()) {
      std::string joined;
      for (const auto& a : r.controller_args) joined += " " + a;
      out += "              arguments added:" + joined + "\n";
    }
  } else {
    out += "  controller  not measured (external cluster)\n";
  }
  if (r.apiserver) out += process_line(*r.apiserver, r.wall_ms);
  else out += "  apiserver   not measured (external cluster)\n";
  out += process_line(r.runner, r.wall_ms);
  for (const auto& w : r.warnings) out += "\n  warning: " + w + "\n";
  if (r.has_range_spec) {
    out += "\n  Kueue's thresholds (rangespec):\n";
    for (const auto& c : r.checks) {
      out += fmt::format("    {:<4} {:<45} {:>14}  (limit {})\n", c.pass ? "PASS" : "FAIL", c.name, c.actual, c.limit);
    }
  }
  return out;
}

std::string render_yaml(const RunReport& r) {
  std::string out;
  out += "# kueuepp perf summary. Times in ms on the runner's clock (event receipt).\n";
  out += fmt::format("generator: {}\n", quoted(r.generator_path));
  out += fmt::format("clusterQueues: {}\n", r.cluster_queues);
  out += fmt::format("workloads: {}\n", r.workloads_expected);
  out += fmt::format("jobSetsEvery: {}\n", r.jobsets_every);
  out += fmt::format("wallMs: {}\n", r.wall_ms);
  out += "wallDefinition: \"first create request to the event after which every workload was Finished and no active ClusterQueue reported pending or reserving workloads\"\n";
  out += fmt::format("generationMs: {}\n", r.generator.finished_at - r.generator.started_at);
  out += "counts:\n";
  out += fmt::format("  created: {}\n  admitted: {}\n  finished: {}\n  evictions: {}\n", r.generator.workloads_created,
                     r.progress.admitted, r.progress.finished, r.progress.evictions);
  out += fmt::format("  jobSets: {}\n", r.generator.jobsets_created);
  out += fmt::format("  finishWrites: {}\n  evictionWrites: {}\n  conflicts: {}\n  writeErrors: {}\n", r.progress.finish_writes,
                     r.progress.eviction_writes, r.progress.conflicts, r.progress.write_errors);
  out += "clusterQueueClasses:\n";
  for (const auto& [name, c] : r.summary.cluster_queue_classes) {
    out += fmt::format("  {}:\n", name);
    out += fmt::format("    queues: {}\n", c.queues);
    out += fmt::format("    cpuUsed: {}\n", c.cpu_used);
    out += fmt::format("    cpuAverageUsage: {}\n", c.cpu_average_usage());
    out += fmt::format("    cpuMaxUsage: {}\n", c.cpu_max_usage);
    out += fmt::format("    nominalQuota: {}\n", c.nominal_quota);
    out += fmt::format("    firstEventMs: {}\n", c.first_event);
    out += fmt::format("    lastEventMs: {}\n", c.last_event);
    out += fmt::format("    usagePercent: {:.3f}\n", c.usage_percent());
  }
  out += "workloadClasses:\n";
  for (const auto& [name, w] : r.summary.workload_classes) {
    out += fmt::format("  {}:\n", name);
    out += fmt::format("    count: {}\n", w.count);
    out += fmt::format("    admitted: {}\n", w.admitted);
    out += fmt::format("    finished: {}\n", w.finished);
    out += fmt::format("    totalEvictions: {}\n", w.total_evictions);
    out += fmt::format("    averageTimeToAdmissionMs: {}\n", w.average_time_to_admission_ms);
    out += fmt::format("    averageTimeToFirstAdmissionMs: {}\n", w.average_time_to_first_admission_ms);
    out += fmt::format("    p50TimeToAdmissionMs: {}\n", w.p50_time_to_admission_ms);
    out += fmt::format("    p90TimeToAdmissionMs: {}\n", w.p90_time_to_admission_ms);
    out += fmt::format("    maxTimeToAdmissionMs: {}\n", w.max_time_to_admission_ms);
    out += fmt::format("    averageTimeToFinishMs: {}\n", w.average_time_to_finish_ms);
  }
  if (r.controller) {
    out += "controllerConfig: " + quoted(r.controller_config) + "\n";
    out += "controllerArgs: [";
    for (std::size_t i = 0; i < r.controller_args.size(); ++i) out += (i ? ", " : "") + quoted(r.controller_args[i]);
    out += "]\n";
  }
  out += "processes:\n";
  if (r.controller) process_yaml(out, *r.controller, r.wall_ms);
  if (r.apiserver) process_yaml(out, *r.apiserver, r.wall_ms);
  process_yaml(out, r.runner, r.wall_ms);
  if (!r.warnings.empty()) {
    out += "warnings:\n";
    for (const auto& w : r.warnings) out += "- " + quoted(w) + "\n";
  }
  if (r.has_range_spec) {
    out += "checks:\n";
    for (const auto& c : r.checks) {
      out += fmt::format("- name: {}\n  actual: {}\n  limit: {}\n  result: {}\n", quoted(c.name), quoted(c.actual),
                         quoted(c.limit), c.pass ? "PASS" : "FAIL");
    }
  }
  return out;
}

}  // namespace kueuepp::cmd::perf

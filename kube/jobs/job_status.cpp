#include "kube/jobs/job_status.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "kube/jobs/constants.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

namespace {

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// Kueue's terminalIndexesCount: distinct indexes below `completions` named by the
/// interval lists ("1,3-5"); malformed or descending intervals are skipped.
std::int64_t terminal_indexes(std::string_view completed, std::string_view failed, std::int64_t completions) {
  if (completions <= 0) return 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
  for (std::string_view list : {completed, failed}) {
    while (!list.empty()) {
      std::size_t comma = list.find(',');
      std::string_view item = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      std::size_t dash = item.find('-');
      auto first = to_int(item.substr(0, dash));
      auto last = dash == std::string_view::npos ? first : to_int(item.substr(dash + 1));
      if (!first || !last || *last < *first) continue;
      std::int64_t capped = std::min(*last, completions - 1);
      if (*first <= capped) intervals.emplace_back(*first, capped);
    }
  }
  std::sort(intervals.begin(), intervals.end());
  std::int64_t count = 0;
  std::int64_t last_counted = -1;
  for (auto [first, last] : intervals) {
    std::int64_t from = std::max(first, last_counted + 1);
    if (from > last) continue;
    count += last - from + 1;
    last_counted = last;
  }
  return count;
}

}  // namespace

std::optional<JobFinish> job_finished(const client::Object& job) {
  for (const auto& c : job.conditions()) {
    if ((c.type == "Complete" || c.type == "Failed") && c.status == "True") {
      return JobFinish{c.type != "Failed", c.message};
    }
  }
  return std::nullopt;
}

std::int64_t job_ready_or_succeeded_pods(const client::Object& job) {
  std::int64_t uncounted = 0;
  if (const json::value* s = job.find({"status", "uncountedTerminatedPods", "succeeded"}); s && s->is_array()) {
    uncounted = static_cast<std::int64_t>(s->get_array().size());
  }
  return job.int_at({"status", "succeeded"}).value_or(0) + job.int_at({"status", "ready"}).value_or(0) + uncounted;
}

bool job_pods_ready(const client::Object& job) { return job_ready_or_succeeded_pods(job) >= job_pods_count(job); }

bool job_active(const client::Object& job) { return job.int_at({"status", "active"}).value_or(0) != 0; }

bool job_suspended(const client::Object& job) {
  return job.bool_at({"spec", "suspend"}).value_or(false) && job.annotation(kStoppingAnnotation) != "true";
}

std::int64_t job_reclaimable_pods(const client::Object& job) {
  std::int64_t parallelism = job.int_at({"spec", "parallelism"}).value_or(1);
  std::int64_t completions = job.int_at({"spec", "completions"}).value_or(parallelism);
  std::int64_t terminal = job.int_at({"status", "succeeded"}).value_or(0);
  if (job.string_at({"spec", "completionMode"}) == "Indexed") {
    terminal = terminal_indexes(job.string_at({"status", "completedIndexes"}),
                                job.string_at({"status", "failedIndexes"}), completions);
  }
  if (parallelism <= 1 || terminal <= 0) return 0;
  std::int64_t remaining = std::max<std::int64_t>(completions - terminal, 0);
  return remaining < parallelism ? parallelism - remaining : 0;
}

}  // namespace kueuepp::kube::jobs

#include "cmd/standalone/job_runner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <regex>

#include "cmd/standalone/running_jobs.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"

namespace kueuepp::cmd {

using kube::client::Object;

namespace {

std::optional<std::chrono::milliseconds> parse_sleep(std::string_view text) {
  static const std::regex kSleep(R"((?:^|[\s;&|(])sleep\s+([0-9]+(?:\.[0-9]+)?)([smh]?))");
  std::string s(text);
  std::smatch m;
  if (!std::regex_search(s, m, kSleep)) return std::nullopt;
  double value = std::stod(m[1].str());
  std::string unit = m[2].str();
  double factor = unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : 1'000;
  return std::chrono::milliseconds(static_cast<std::int64_t>(value * factor));
}

core::Time now() { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); }

std::int64_t active_pods(const Object& job) {
  std::int64_t parallelism = job.int_at({"spec", "parallelism"}).value_or(1);
  if (auto completions = job.int_at({"spec", "completions"})) parallelism = std::min(parallelism, *completions);
  return std::max<std::int64_t>(parallelism, 0);
}

}  // namespace

std::chrono::milliseconds JobRunnerOptions::run_time(std::optional<std::chrono::milliseconds> requested) const {
  const auto duration = requested.value_or(default_duration);
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(static_cast<double>(duration.count()) / std::max(time_scale, 1e-6)));
}

std::optional<std::chrono::milliseconds> requested_duration(const Object& job) {
  const json::value* tmpl = job.find({"spec", "template"});
  return tmpl != nullptr ? requested_duration_of_template(*tmpl) : std::nullopt;
}

std::optional<std::chrono::milliseconds> requested_duration_of_template(const json::value& pod_template) {
  const auto* containers = json::find_path(pod_template, {"spec", "containers"});
  if (containers == nullptr || !containers->is_array() || containers->as_array().empty()) return std::nullopt;
  const auto& c = containers->as_array()[0];
  std::string line;
  for (const char* field : {"command", "args"}) {
    if (const auto* list = json::find(c, field); list && list->is_array()) {
      for (const auto& part : list->as_array()) {
        if (part.is_string()) line += std::string(part.as_string()) + " ";
      }
    }
  }
  return parse_sleep(line);
}

struct JobRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  JobRunnerOptions options;
  std::shared_ptr<kube::client::Informer> informer;
  RunningJobs running;  ///< by the Job's key

  Impl(kube::client::Client& c, JobRunnerOptions o) : client(c), options(o) {}

  void patch_status(const Object& job, json::object status, std::string what) {
    std::string key = job.key();
    client.patch(kube::client::resources::kJob, job.namespace_name(), job.name(), kube::client::PatchType::Merge,
                 json::object{{"status", std::move(status)}},
                 [key, what](kube::client::Result<Object> r) {
                   if (!r && !r.error().is_not_found()) {
                     spdlog::warn("job runner: {} {}: {}", what, key, r.error().message);
                   }
                 },
                 [] {
                   kube::client::PatchOptions o;
                   o.status_subresource = true;
                   o.field_manager = "kueuepp-job-runner";
                   return o;
                 }());
  }

  void on_job(const Object& job, bool deleted) {
    std::string key = job.key();
    bool suspended = job.bool_at({"spec", "suspend"}).value_or(false);
    bool finished = job.condition_true("Complete") || job.condition_true("Failed");
    bool started = job.find({"status", "startTime"}) != nullptr && !job.find({"status", "startTime"})->is_null();
    if (deleted || finished || suspended) {
      if (!running.cancel(key)) return;
      if (!deleted && !finished && suspended && started) {
        // Evicted: the pods are gone.
        patch_status(job, json::object{{"active", 0}, {"ready", 0}, {"startTime", nullptr}}, "stop");
      }
      return;
    }
    // Start (or resume after a controller restart: the clock starts again).
    running.start(key, job.uid(), [&] {
      std::int64_t pods = active_pods(job);
      if (!started) {
        patch_status(job, json::object{{"startTime", core::format_rfc3339(now())}, {"active", pods}, {"ready", pods}},
                     "start");
      }
      std::weak_ptr<Impl> weak = weak_from_this();
      return client.after(options.run_time(requested_duration(job)), [weak, snapshot = job] {
        if (auto self = weak.lock()) self->complete(snapshot);
      });
    });
  }

  void complete(const Object& job) {
    if (!running.finish(job.key(), job.uid())) return;
    std::string stamp = core::format_rfc3339(now());
    std::int64_t completions = job.int_at({"spec", "completions"}).value_or(active_pods(job));
    json::array conditions{
        json::object{{"type", "SuccessCriteriaMet"}, {"status", "True"}, {"reason", "CompletionsReached"},
                     {"message", "Reached expected number of succeeded pods"}, {"lastProbeTime", stamp},
                     {"lastTransitionTime", stamp}},
        json::object{{"type", "Complete"}, {"status", "True"}, {"reason", "CompletionsReached"},
                     {"message", "Reached expected number of succeeded pods"}, {"lastProbeTime", stamp},
                     {"lastTransitionTime", stamp}}};
    patch_status(job,
                 json::object{{"active", 0},
                              {"ready", 0},
                              {"succeeded", completions},
                              {"completionTime", stamp},
                              {"conditions", std::move(conditions)}},
                 "complete");
  }
};

JobRunner::JobRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
JobRunner::~JobRunner() { stop(); }

std::unique_ptr<JobRunner> JobRunner::start(kube::client::Client& client, JobRunnerOptions options) {
  auto impl = std::make_shared<Impl>(client, options);
  std::weak_ptr<Impl> weak = impl;
  impl->informer = kube::client::Informer::start(
      client, kube::client::resources::kJob, {}, [weak](kube::client::InformerEvent event) {
        auto self = weak.lock();
        if (!self) return;
        using Type = kube::client::InformerEvent::Type;
        if (event.type == Type::Relisted) {
          for (const auto& job : event.items) self->on_job(job, false);
        } else {
          self->on_job(event.object, event.type == Type::Deleted);
        }
      });
  return std::unique_ptr<JobRunner>(new JobRunner(std::move(impl)));
}

void JobRunner::stop() {
  if (!impl_) return;
  if (impl_->informer) impl_->informer->stop();
  impl_->running.close();
}

}  // namespace kueuepp::cmd

// `kueuepp whatif -f FILE [--kubeconfig FILE] [-n NAMESPACE] [-o text|json|yaml]`: asks the
// cluster what would happen if a Job or Workload were submitted, through the API server
// (kueuepp's visibility API, aggregated), writing nothing. A Job is built into the Workload
// Kueue's Job integration would create for it, here, so a bad manifest is refused with
// the controller's own words before anything is sent.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "cmd/whatif/what_if_text.hpp"
#include "kube/apiserver/server/util/yaml_emit.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/client/in_cluster.hpp"
#include "kube/client/object.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/workload_builder.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {

namespace {

constexpr const char* kUsage =
    "usage: kueuepp whatif -f FILE [--kubeconfig FILE] [--context NAME] [-n NAMESPACE] [-o text|json|yaml]\n"
    "\n"
    "Asks the cluster what would happen if the batch/v1 Job or kueue.x-k8s.io/v1beta2 Workload in FILE\n"
    "(YAML or JSON, - for stdin) were submitted now: admitted (on which flavors), admitted after\n"
    "preempting which workloads (and by which rule), or pending (Kueue's reason and message, its\n"
    "position, and an estimate of when it would start). Nothing is created. The question goes to\n"
    "POST /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/NS/localqueues/LQ/whatif, which needs\n"
    "the right to get that LocalQueue's pendingworkloads.\n";

struct Flags {
  std::string file;
  std::string kubeconfig;
  std::string context;
  std::string ns;
  std::string output = "text";
};

Expected<Flags> parse_flags(Args args) {
  Flags f;
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view a = *next;
    Status s;
    if (a == "-f" || a == "--filename") {
      s = reader.value(f.file);
    } else if (a == "--kubeconfig") {
      s = reader.value(f.kubeconfig);
    } else if (a == "--context") {
      s = reader.value(f.context);
    } else if (a == "-n" || a == "--namespace") {
      s = reader.value(f.ns);
    } else if (a == "-o" || a == "--output") {
      s = reader.value(f.output);
    } else {
      return fail("unknown argument " + std::string(a));
    }
    if (!s) return unexpected(s.error());
  }
  if (f.file.empty()) return fail("-f FILE is required");
  if (f.output != "text" && f.output != "json" && f.output != "yaml") {
    return fail("-o must be text, json or yaml, not " + f.output);
  }
  return f;
}

Expected<std::string> read_input(const std::string& file) {
  std::stringstream ss;
  if (file == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(file);
  if (!in) return fail("cannot read " + file);
  ss << in.rdbuf();
  return ss.str();
}

/// A PriorityClass or WorkloadPriorityClass's value, read from the cluster.
std::optional<std::int32_t> class_value(kube::client::BlockingClient& api, const std::string& path) {
  kube::client::HttpRequest req;
  req.target = path;
  auto res = api.raw(req);
  if (!res || res->status != 200) return std::nullopt;
  auto doc = json::parse(res->body);
  if (!doc) return std::nullopt;
  const json::value* v = json::find(*doc, "value");
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return static_cast<std::int32_t>(v->as_int64());
}

std::optional<std::pair<std::string, std::int32_t>> default_priority_class(kube::client::BlockingClient& api) {
  kube::client::HttpRequest req;
  req.target = "/apis/scheduling.k8s.io/v1/priorityclasses";
  auto res = api.raw(req);
  if (!res || res->status != 200) return std::nullopt;
  auto doc = json::parse(res->body);
  const json::value* items = doc ? json::find(*doc, "items") : nullptr;
  std::optional<std::pair<std::string, std::int32_t>> out;
  for (const auto& pc : items != nullptr && items->is_array() ? items->as_array() : json::array{}) {
    const json::value* global = json::find(pc, "globalDefault");
    const json::value* value = json::find(pc, "value");
    if (global == nullptr || !global->is_bool() || !global->as_bool() || value == nullptr || !value->is_int64()) continue;
    auto v = static_cast<std::int32_t>(value->as_int64());
    if (!out || v < out->second) out = std::make_pair(std::string(json::get_string(*json::find(pc, "metadata"), "name")), v);
  }
  return out;
}

/// The Workload to ask about: a Workload as given, a Job built as the controller builds it.
Expected<json::value> workload_of(json::value doc, const std::string& ns, kube::client::BlockingClient& api) {
  const std::string api_version(json::get_string(doc, "apiVersion"));
  const std::string kind(json::get_string(doc, "kind"));
  auto object = kube::client::Object::from_json(std::move(doc));
  if (!object) return fail("the manifest is not an object: " + object.error().message);
  if (object->namespace_name().empty()) object->set_namespace(ns);
  if (api_version == "kueue.x-k8s.io/v1beta2" && kind == "Workload") return std::move(*object).release();
  if (api_version != "batch/v1" || kind != "Job") {
    return fail("cannot ask about " + api_version + ", Kind=" + kind +
                ": give a batch/v1 Job or a kueue.x-k8s.io/v1beta2 Workload");
  }
  if (object->name().empty() && !object->generate_name().empty()) object->set_name(object->generate_name());
  if (!object->label(kube::jobs::kQueueNameLabel)) {
    return fail("Job " + std::string(object->name()) + " has no " + std::string(kube::jobs::kQueueNameLabel) +
                " label: Kueue would not manage it; name its LocalQueue there");
  }
  if (auto valid = kube::jobs::validate_job(*object); !valid) return unexpected(valid.error());
  kube::jobs::BuildOptions options;
  options.workload_priority_class = [&api](std::string_view name) {
    return class_value(api, "/apis/kueue.x-k8s.io/v1beta2/workloadpriorityclasses/" + std::string(name));
  };
  options.priority_class = [&api](std::string_view name) {
    return class_value(api, "/apis/scheduling.k8s.io/v1/priorityclasses/" + std::string(name));
  };
  options.default_priority_class = default_priority_class(api);
  auto built = kube::jobs::build_workload(*object, options);
  if (!built) return unexpected(built.error());
  return std::move(*built).release();
}

int run(const Flags& f) {
  auto text = read_input(f.file);
  if (!text) {
    std::fprintf(stderr, "whatif: %s\n", text.error().message.c_str());
    return 1;
  }
  auto doc = json::parse_yaml(*text);
  if (!doc || !doc->is_object()) {
    std::fprintf(stderr, "whatif: %s is not one YAML or JSON object%s%s\n", f.file.c_str(), doc ? "" : ": ",
                 doc ? "" : doc.error().message.c_str());
    return 1;
  }
  kube::client::ConfigLoadOptions load;
  load.kubeconfig_path = f.kubeconfig;
  load.context = f.context;
  auto config = kube::client::load_client_config(load);
  if (!config) {
    std::fprintf(stderr, "whatif: %s\n", config.error().message.c_str());
    return 1;
  }
  std::string ns = f.ns;
  if (ns.empty()) ns = std::string(json::get_string(json::find(*doc, "metadata") ? *json::find(*doc, "metadata") : json::value{}, "namespace"));
  if (ns.empty()) ns = config->default_namespace;
  auto client = kube::client::Client::create(*config);
  if (!client) {
    std::fprintf(stderr, "whatif: %s\n", client.error().message.c_str());
    return 1;
  }
  kube::client::BlockingClient api(**client);
  auto workload = workload_of(std::move(*doc), ns, api);
  if (!workload) {
    std::fprintf(stderr, "whatif: %s\n", workload.error().message.c_str());
    return 1;
  }
  const json::value* queue = json::find_path(*workload, {"spec", "queueName"});
  const std::string lq = queue != nullptr && queue->is_string() ? std::string(queue->as_string()) : "";
  if (lq.empty()) {
    std::fprintf(stderr, "whatif: the Workload has no spec.queueName: name its LocalQueue\n");
    return 1;
  }
  kube::client::HttpRequest req;
  req.method = "POST";
  req.target = "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/" + ns + "/localqueues/" + lq + "/whatif";
  req.headers.emplace_back("Content-Type", "application/json");
  req.body = json::dump(*workload);
  auto res = api.raw(req);
  if (!res) {
    std::fprintf(stderr, "whatif: %s\n", res.error().describe().c_str());
    return 1;
  }
  auto answer = json::parse(res->body);
  if (res->status != 201 || !answer) {
    std::string message = answer ? std::string(json::get_string(*answer, "message")) : res->body;
    std::fprintf(stderr, "whatif: the server answered %d: %s\n", res->status, message.c_str());
    return 1;
  }
  if (f.output == "json") {
    std::printf("%s\n", json::dump(*answer).c_str());
  } else if (f.output == "yaml") {
    std::printf("%s", kube::server::to_yaml(*answer).c_str());
  } else {
    std::printf("%s", what_if_text(*answer, ns + "/" + lq).c_str());
  }
  return 0;
}

}  // namespace

int run_whatif(Args args) {
  for (auto a : args) {
    if (a == "-h" || a == "--help") {
      std::printf("%s", kUsage);
      return 0;
    }
  }
  auto flags = parse_flags(args);
  if (!flags) {
    std::fprintf(stderr, "whatif: %s\n\n%s", flags.error().message.c_str(), kUsage);
    return 2;
  }
  return run(*flags);
}

}  // namespace kueuepp::cmd

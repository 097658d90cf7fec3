#include "kube/apiserver/server/aggregation/aggregator.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/aggregation/proxy_call.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::size_t kMaxDiscoveryBytes = 16u << 20;

/// kube-aggregator checks as this identity, so that the backend always lets it in.
RequestUser aggregator_user() { return {"system:kube-aggregator", {"system:masters"}, {}}; }

/// Watches are long-running: no request timeout.
bool long_running(const HttpRequest& request) {
  auto parsed = parse_target(request.target);
  return parsed && (parsed->first.watch_path || parsed->second.flag("watch"));
}

}  // namespace

struct Aggregator::Fetched {
  int status = 0;
  std::string body;
};

Aggregator::Aggregator(ServerContext& ctx, BackendTransport& transport, FrontProxyCredentials credentials,
                       AggregatorOptions options)
    : ctx_(ctx),
      transport_(transport),
      credentials_(std::move(credentials)),
      options_(std::move(options)),
      api_services_bucket_(ctx.store.bucket("apiregistration.k8s.io/apiservices")),
      services_bucket_(ctx.store.bucket("/services")) {}

Aggregator::~Aggregator() { stop(); }

void Aggregator::start() {
  ctx_.store.scan(api_services_bucket_, "", "", 0, [this](const ObjectPtr& object) {
    apply(*object);
    return true;
  });
}

void Aggregator::stop() {
  stopped_ = true;
  for (auto& [name, entry] : entries_) {
    if (entry.timer) entry.timer->cancel();
  }
}

void Aggregator::observe(const Change& change) {
  if (change.bucket == api_services_bucket_) {
    if (change.type == ChangeType::Deleted) return forget(change.object->name);
    return apply(*change.object);
  }
  if (change.bucket != services_bucket_) return;
  const StoredObject& svc = *change.object;
  for (const auto& [name, entry] : entries_) {
    if (!entry.spec.local && entry.spec.service_namespace == svc.ns && entry.spec.service_name == svc.name) {
      schedule_check(name, std::chrono::milliseconds(0));
    }
  }
}

void Aggregator::apply(const StoredObject& object) {
  ApiServiceSpec spec = read_api_service(object.doc);
  auto [it, added] = entries_.try_emplace(spec.name);
  Entry& entry = it->second;
  entry.available = api_service_available(object.doc);
  if (!added && entry.spec == spec) return;  // a status write: routing follows it, nothing to check
  entry.spec = std::move(spec);
  // Unique across entries: a check of a deleted APIService never counts for one
  // recreated under its name.
  entry.generation = ++generations_;
  entry.resources = nullptr;
  entry.resources_current = false;
  entry.failures = 0;
  schedule_check(it->first, std::chrono::milliseconds(0));
}

void Aggregator::forget(const std::string& name) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  if (it->second.timer) it->second.timer->cancel();
  entries_.erase(it);
}

void Aggregator::schedule_check(const std::string& name, std::chrono::milliseconds delay) {
  if (stopped_) return;
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  if (it->second.timer) it->second.timer->cancel();
  it->second.timer = ctx_.scheduler.after(delay, [this, name] { check(name); });
}

void Aggregator::check(const std::string& name) {
  auto it = entries_.find(name);
  if (it == entries_.end() || stopped_) return;
  Entry& entry = it->second;
  const ApiServiceSpec& spec = entry.spec;
  if (spec.local) return set_available(name, "True", "Local", "Local APIServices are always available");
  if (entry.checking) {
    entry.check_again = true;
    return;
  }
  std::uint64_t generation = entry.generation;
  ServiceEndpoint endpoint = resolve_service(ctx_.store, services_bucket_, spec.service_namespace, spec.service_name,
                                             spec.service_port, options_.service_host);
  if (endpoint.outcome == ServiceEndpoint::Outcome::ServiceNotFound) {
    return checked(name, generation, "False", "ServiceNotFound",
                   fmt::format("service/{} in \"{}\" is not present", spec.service_name, spec.service_namespace));
  }
  if (endpoint.outcome == ServiceEndpoint::Outcome::PortNotListed) {
    return checked(name, generation, "False", "ServicePortError",
                   fmt::format("service/{} in \"{}\" is not listening on port {}", spec.service_name,
                               spec.service_namespace, spec.service_port));
  }
  // As kube-aggregator: the check does not verify the certificate (whoever owns the
  // network can only make an APIService look down); requests and discovery do.
  BackendTarget probe = target_for(spec, endpoint);
  BackendTarget verified = probe;
  probe.insecure_skip_verify = true;
  probe.ca_pem.clear();
  std::string path = fmt::format("/apis/{}/{}", spec.group, spec.version);
  std::string url = fmt::format("https://{}:{}{}", endpoint.host, endpoint.port, path);
  entry.checking = true;
  fetch(probe, path, aggregator_user(), options_.check_timeout,
        [this, name, generation, url, verified](Expected<Fetched> result) {
          auto found = entries_.find(name);
          if (found == entries_.end() || stopped_) return;
          found->second.checking = false;
          if (!result) {
            return checked(name, generation, "False", "FailedDiscoveryCheck",
                           fmt::format("failing or missing response from {}: Get \"{}\": {}", url, url,
                                       result.error().message));
          }
          if (result->status < 200 || result->status >= 300) {
            return checked(name, generation, "False", "FailedDiscoveryCheck",
                           fmt::format("failing or missing response from {}: bad status from {}: {}", url, url,
                                       result->status));
          }
          checked(name, generation, "True", "Passed", "all checks passed");
          fetch_discovery(name, generation, verified);
        });
}

void Aggregator::checked(const std::string& name, std::uint64_t generation, const char* status, std::string reason,
                         std::string message) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  Entry& entry = it->second;
  if (entry.check_again || entry.generation != generation) {
    // The spec or the Service changed while the check ran: its result is stale.
    entry.check_again = false;
    return schedule_check(name, std::chrono::milliseconds(0));
  }
  bool passed = std::string_view(status) == "True";
  if (passed) {
    entry.failures = 0;
  } else {
    entry.resources_current = false;
    if (entry.failures < 16) ++entry.failures;
  }
  if (!passed) {
    spdlog::debug("APIService {} not available: {}: {}", name, reason, message);
  }
  set_available(name, status, reason, message);
  // A failing APIService is checked again soon, then less and less often, as
  // kube-aggregator's rate-limited requeue does; an available one at every interval.
  auto delay = options_.check_interval;
  if (!passed) {
    std::chrono::milliseconds backoff(100LL << std::min(entry.failures, 10));
    delay = std::min(delay, backoff);
  }
  schedule_check(name, delay);
}

void Aggregator::fetch_discovery(const std::string& name, std::uint64_t generation, const BackendTarget& target) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  std::string path = fmt::format("/apis/{}/{}", it->second.spec.group, it->second.spec.version);
  fetch(target, path, aggregator_user(), options_.check_timeout, [this, name, generation](Expected<Fetched> result) {
    auto found = entries_.find(name);
    if (found == entries_.end() || found->second.generation != generation) return;
    Entry& entry = found->second;
    if (!result || result->status != 200) {
      spdlog::warn("APIService {}: discovery not fetched: {}", name,
                   result ? fmt::format("status {}", result->status) : result.error().message);
      return;
    }
    auto doc = json::parse(result->body);
    const json::value* resources = doc ? json::find(*doc, "resources") : nullptr;
    if (resources == nullptr || !resources->is_array()) {
      spdlog::warn("APIService {}: the backend's /apis/{}/{} is not an APIResourceList", name, entry.spec.group,
                   entry.spec.version);
      return;
    }
    entry.resources = *resources;
    entry.resources_current = true;
  });
}

void Aggregator::set_available(const std::string& name, std::string_view status, std::string_view reason,
                               std::string_view message) {
  ObjectPtr current = ctx_.store.get(api_services_bucket_, name);
  const ResourceType* type = ctx_.registry.find("apiregistration.k8s.io", "v1", "apiservices");
  if (!current || type == nullptr) return;
  auto next = with_available_condition(current->document(), status, reason, message, now_rfc3339());
  if (!next) return;
  write_back(ctx_, *type, *current, std::move(*next));
}

void Aggregator::fetch(const BackendTarget& target, std::string path, const RequestUser& as,
                       std::chrono::milliseconds timeout, std::function<void(Expected<Fetched>)> done) {
  struct State {
    std::function<void(Expected<Fetched>)> done;
    Fetched fetched;
    std::shared_ptr<BackendExchange> exchange;
    std::shared_ptr<TimerHandle> timer;
    void finish(Expected<Fetched> result) {
      if (!done) return;
      auto callback = std::move(done);
      done = nullptr;
      if (timer) timer->cancel();
      if (exchange) exchange->cancel();
      exchange = nullptr;
      callback(std::move(result));
    }
  };
  auto state = std::make_shared<State>();
  state->done = std::move(done);
  BackendRequest request;
  request.method = "GET";
  request.target = std::move(path);
  request.headers = proxied_request_headers({{"Accept", "application/json"}}, as);
  BackendHandlers handlers;
  handlers.head = [state](Expected<BackendResponseHead> head) {
    if (!head) return state->finish(unexpected(head.error()));
    state->fetched.status = head->status;
  };
  handlers.data = [state](std::string data) {
    if (state->fetched.body.size() + data.size() > kMaxDiscoveryBytes) {
      state->finish(fail("the answer is larger than 16 MiB"));
      return false;
    }
    state->fetched.body += data;
    return true;
  };
  handlers.end = [state](Status result) {
    if (!result) return state->finish(unexpected(result.error()));
    state->finish(std::move(state->fetched));
  };
  state->exchange = transport_.send(target, std::move(request), options_.timeouts, std::move(handlers));
  state->timer = ctx_.scheduler.after(timeout, [weak = std::weak_ptr<State>(state)] {
    if (auto s = weak.lock()) s->finish(fail("context deadline exceeded (Client.Timeout exceeded while awaiting headers)"));
  });
}

BackendTarget Aggregator::target_for(const ApiServiceSpec& spec, const ServiceEndpoint& endpoint) const {
  BackendTarget t;
  t.host = endpoint.host;
  t.port = std::to_string(endpoint.port);
  t.server_name = spec.server_name();
  t.ca_pem = spec.ca_pem;
  t.insecure_skip_verify = spec.insecure_skip_verify;
  t.client_cert_pem = credentials_.client_cert_pem;
  t.client_key_pem = credentials_.client_key_pem;
  return t;
}

const Aggregator::Entry* Aggregator::entry_for(std::string_view group, std::string_view version) const {
  for (const auto& [name, entry] : entries_) {
    if (entry.spec.group == group && entry.spec.version == version) return &entry;
  }
  return nullptr;
}

bool Aggregator::proxies(std::string_view group, std::string_view version) const {
  const Entry* entry = entry_for(group, version);
  return entry != nullptr && !entry->spec.local;
}

void Aggregator::proxy(const HttpRequest& request, const RequestUser& user, ResponderPtr responder) {
  auto parsed = parse_target(request.target);
  const Entry* entry = parsed ? entry_for(parsed->first.group, parsed->first.version) : nullptr;
  if (entry == nullptr || entry->spec.local) return respond_proxy_error(*responder, 404, "404 page not found");
  if (!entry->available) return respond_proxy_error(*responder, 503, "service unavailable");
  const ApiServiceSpec& spec = entry->spec;
  ServiceEndpoint endpoint = resolve_service(ctx_.store, services_bucket_, spec.service_namespace, spec.service_name,
                                             spec.service_port, options_.service_host);
  if (endpoint.outcome == ServiceEndpoint::Outcome::ServiceNotFound) {
    return respond_proxy_error(*responder, 503, "service unavailable");
  }
  BackendRequest forwarded;
  forwarded.method = request.method;
  forwarded.target = request.target;
  forwarded.headers = proxied_request_headers(request.headers, user);
  forwarded.body = request.body;
  ProxyCallOptions call;
  call.long_running = long_running(request);
  call.timeout = options_.request_timeout;
  call.timeouts = options_.timeouts;
  start_proxy_call(ctx_.scheduler, transport_, target_for(spec, endpoint), std::move(forwarded), call,
                   std::move(responder));
}

std::vector<RemoteGroupVersion> Aggregator::remote_group_versions() const {
  std::vector<RemoteGroupVersion> out;
  for (const auto& [name, entry] : entries_) {
    if (entry.spec.local) continue;
    out.push_back(RemoteGroupVersion{entry.spec.group, entry.spec.version, entry.spec.group_priority_minimum,
                                     entry.spec.version_priority, entry.resources,
                                     entry.available && entry.resources_current});
  }
  // kube-aggregator's order: groups by priority (highest first), then name; versions of a
  // group by priority, then by Kubernetes version order.
  std::stable_sort(out.begin(), out.end(), [](const RemoteGroupVersion& a, const RemoteGroupVersion& b) {
    if (a.group != b.group) {
      if (a.group_priority_minimum != b.group_priority_minimum) return a.group_priority_minimum > b.group_priority_minimum;
      return a.group < b.group;
    }
    if (a.version_priority != b.version_priority) return a.version_priority > b.version_priority;
    return version_preferred(a.version, b.version);
  });
  return out;
}

}  // namespace kueuepp::kube::server

#include "kube/webhook/cert_manager.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "core/base64.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/webhook/crd_conversion_registration.hpp"
#include "kube/webhook/webhook_server.hpp"

namespace kueuepp::kube::webhook {

namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string secret_entry(const client::Object& secret, std::string_view key) {
  const json::value* v = secret.find({"data", key});
  if (v == nullptr || !v->is_string()) return {};
  return core::base64_decode(std::string_view(v->get_string())).value_or("");
}

std::optional<CertificateBundle> bundle_of(const client::Object& secret) {
  CertificateBundle b{secret_entry(secret, "ca.crt"), secret_entry(secret, "ca.key"), secret_entry(secret, "tls.crt"),
                      secret_entry(secret, "tls.key")};
  if (b.ca_cert_pem.empty() && b.cert_pem.empty()) return std::nullopt;
  return b;
}

void put_bundle(client::Object& secret, const CertificateBundle& b) {
  json::object data;
  data["ca.crt"] = core::base64_encode(b.ca_cert_pem);
  data["ca.key"] = core::base64_encode(b.ca_key_pem);
  data["tls.crt"] = core::base64_encode(b.cert_pem);
  data["tls.key"] = core::base64_encode(b.key_pem);
  secret.json().as_object()["data"] = std::move(data);
}

std::string when(Clock::time_point t) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

struct CertManager::Impl {
  CertManagerOptions options;
  client::Client* client = nullptr;
  WebhookServer& server;
  std::thread thread;

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool poked = false;
  std::string reason = "the webhook server has no certificate yet";
  std::string ca_bundle;
  std::string installed_cert;
  Clock::time_point installed_not_after{};
  std::uint64_t steps = 0;

  std::optional<CertificateBundle> generated;  ///< Generated: the bundle in memory
  std::string last_registration_problem;       ///< logged once per distinct message
  /// The configurations carry the current CA (always true without registration).
  bool registered = false;

  Impl(CertManagerOptions o, client::Client* c, WebhookServer& s) : options(std::move(o)), client(c), server(s) {}

  Clock::time_point now() const { return options.clock ? options.clock() : Clock::now(); }

  void set_reason(std::string why) {
    std::lock_guard lock(mutex);
    if (why != reason && !why.empty()) spdlog::warn("webhook certificates: {}", why);
    reason = std::move(why);
  }

  /// Loads `bundle` into the server unless it serves it already.
  Status install(const CertificateBundle& bundle) {
    auto info = inspect_certificate(bundle.cert_pem);
    if (!info) return fail("the serving certificate is unreadable: " + info.error().message);
    {
      std::lock_guard lock(mutex);
      if (installed_cert == bundle.cert_pem) {
        ca_bundle = bundle.ca_cert_pem;
        return {};
      }
    }
    if (auto st = server.set_certificate(bundle.cert_pem, bundle.key_pem); !st) return st;
    std::lock_guard lock(mutex);
    installed_cert = bundle.cert_pem;
    installed_not_after = info->not_after;
    ca_bundle = bundle.ca_cert_pem;
    spdlog::info("webhook server: serving a certificate valid until {}", when(info->not_after));
    return {};
  }

  /// "" when the installed certificate is valid now.
  std::string validity_problem() {
    std::lock_guard lock(mutex);
    if (installed_cert.empty()) return "the webhook server has no certificate yet";
    if (now() >= installed_not_after) return "the webhook server's certificate expired at " + when(installed_not_after);
    return {};
  }

  void note_registration(const std::string& problem) {
    {
      std::lock_guard lock(mutex);
      registered = problem.empty();
      if (problem == last_registration_problem) return;
      last_registration_problem = problem;
    }
    if (!problem.empty()) spdlog::warn("webhook registration: {}", problem);
  }

  /// Returns when to look again.
  Clock::time_point step_files() {
    const std::string dir = options.cert_dir;
    auto cert = read_file(dir + "/tls.crt");
    auto key = read_file(dir + "/tls.key");
    if (!cert || !key) {
      set_reason(fmt::format("no tls.crt and tls.key in {} yet (cert-manager writes them from its Certificate)", dir));
      return now() + options.retry_interval;
    }
    CertificateBundle bundle{read_file(dir + "/ca.crt").value_or(""), "", *cert, *key};
    if (auto st = install(bundle); !st) {
      set_reason(fmt::format("the certificate in {} does not load: {}", dir, st.error().message));
      return now() + options.retry_interval;
    }
    set_reason(validity_problem());
    if (options.registration != Registration::None && !bundle.ca_cert_pem.empty() &&
        !register_webhooks(bundle.ca_cert_pem)) {
      return now() + options.retry_interval;
    }
    return now() + options.check_interval;
  }

  Clock::time_point step_generated() {
    const Clock::time_point t = now();
    RotationDecision decision = decide_rotation(generated, options.hosts, t, options.policy);
    if (decision.action != RotationAction::Keep) {
      auto made = rotate(generated, decision, options.hosts, t, options.policy);
      if (!made) {
        set_reason("cannot make certificates: " + made.error().message);
        return t + options.retry_interval;
      }
      spdlog::info("webhook certificates: made new ones ({})", decision.why);
      generated = std::move(*made);
    }
    if (auto st = install(*generated); !st) {
      set_reason("the certificates made do not load: " + st.error().message);
      return t + options.retry_interval;
    }
    set_reason(validity_problem());
    if (options.registration != Registration::None && !register_webhooks(generated->ca_cert_pem)) {
      return t + options.retry_interval;
    }
    return std::min(decide_rotation(generated, options.hosts, t, options.policy).renew_at, t + options.check_interval);
  }

  Clock::time_point step_secret() {
    const Clock::time_point t = now();
    const std::string where = options.secret_namespace + "/" + options.secret_name;
    client::BlockingClient api(*client);
    auto got = api.get(resources::kSecret, options.secret_namespace, options.secret_name);
    std::optional<client::Object> secret;
    if (got) {
      secret = std::move(*got);
    } else if (!got.error().is_not_found()) {
      set_reason(fmt::format("cannot read the Secret {}: {}{}", where, got.error().describe(),
                             got.error().is_forbidden() ? " (the Role must allow get and update on it)" : ""));
      return t + options.retry_interval;
    }
    std::optional<CertificateBundle> stored = secret ? bundle_of(*secret) : std::nullopt;
    RotationDecision decision = decide_rotation(stored, options.hosts, t, options.policy);
    CertificateBundle bundle;
    if (decision.action == RotationAction::Keep) {
      bundle = *stored;
    } else {
      auto made = rotate(stored, decision, options.hosts, t, options.policy);
      if (!made) {
        set_reason("cannot make certificates: " + made.error().message);
        return t + options.retry_interval;
      }
      client::Object object;
      if (secret) {
        object = *secret;  // keeps resourceVersion: the write is conditional on what was read
      } else {
        object.set_type("v1", "Secret");
        object.set_name(options.secret_name);
        object.set_namespace(options.secret_namespace);
        object.json().as_object()["type"] = "Opaque";
        object.set_label("app.kubernetes.io/name", "kueuepp");
      }
      put_bundle(object, *made);
      auto written = secret ? api.update(resources::kSecret, std::move(object))
                            : api.create(resources::kSecret, std::move(object));
      if (!written) {
        const auto& e = written.error();
        if (e.is_conflict() || e.is_already_exists()) {
          // Another replica wrote first: read what it wrote.
          spdlog::info("webhook certificates: another replica wrote the Secret {} first; reading it", where);
          return t;
        }
        set_reason(fmt::format("cannot write new certificates into the Secret {}: {}{}", where, e.describe(),
                               secret ? "" : " (deploy/ ships this Secret: kubectl apply -k deploy/)"));
        return t + options.retry_interval;
      }
      spdlog::info("webhook certificates: wrote new ones into the Secret {} ({})", where, decision.why);
      bundle = std::move(*made);
    }
    if (auto st = install(bundle); !st) {
      set_reason(fmt::format("the certificates of the Secret {} do not load: {}", where, st.error().message));
      return t + options.retry_interval;
    }
    set_reason(validity_problem());
    if (options.registration != Registration::None && !register_webhooks(bundle.ca_cert_pem)) {
      return t + options.retry_interval;
    }
    auto next = decide_rotation(bundle, options.hosts, t, options.policy).renew_at;
    return std::min(next, t + options.check_interval);
  }

  /// Whether both configurations (and the CRDs' conversion) are registered.
  bool register_webhooks(const std::string& ca_pem) {
    if (client == nullptr) return true;
    client::BlockingClient api(*client);
    std::string problems;
    WebhookTarget target = options.target;
    target.ca_bundle_pem = ca_pem;
    for (bool mutating : {true, false}) {
      const auto& resource =
          mutating ? resources::kMutatingWebhookConfiguration : resources::kValidatingWebhookConfiguration;
      const std::string_view name = mutating ? kMutatingConfigurationName : kValidatingConfigurationName;
      auto live = api.get(resource, "", name);
      if (!live && !live.error().is_not_found()) {
        problems += fmt::format("cannot read {} {}: {}; ", resource.kind, name, live.error().describe());
        continue;
      }
      if (options.registration == Registration::CaBundle) {
        if (!live) {
          problems += fmt::format("{} {} does not exist (kubectl apply -k deploy/ creates it); ", resource.kind, name);
          continue;
        }
        auto patch = ca_bundle_patch(live->json(), ca_pem);
        if (!patch) continue;
        auto patched = api.patch(resource, "", name, client::PatchType::StrategicMerge, *patch);
        if (!patched) problems += fmt::format("cannot set the caBundle of {} {}: {}; ", resource.kind, name, patched.error().describe());
        else spdlog::info("webhook registration: caBundle of {} {} set", resource.kind, name);
        continue;
      }
      json::value desired = mutating ? mutating_configuration(target) : validating_configuration(target);
      if (!live) {
        auto created = api.create(resource, client::Object(std::move(desired)));
        if (!created) problems += fmt::format("cannot create {} {}: {}; ", resource.kind, name, created.error().describe());
        else spdlog::info("webhook registration: created {} {} for {}", resource.kind, name, target.url_base);
        continue;
      }
      auto updated = updated_configuration(live->json(), desired);
      if (!updated) continue;
      // A merge patch replaces the webhooks list whole, and needs no more than the patch
      // verb that the caBundle registration needs too (deploy/rbac grants get and patch).
      json::value webhooks = json::object{{"webhooks", updated->get_object().at("webhooks")}};
      auto written = api.patch(resource, "", name, client::PatchType::Merge, webhooks);
      if (!written) problems += fmt::format("cannot update {} {}: {}; ", resource.kind, name, written.error().describe());
      else spdlog::info("webhook registration: updated {} {} for {}", resource.kind, name, target.url_base);
    }
    register_crd_conversion(api, target, problems);
    note_registration(problems);
    return problems.empty();
  }

  // The CRDs' conversion webhook follows the same target and CA. A CRD that is missing,
  // or one whose conversion is not by Webhook, is not a problem: kueuepp then serves
  // v1beta2 only, as CRDs of another origin may.
  void register_crd_conversion(client::BlockingClient& api, const WebhookTarget& target, std::string& problems) {
    for (const auto name : converted_crd_names()) {
      auto live = api.get(resources::kCustomResourceDefinition, "", name);
      if (!live) {
        if (!live.error().is_not_found()) {
          problems += fmt::format("cannot read CustomResourceDefinition {}: {}; ", name, live.error().describe());
        }
        continue;
      }
      auto patch = crd_conversion_patch(live->json(), target);
      if (!patch) continue;
      auto patched = api.patch(resources::kCustomResourceDefinition, "", name, client::PatchType::Merge, *patch);
      if (!patched) {
        problems += fmt::format("cannot set the conversion webhook of CustomResourceDefinition {}: {}; ", name,
                                patched.error().describe());
      } else {
        spdlog::info("webhook registration: conversion webhook of CustomResourceDefinition {} set", name);
      }
    }
  }

  void run() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      poked = false;
      lock.unlock();
      Clock::time_point next;
      switch (options.source) {
        case CertificateSource::Files: next = step_files(); break;
        case CertificateSource::Generated: next = step_generated(); break;
        case CertificateSource::Secret: next = step_secret(); break;
      }
      lock.lock();
      ++steps;
      // The deadline is on the given clock; the wait is on the steady one (a test clock
      // far ahead must not make it spin, one far behind must not make it sleep forever).
      auto wait = std::clamp<std::chrono::steady_clock::duration>(next - now(), std::chrono::milliseconds(0),
                                                                  options.check_interval);
      wake.wait_for(lock, wait, [&] { return stopping || poked; });
    }
  }
};

CertManager::CertManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CertManager::~CertManager() { stop(); }

Expected<std::unique_ptr<CertManager>> CertManager::start(CertManagerOptions options, client::Client* client,
                                                          WebhookServer& server) {
  if (auto st = check_policy(options.policy); !st) return fail("webhook certificate policy: " + st.error().message);
  if (options.source == CertificateSource::Files && options.cert_dir.empty()) return fail("no certificate directory given");
  if (options.source != CertificateSource::Files && options.hosts.empty()) {
    return fail("the serving certificate needs the names it is reached by");
  }
  const bool needs_client = options.source == CertificateSource::Secret || options.registration != Registration::None;
  if (needs_client && client == nullptr) return fail("the webhook certificates need an API client");
  if (options.registration == Registration::Url && options.target.url_base.empty()) {
    return fail("registration by URL needs a URL");
  }
  auto impl = std::make_unique<Impl>(std::move(options), client, server);
  auto* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<CertManager>(new CertManager(std::move(impl)));
}

std::string CertManager::not_ready_reason() const {
  std::string problem = impl_->validity_problem();
  std::lock_guard lock(impl_->mutex);
  if (!problem.empty()) return impl_->reason.empty() ? problem : impl_->reason;
  // Until the configurations name this CA, the API server cannot call the webhooks.
  if (impl_->options.registration != Registration::None && !impl_->registered) {
    return impl_->last_registration_problem.empty()
               ? "the webhook configurations are not registered yet"
               : "the webhook configurations are not registered: " + impl_->last_registration_problem;
  }
  return {};
}

std::string CertManager::ca_bundle() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ca_bundle;
}

void CertManager::poke() {
  std::lock_guard lock(impl_->mutex);
  impl_->poked = true;
  impl_->wake.notify_all();
}

std::uint64_t CertManager::steps() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->steps;
}

void CertManager::stop() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopping && !impl_->thread.joinable()) return;
    impl_->stopping = true;
    impl_->wake.notify_all();
  }
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace kueuepp::kube::webhook

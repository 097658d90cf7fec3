#include "kube/apiserver/server/api_server.hpp"

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/outbound/https_transport.hpp"
#include "kube/apiserver/server/aggregation/aggregator.hpp"
#include "kube/apiserver/server/outbound/https_backend_transport.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/admission/webhook_admission.hpp"
#include "kube/apiserver/server/api/api_handler.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/bootstrap.hpp"
#include "kube/apiserver/server/controllers/cluster_role_aggregation.hpp"
#include "kube/apiserver/server/controllers/crd_controller.hpp"
#include "kube/apiserver/server/controllers/garbage_collector.hpp"
#include "kube/apiserver/server/controllers/namespace_controller.hpp"
#include "kube/apiserver/server/controllers/service_account_controller.hpp"
#include "kube/apiserver/server/crd_loader.hpp"
#include "kube/apiserver/server/kubeconfig_writer.hpp"
#include "kube/apiserver/server/net/asio_scheduler.hpp"
#include "kube/apiserver/server/net/listener.hpp"
#include "kube/apiserver/server/net/session_registry.hpp"
#include "kube/apiserver/server/persist/durable_store.hpp"
#include "kube/apiserver/server/api/token_request.hpp"
#include "kube/apiserver/server/service_account_keys.hpp"
#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/tls/tls_setup.hpp"
#include "kube/apiserver/server/util/ids.hpp"

namespace kueuepp::kube::server {

namespace net = boost::asio;

namespace {

class ApiServerImpl final : public ApiServer {
 public:
  explicit ApiServerImpl(ApiServerOptions options)
      : options_(std::move(options)),
        scheduler_(io_),
        ctx_(scheduler_, options_.watch_history),
        gc_(ctx_),
        namespaces_(ctx_),
        service_accounts_(ctx_),
        role_aggregation_(ctx_),
        crds_(ctx_),
        https_client_(make_https_backend_transport(io_)),
        webhook_transport_(make_https_transport(*https_client_)),
        admission_(ctx_, *webhook_transport_, WebhookAdmissionOptions{options_.webhook_service_host}) {
    register_builtin_kinds(ctx_.registry, ctx_.store);
    ctx_.admission = &admission_;
    ctx_.conversion_calls.transport = webhook_transport_.get();
    ctx_.conversion_calls.service_host = options_.webhook_service_host;
    ctx_.conversion_calls.services = [this](std::string_view ns, std::string_view name) -> std::optional<json::value> {
      ObjectPtr svc = ctx_.store.get(ctx_.store.bucket("/services"), std::string(ns) + "/" + std::string(name));
      if (!svc) return std::nullopt;
      return svc->doc;
    };
    ctx_.observe([this](const Change& c) { admission_.observe(c); });
    ctx_.observe([this](const Change& c) { crds_.observe(c); });
    ctx_.observe([this](const Change& c) { gc_.observe(c); });
    ctx_.observe([this](const Change& c) { namespaces_.observe(c); });
    ctx_.observe([this](const Change& c) { service_accounts_.observe(c); });
    ctx_.observe([this](const Change& c) { role_aggregation_.observe(c); });
  }

  ~ApiServerImpl() override { stop(); }

  Status init() {
    if (auto st = make_aggregator(); !st) return st;
    if (!options_.data_dir.empty()) {
      auto durable = DurableStore::open(options_.data_dir, io_, options_.fsync);
      if (!durable) return fail(durable.error().message);
      durable_ = std::move(*durable);
      if (auto st = durable_->recover(ctx_.store); !st) return st;
      crds_.load_all();
      gc_.sweep();
      namespaces_.sweep();
      ctx_.journal = durable_.get();
    }
    // Everything recovered is durable; what follows is published as it becomes so.
    ctx_.watches.set_published_rv(ctx_.store.current_rv());
    if (auto st = create_bootstrap_objects(ctx_); !st) return st;
    role_aggregation_.sweep();
    service_accounts_.sweep();
    if (auto st = publish_front_proxy(); !st) return st;
    aggregator_->start();
    auto installed = install_crds(ctx_, options_.crd_paths);
    if (!installed) return fail(installed.error().message);
    if (*installed > 0) spdlog::info("installed {} CustomResourceDefinitions from --crds", *installed);

    std::shared_ptr<const auth::CertificateAuthenticator> certificates;
    if (!options_.client_ca_file.empty()) {
      if (!options_.tls) return fail("--client-ca-file needs TLS (--tls): client certificates come with the TLS handshake");
      auto loaded = auth::CertificateAuthenticator::from_file(options_.client_ca_file);
      if (!loaded) return fail(loaded.error().message);
      certificates = std::make_shared<const auth::CertificateAuthenticator>(std::move(*loaded));
    }
    if (options_.tls) {
      token_ = options_.bearer_token.empty() ? random_hex(24) : options_.bearer_token;
      auto tls = make_tls(options_.data_dir, token_, certificates ? certificates->ca_bundle_pem() : std::string());
      if (!tls) return fail(tls.error().message);
      tls_ = std::move(tls->context);
      ca_pem_ = std::move(tls->ca_pem);
      // A token kept in the data directory stays valid across restarts.
      if (options_.bearer_token.empty() && !tls->stored_token.empty()) token_ = tls->stored_token;
    } else {
      token_ = options_.bearer_token;
    }
    SessionLimits limits;
    limits.stream_buffer_limit = options_.watch_buffer_bytes;
    // Static users need the server's own token beside them: its kubeconfig and the
    // standalone controller hold it.
    if (token_.empty() && (!options_.token_auth_file.empty() || certificates)) token_ = random_hex(24);
    auto service_accounts = make_service_account_tokens();
    if (!service_accounts) return fail(service_accounts.error().message);
    std::shared_ptr<auth::TokenAuthenticator> authenticator;
    if (!token_.empty()) {
      authenticator = std::make_shared<auth::TokenAuthenticator>(token_);
      if (!options_.token_auth_file.empty()) {
        if (auto st = authenticator->load_token_file(options_.token_auth_file); !st) return st;
      }
      authenticator->set_service_account_tokens(*service_accounts);
    }
    ApiHandlerOptions handler_options{authenticator, certificates, *service_accounts, "", options_.request_observer,
                                      options_.max_requests_inflight, options_.max_mutating_requests_inflight};
    handler_ = std::make_unique<ApiHandler>(ctx_, std::move(handler_options));
    auto listener = Listener::bind(io_, options_.listen, *handler_, limits, sessions_, tls_.get());
    if (!listener) return fail(listener.error().message);
    listener_ = std::move(*listener);
    port_ = listener_->port();
    std::string host = listener_->host();
    if (host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    std::string authority = host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port_)
                                                                  : fmt::format("{}:{}", host, port_);
    url_ = fmt::format("{}://{}", tls_ ? "https" : "http", authority);
    handler_->set_server_address(authority);
    listener_->start();
    schedule_bookmarks();
    guard_.emplace(net::make_work_guard(io_));
    // Said before the io thread starts, so that this thread's first logging call (which
    // may construct spdlog's registry) happens before that thread's logging, as
    // ThreadSanitizer can see; the listener already queues connections.
    spdlog::info("API server serving on {}", url_);
    thread_ = std::thread([this] {
      try {
        io_.run();
      } catch (const std::exception& e) {
        spdlog::critical("API server io thread failed: {}", e.what());
      }
      std::lock_guard lock(exit_mutex_);
      exited_ = true;
      exit_cv_.notify_all();
    });
    return {};
  }

  std::uint16_t port() const override { return port_; }
  std::string url() const override { return url_; }
  std::string bearer_token() const override { return token_; }
  std::string ca_certificate_pem() const override { return ca_pem_; }

  Status write_kubeconfig(const std::string& path) const override {
    return write_kubeconfig_file(path, KubeconfigContent{url_, ca_pem_, token_});
  }

  void stop() override {
    if (stopped_.exchange(true)) return;
    if (thread_.joinable()) {
      std::promise<void> closed;
      net::post(io_, [this, &closed] {
        if (handler_) handler_->set_ready(false);
        if (listener_) listener_->stop();
        if (bookmark_timer_) bookmark_timer_->cancel();
        if (aggregator_) aggregator_->stop();
        sessions_.shutdown_all();
        closed.set_value();
      });
      closed.get_future().wait_for(std::chrono::seconds(5));
      guard_.reset();
      std::unique_lock lock(exit_mutex_);
      if (!exit_cv_.wait_for(lock, std::chrono::seconds(2), [this] { return exited_; })) io_.stop();
      lock.unlock();
      thread_.join();
    }
    if (durable_) durable_->close();
    spdlog::info("API server stopped");
  }

 private:
  /// The aggregator and the front proxy's credentials (made afresh at every start).
  Status make_aggregator() {
    auto credentials = front_proxy_credentials(options_.data_dir.empty() ? "" : options_.data_dir + "/pki");
    if (!credentials) return fail(credentials.error().message);
    AggregatorOptions aggregation;
    aggregation.service_host = options_.webhook_service_host;
    aggregation.request_timeout = options_.aggregated_request_timeout;
    aggregation.check_interval = options_.apiservice_check_interval;
    aggregation.check_timeout = options_.apiservice_check_timeout;
    aggregator_ = std::make_unique<Aggregator>(ctx_, *https_client_, std::move(*credentials), aggregation);
    ctx_.aggregated = aggregator_.get();
    ctx_.observe([this](const Change& c) { aggregator_->observe(c); });
    return {};
  }

  /// Issues and checks ServiceAccount tokens; they are checked against the store, on
  /// the io thread where requests are handled.
  Expected<std::shared_ptr<const auth::ServiceAccountTokens>> make_service_account_tokens() {
    auto keys = load_service_account_keys(options_.service_account_signing_key_file, options_.service_account_key_files,
                                          options_.data_dir);
    if (!keys) return unexpected(keys.error());
    auth::ServiceAccountTokenOptions o;
    o.issuer = options_.service_account_issuer;
    o.api_audiences = options_.api_audiences;
    o.signing_key = std::move(keys->signing_key);
    o.verification_keys = std::move(keys->verification_keys);
    o.live_uid = [this](std::string_view kind, std::string_view ns, std::string_view name) {
      return live_object_uid(ctx_, kind, ns, name);
    };
    o.now = [] {
      return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    };
    return std::make_shared<const auth::ServiceAccountTokens>(std::move(o));
  }

  /// ConfigMap kube-system/extension-apiserver-authentication: where aggregated API
  /// servers find the front-proxy CA and header names.
  Status publish_front_proxy() {
    const ResourceType* config_maps = ctx_.registry.find("", "v1", "configmaps");
    return upsert_object(ctx_, *config_maps, authentication_config_map(aggregator_->credentials(), ""), "kueuepp");
  }

  void schedule_bookmarks() {
    bookmark_timer_ = scheduler_.after(options_.bookmark_interval, [this] {
      // Not the store's latest version: changes still waiting for the disk have not been
      // sent, and a bookmark promises the client every change up to its version.
      ctx_.watches.bookmark(ctx_.watches.published_rv());
      schedule_bookmarks();
    });
  }

  ApiServerOptions options_;
  SessionRegistry sessions_;
  net::io_context io_;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard_;
  AsioScheduler scheduler_;
  ServerContext ctx_;
  GarbageCollector gc_;
  NamespaceController namespaces_;
  ServiceAccountController service_accounts_;
  ClusterRoleAggregationController role_aggregation_;
  CrdController crds_;
  /// The one HTTPS client of webhooks and aggregated APIs, whose kept-alive connections
  /// they share.
  std::unique_ptr<BackendTransport> https_client_;
  std::unique_ptr<WebhookTransport> webhook_transport_;
  WebhookAdmission admission_;
  std::unique_ptr<Aggregator> aggregator_;
  std::unique_ptr<DurableStore> durable_;
  std::unique_ptr<net::ssl::context> tls_;
  std::unique_ptr<ApiHandler> handler_;
  std::shared_ptr<Listener> listener_;
  std::shared_ptr<TimerHandle> bookmark_timer_;
  std::uint16_t port_ = 0;
  std::string url_;
  std::string token_;
  std::string ca_pem_;
  std::thread thread_;
  std::atomic<bool> stopped_{false};
  std::mutex exit_mutex_;
  std::condition_variable exit_cv_;
  bool exited_ = false;
};

}  // namespace

Expected<std::unique_ptr<ApiServer>> ApiServer::start(ApiServerOptions options) {
  auto server = std::make_unique<ApiServerImpl>(std::move(options));
  if (auto st = server->init(); !st) return unexpected(st.error());
  return std::unique_ptr<ApiServer>(std::move(server));
}

}  // namespace kueuepp::kube::server

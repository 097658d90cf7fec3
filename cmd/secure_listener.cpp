#include "cmd/secure_listener.hpp"

#include <boost/asio/ssl/context.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "kube/auth/caching_token_authenticator.hpp"
#include "kube/auth/kube_reviews.hpp"
#include "kube/auth/non_resource_filter.hpp"
#include "kube/tls/client_certificate.hpp"
#include "kube/tls/server_context.hpp"
#include "kube/webhook/certificates.hpp"

namespace kueuepp::cmd {

namespace {

namespace fs = std::filesystem;
using SslContext = std::shared_ptr<boost::asio::ssl::context>;

Expected<std::string> read_file(const std::string& path, std::string_view flag) {
  std::ifstream in(path);
  if (!in) return fail(std::string(flag) + ": cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The TLS context of the listener: from the directory's files, made again when they
/// change, or one self-signed context for the process's life.
class ServingContext {
 public:
  static Expected<std::shared_ptr<ServingContext>> make(const SecureListenerOptions& o, std::string client_ca_pem) {
    auto s = std::make_shared<ServingContext>();
    s->dir_ = o.cert_dir;
    s->client_ca_pem_ = std::move(client_ca_pem);
    if (o.cert_dir.empty()) {
      kube::webhook::CertificateRequest req;
      req.hosts = o.hosts;
      req.now = std::chrono::system_clock::now();
      auto bundle = kube::webhook::generate_bundle(req);
      if (!bundle) return fail("the secure listener's self-signed certificate: " + bundle.error().message);
      auto ctx = s->context_of(bundle->cert_pem + bundle->ca_cert_pem, bundle->key_pem);
      if (!ctx) return unexpected(ctx.error());
      s->context_ = std::move(*ctx);
      return s;
    }
    if (auto st = s->reload(); !st) return unexpected(st.error());
    return s;
  }

  /// The context for a new connection (the files read again if they changed).
  SslContext current() {
    std::lock_guard lock(mutex_);
    if (!dir_.empty() && stamp() != stamp_) {
      if (auto st = reload_locked(); !st) spdlog::warn("secure listener: keeping the certificate: {}", st.error().message);
    }
    return context_;
  }

 private:
  Status reload() {
    std::lock_guard lock(mutex_);
    return reload_locked();
  }

  Status reload_locked() {
    const auto seen = stamp();
    auto cert = read_file(dir_ + "/tls.crt", "--secure-cert-dir");
    auto key = read_file(dir_ + "/tls.key", "--secure-cert-dir");
    if (!cert || !key) return unexpected(cert ? key.error() : cert.error());
    auto ctx = context_of(*cert, *key);
    if (!ctx) return unexpected(ctx.error());
    context_ = std::move(*ctx);
    stamp_ = seen;
    return {};
  }

  Expected<SslContext> context_of(const std::string& cert_pem, const std::string& key_pem) const {
    auto ctx = kube::tls::make_server_context(cert_pem, key_pem, "the secure metrics listener");
    if (!ctx) return unexpected(ctx.error());
    if (!client_ca_pem_.empty()) kube::tls::request_client_certificates((*ctx)->native_handle(), client_ca_pem_);
    return std::move(*ctx);
  }

  /// When the files last changed (cert-manager replaces them through a symlink).
  std::pair<fs::file_time_type, fs::file_time_type> stamp() const {
    std::error_code a, b;
    return {fs::last_write_time(dir_ + "/tls.crt", a), fs::last_write_time(dir_ + "/tls.key", b)};
  }

  std::mutex mutex_;
  std::string dir_;
  std::string client_ca_pem_;
  SslContext context_;
  std::pair<fs::file_time_type, fs::file_time_type> stamp_;
};

}  // namespace

Expected<std::unique_ptr<ProbeServer>> start_secure_listener(const SecureListenerOptions& options,
                                                             kube::client::Client& client, ProbeHandler handler,
                                                             ProbeServerOptions server_options) {
  std::string client_ca_pem;
  if (!options.client_ca_file.empty()) {
    auto pem = read_file(options.client_ca_file, "--secure-client-ca-file");
    if (!pem) return unexpected(pem.error());
    if (kube::tls::count_pem_certificates(*pem) == 0) {
      return fail("--secure-client-ca-file " + options.client_ca_file + " holds no PEM certificate");
    }
    client_ca_pem = std::move(*pem);
  }
  auto serving = ServingContext::make(options, client_ca_pem);
  if (!serving) return unexpected(serving.error());
  auto reviews = std::make_shared<kube::auth::ApiServerReviews>(client);
  auto authorizer = std::make_shared<kube::auth::CachingAuthorizer>(reviews, options.authorization_ttl);
  auto tokens = std::make_shared<kube::auth::CachingTokenAuthenticator>(reviews, options.authorization_ttl);
  auto gate = std::make_shared<const kube::auth::NonResourceGate>(tokens, authorizer, std::move(client_ca_pem));
  server_options.tls = [serving = *serving] { return serving->current(); };
  // The decision's callback holds the gate: a review answered after the server stopped
  // finds it still there.
  server_options.gate = [gate](const ProbeRequest& request, std::function<void(std::optional<ProbeRefusal>)> decide) {
    kube::auth::GateRequest asked{request.method, request.target, request.headers, request.peer_chain_der};
    gate->check(asked, [gate, decide = std::move(decide), target = request.target](kube::auth::GateDecision d) {
      if (d.allowed) {
        spdlog::debug("secure listener: {} allowed {}", d.user.name, target);
        decide(std::nullopt);
        return;
      }
      decide(ProbeRefusal{d.status, "application/json", std::move(d.body)});
    });
  };
  auto server = ProbeServer::start(options.listen, std::move(handler), std::move(server_options));
  if (!server) return fail("--secure-listen " + options.listen + ": " + server.error().message);
  return server;
}

}  // namespace kueuepp::cmd

#pragma once

// Keeps the webhook server's TLS certificate valid while it runs, on a thread of its own
// (it waits on the API server with the blocking client):
//   - Secret (in a cluster, the default): the CA and the serving certificate live in a
//     Secret of kueuepp's namespace (keys ca.crt, ca.key, tls.crt, tls.key, as Kueue's
//     internal certificate management keeps them). Every replica reads it; the one that
//     finds it empty or near expiry writes new certificates, conditional on the version
//     it read (a replica that loses the race reads the winner's); each replica loads
//     what the Secret holds.
//   - Generated: the same certificates kept in memory (a controller outside the cluster).
//   - Files: tls.crt and tls.key (and ca.crt) from a directory cert-manager fills in,
//     loaded again when they change.
// Registration: the caBundle patched into the two webhook configurations deploy/ ships
// (by Service), or the configurations written whole by URL (outside the cluster); the
// Kueue CRDs' conversion webhook likewise (crd_conversion_registration.hpp).
// New connections get the new certificate at once; no restart.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/webhook/cert_rotation.hpp"
#include "kube/webhook/webhook_configurations.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::kube::webhook {

class WebhookServer;

enum class CertificateSource : std::uint8_t { Secret, Generated, Files };
enum class Registration : std::uint8_t {
  None,      ///< somebody else writes the configurations (tests, cert-manager's injector)
  CaBundle,  ///< patch caBundle into the configurations that exist (by Service)
  Url,       ///< create or update the configurations, by URL, with the caBundle
};

struct CertManagerOptions {
  CertificateSource source = CertificateSource::Secret;
  Registration registration = Registration::CaBundle;
  std::string cert_dir;  ///< Files: tls.crt, tls.key, and ca.crt if there is one
  std::string secret_namespace = "kueuepp-system";
  std::string secret_name = "kueuepp-webhook-server-cert";
  /// The names the serving certificate must carry (Secret, Generated).
  std::vector<std::string> hosts;
  /// The configurations' clientConfig (Url) and excluded namespaces.
  WebhookTarget target;
  RotationPolicy policy;
  /// How often the Secret (or the files) is read again: another replica's rotation is
  /// picked up within this, and a failed step is retried after retry_interval.
  std::chrono::milliseconds check_interval{60'000};
  std::chrono::milliseconds retry_interval{5'000};
  /// Tests give the clock; production uses the system clock.
  std::function<Clock::time_point()> clock;
};

class CertManager {
 public:
  /// Starts the thread; the first step runs at once. `client` (null for Files or
  /// Generated without registration) and `server` must outlive the manager.
  static Expected<std::unique_ptr<CertManager>> start(CertManagerOptions options, client::Client* client,
                                                      WebhookServer& server);
  ~CertManager();
  CertManager(const CertManager&) = delete;
  CertManager& operator=(const CertManager&) = delete;

  /// "" once the server serves a certificate valid now; else what is missing and what to do.
  std::string not_ready_reason() const;
  /// The PEM CA bundle that verifies the serving certificate ("" when unknown: Files
  /// without ca.crt).
  std::string ca_bundle() const;
  /// Runs a step now (tests; a rotation elsewhere picked up at once).
  void poke();
  std::uint64_t steps() const;
  void stop();

  struct Impl;

 private:
  explicit CertManager(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::kube::webhook

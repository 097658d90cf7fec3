#pragma once

// The secure metrics and introspection listener: what the probe server serves (/metrics,
// /debug/..., the web view and its event stream) over HTTPS, every request authenticated
// and authorized by the cluster (kube/auth's NonResourceGate: TokenReview, client
// certificates of a client CA, SubjectAccessReview on the non-resource URL), as Kueue
// serves its metrics with controller-runtime's secure serving.
//
// The serving certificate is tls.crt and tls.key of a directory (read again when they
// change, for cert-manager), else one made at start, self-signed, for the metrics
// Service's names (as controller-runtime does when it is given no certificate; a
// scraper then skips verification, as Kueue's ServiceMonitor does).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cmd/standalone/probe_server.hpp"
#include "core/expected.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

struct SecureListenerOptions {
  std::string listen;          ///< ADDR:PORT
  std::string cert_dir;        ///< tls.crt and tls.key; empty: a self-signed certificate
  std::string client_ca_file;  ///< client certificates signed by its CAs authenticate; empty: none
  std::vector<std::string> hosts;  ///< the names of a self-signed certificate
  /// How long a SubjectAccessReview's or a TokenReview's answer is kept.
  std::chrono::milliseconds authorization_ttl{10'000};
};

/// Starts the listener; `client` makes the reviews and must outlive the server.
Expected<std::unique_ptr<ProbeServer>> start_secure_listener(const SecureListenerOptions& options,
                                                             kube::client::Client& client, ProbeHandler handler,
                                                             ProbeServerOptions server_options);

}  // namespace kueuepp::cmd

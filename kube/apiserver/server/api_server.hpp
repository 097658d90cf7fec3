#pragma once

// The embedded Kubernetes-compatible API server. It speaks HTTP/1.1 like kube-apiserver
// (discovery, CRUD, patches, watch, CRDs with schema validation) so that kueuepp runs
// standalone and every test exercises the same HTTP path as production.
//
// Threads: one io thread runs the network and every request (store mutations are thus
// serialized without locks); with a data directory a second thread writes the
// write-ahead log. Durability (see kube/apiserver/server/persist/durable_store.hpp): an answer to a
// write is sent only once the write is fsync'ed (group commit: one fsync per batch of
// writes that arrived while the previous batch was being synced).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

/// One resource request as RBAC sees it (discovery and health paths are not reported).
/// The fields are kube-apiserver's authorization attributes (its RequestInfoFactory):
/// so a list or watch whose fieldSelector is `metadata.name=X` names X, and a request
/// for a Namespace (/api/v1/namespaces/X...) is in namespace X, as RBAC reads them.
struct ApiRequestRecord {
  std::string verb;         ///< get, list, watch, create, update, patch, delete, deletecollection
  std::string group;        ///< "" for the core group
  std::string version;
  std::string resource;     ///< plural, e.g. "workloads"
  std::string subresource;  ///< "status" or empty
  std::string ns;           ///< empty for cluster-scoped requests and cluster-wide lists/watches
  std::string name;         ///< empty for list/watch/create/deletecollection
  std::string user_agent;   ///< the User-Agent header
  int status = 0;           ///< the HTTP status answered
};

struct ApiServerOptions {
  /// ADDR:PORT to listen on; port 0 picks a free port (tests).
  std::string listen = "127.0.0.1:6443";
  /// Empty: memory only. Otherwise every acknowledged write survives a restart.
  std::string data_dir;
  /// CRD manifests (files or directories of YAML) installed before serving.
  std::vector<std::string> crd_paths;
  /// Serve HTTPS with a generated CA and require this bearer token (empty: plain HTTP,
  /// no authentication, loopback only). With tls and an empty token, one is generated.
  bool tls = false;
  std::string bearer_token;
  /// kube-apiserver's --token-auth-file: a CSV of token,user,uid[,"group1,group2"]. Its
  /// users are authorized by RBAC (the bearer token above stays system:masters). Setting
  /// it turns authentication on even without a bearer token.
  std::string token_auth_file;
  /// kube-apiserver's --client-ca-file (needs tls): a TLS client whose certificate this
  /// bundle signed (extKeyUsage clientAuth) is the user of its subject's CN, in the groups
  /// of its O entries, authorized by RBAC unless one of them is system:masters. Setting it
  /// turns authentication on even without a bearer token.
  std::string client_ca_file;

  /// ServiceAccount tokens (the TokenRequest subresource, `kubectl create token`), as
  /// kube-apiserver's flags of the same names: the tokens' issuer (iss), the audiences a
  /// token must name to authenticate requests (empty: the issuer), the PEM private key
  /// that signs them (empty: the data directory's, made on first start, or one made at
  /// start without a data directory), and PEM files of more keys that verify them.
  std::string service_account_issuer = "https://kubernetes.default.svc.cluster.local";
  std::vector<std::string> api_audiences;
  std::string service_account_signing_key_file;
  std::vector<std::string> service_account_key_files;

  /// kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight:
  /// requests of users outside system:masters in flight at once (reads, and writes,
  /// apart) before more are answered 429; watches are not counted. 0: no limit.
  std::size_t max_requests_inflight = 400;
  std::size_t max_mutating_requests_inflight = 200;

  /// Changes kept for watches and consistent lists; older resourceVersions answer 410.
  std::size_t watch_history = 25000;
  /// With data_dir: fsync before acknowledging. Turn off only for throwaway data.
  bool fsync = true;
  /// How often watches that allow bookmarks get one.
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
  /// Bytes a watch may have queued for a slow client before it is ended (410).
  std::size_t watch_buffer_bytes = 64u << 20;
  /// Called once per resource request, on the server's io thread, after the answer is
  /// decided (for a watch, when it is established), refused requests included (the
  /// status says how each was answered). Must not block: it holds up every request.
  std::function<void(const ApiRequestRecord&)> request_observer;

  /// Where a webhook configured by Service reference (clientConfig.service) is called:
  /// this host, at the targetPort the Service gives for the port named (that port when
  /// the Service names no targetPort); the certificate must be valid for
  /// <service>.<namespace>.svc. Webhooks configured by URL are called at their URL.
  std::string webhook_service_host = "127.0.0.1";

  /// Aggregated APIs (apiregistration.k8s.io APIServices with a service, reached as
  /// webhooks are): how long a proxied request that is not a watch may take before it is
  /// answered 504 (kube-apiserver's --request-timeout), how often an available
  /// APIService's backend is checked again, and how long a check may take.
  std::chrono::milliseconds aggregated_request_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds apiservice_check_interval{std::chrono::seconds(30)};
  std::chrono::milliseconds apiservice_check_timeout{std::chrono::seconds(5)};
};

class ApiServer {
 public:
  /// Binds, loads the data directory and the CRDs, and starts serving on its own
  /// threads. The error says what failed (address in use, unreadable data dir, bad CRD).
  static Expected<std::unique_ptr<ApiServer>> start(ApiServerOptions options);

  virtual ~ApiServer() = default;
  /// The bound port (useful with port 0).
  virtual std::uint16_t port() const = 0;
  /// Base URL, e.g. http://127.0.0.1:6443.
  virtual std::string url() const = 0;
  /// Writes a kubeconfig that points kubectl (or kueuepp's client) at this server.
  virtual Status write_kubeconfig(const std::string& path) const = 0;
  /// Stops accepting, ends watches and in-flight requests, flushes the data directory.
  /// Idempotent; the destructor calls it.
  virtual void stop() = 0;

  /// The bearer token clients must send (empty without authentication).
  virtual std::string bearer_token() const = 0;
  /// The PEM of the CA that signed the serving certificate (empty without TLS).
  virtual std::string ca_certificate_pem() const = 0;
};

}  // namespace kueuepp::kube::server

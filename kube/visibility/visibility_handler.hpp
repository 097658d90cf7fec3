#pragma once

// One request of the visibility API from arrival to answer: authentication (front-proxy
// certificate and headers, else a bearer token through a TokenReview), authorization
// (a SubjectAccessReview, cached), then the page from the controller's queues. The
// HTTPS server (visibility_server.hpp) hands requests in; the controller provides the
// queues (PendingWorkloadsSource) and the reviews. Discovery documents and health paths
// are answered to any TLS client: they say only which API is served.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/pending_page.hpp"
#include "core/expected.hpp"
#include "kube/http/headers.hpp"
#include "kube/auth/delegated_auth.hpp"
#include "kube/visibility/visibility_api.hpp"
#include "kube/visibility/what_if_api.hpp"

namespace kueuepp::kube::visibility {

struct IncomingRequest {
  std::string method;
  std::string target;  ///< path and query
  http::Headers headers;
  /// The client's certificate chain as presented (DER, its own first); empty without one.
  std::vector<std::string> peer_chain_der;
  std::string body;  ///< a what-if question's object
};

struct Answer {
  int status = 200;
  std::string body;  ///< JSON
  int retry_after_seconds = 0;  ///< a Retry-After header when positive (429)
};
using Reply = std::function<void(Answer)>;

/// A page of one ClusterQueue (`local_queue` empty) or of one LocalQueue.
struct PendingWorkloadsQuery {
  std::string cluster_queue;
  std::string ns;
  std::string local_queue;
  core::PageBounds page;
};

struct PendingWorkloadsResult {
  bool found = false;  ///< the ClusterQueue (or LocalQueue) is known
  std::vector<PendingWorkloadItem> items;
};

/// The controller's queues. Answers on any thread, exactly once.
class PendingWorkloadsSource {
 public:
  using Callback = std::function<void(Expected<PendingWorkloadsResult>)>;
  virtual ~PendingWorkloadsSource() = default;
  virtual void pending_workloads(PendingWorkloadsQuery query, Callback done) = 0;
  using WhatIfCallback = std::function<void(Expected<WhatIfResult>)>;
  /// Answers a what-if question from the engine of the LocalQueue's tree; a source
  /// that has no engine says so.
  virtual void what_if(WhatIfQuery query, WhatIfCallback done) {
    (void)query;
    done(fail("this server answers no what-if questions"));
  }
};

/// How many what-if questions one replica answers at once. Each is answered on a copy of
/// its LocalQueue's cohort tree by that tree's actor, whose admissions wait meanwhile, so
/// questions beyond this get 429 and a Retry-After instead of delaying admission.
inline constexpr std::size_t kDefaultMaxWhatIfsInFlight = 2;

class VisibilityHandler {
 public:
  /// `tokens` may be null: bearer tokens are then refused (401).
  VisibilityHandler(std::shared_ptr<PendingWorkloadsSource> source, std::shared_ptr<auth::Authorizer> authorizer,
                    std::shared_ptr<auth::TokenAuthenticator> tokens,
                    std::size_t max_what_ifs_in_flight = kDefaultMaxWhatIfsInFlight);

  /// The front proxy's trust (from ConfigMap extension-apiserver-authentication);
  /// nullopt until it is read: front-proxy requests are refused meanwhile.
  void set_request_header_config(std::optional<auth::RequestHeaderConfig> config);

  /// Answers through `reply` exactly once, on any thread. The handler must outlive the
  /// answers of the reviews and the source it asked.
  void handle(IncomingRequest request, Reply reply);

 private:
  /// `body`: a what-if question's object (other routes: empty).
  void authorize(const Route& route, Expected<core::PageBounds> page, std::string body, const auth::UserInfo& user,
                 Reply reply);
  void serve(const Route& route, core::PageBounds page, Reply reply);
  void serve_what_if(const Route& route, std::string body, Reply reply);

  std::shared_ptr<PendingWorkloadsSource> source_;
  std::shared_ptr<auth::Authorizer> authorizer_;
  std::shared_ptr<auth::TokenAuthenticator> tokens_;
  mutable std::mutex mutex_;
  std::shared_ptr<const auth::RequestHeaderConfig> request_header_;
  std::size_t max_what_ifs_in_flight_;
  std::atomic<std::size_t> what_ifs_in_flight_{0};
};

}  // namespace kueuepp::kube::visibility

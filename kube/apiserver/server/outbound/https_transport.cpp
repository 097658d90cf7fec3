#include "kube/apiserver/server/outbound/https_transport.hpp"

#include <fmt/format.h>

#include "kube/http/headers.hpp"

namespace kueuepp::kube::server {

namespace {

/// One review's answer as it arrives; `done` is called once.
struct PendingReply {
  WebhookTarget target;
  WebhookTransport::Callback done;
  WebhookReply reply;
  bool setup_failed = false;  ///< no exchange was made (the CA bundle would not load)

  void answer(Expected<WebhookReply> result) {
    if (!done) return;
    auto callback = std::move(done);
    done = nullptr;
    if (!result) {
      auto text = setup_failed ? fmt::format("could not get REST client: {}", result.error().message)
                               : fmt::format("Post \"{}\": {}", target.display_url, result.error().message);
      result = fail(std::move(text));
    }
    callback(std::move(result));
  }
};

class HttpsTransport final : public WebhookTransport {
 public:
  explicit HttpsTransport(BackendTransport& backend) : backend_(backend) {}

  void post(const WebhookTarget& target, std::string body, std::chrono::milliseconds timeout,
            Callback done) override {
    auto pending = std::make_shared<PendingReply>(PendingReply{target, std::move(done), {}});
    BackendTarget where{.host = target.host, .port = target.port, .server_name = target.server_name,
                        .ca_pem = target.ca_pem};
    BackendRequest request{.method = "POST",
                           .target = target.path,
                           .headers = {{"Content-Type", "application/json"},
                                       {"Accept", "application/json, */*"},
                                       {"User-Agent", "kueuepp-apiserver"}},
                           .body = std::move(body),
                           .replayable = true};
    BackendTimeouts timeouts{.connect = timeout, .tls_handshake = timeout, .total = timeout};
    BackendHandlers handlers{
        .head =
            [pending](Expected<BackendResponseHead> head) {
              if (!head) return pending->answer(fail(head.error().message));
              pending->reply.status = head->status;
              for (const auto& [name, value] : head->headers) {
                if (http::iequals(name, "Content-Type")) pending->reply.content_type = value;
              }
            },
        .data =
            [pending](std::string piece) {
              if (pending->reply.body.size() + piece.size() > pending->target.max_response_bytes) {
                pending->answer(fail(fmt::format("net/http: response body larger than {} bytes",
                                                 pending->target.max_response_bytes)));
                return false;
              }
              pending->reply.body += piece;
              return true;
            },
        .end =
            [pending](Status ended) {
              if (!ended) return pending->answer(fail(ended.error().message));
              pending->answer(std::move(pending->reply));
            },
    };
    // The head's handler is always posted, so the flag is set before it can run.
    if (!backend_.send(where, std::move(request), timeouts, std::move(handlers))) pending->setup_failed = true;
  }

 private:
  BackendTransport& backend_;
};

}  // namespace

std::unique_ptr<WebhookTransport> make_https_transport(BackendTransport& backend) {
  return std::make_unique<HttpsTransport>(backend);
}

}  // namespace kueuepp::kube::server

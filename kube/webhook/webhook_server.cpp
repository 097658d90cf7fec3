#include "kube/webhook/webhook_server.hpp"

#include <boost/asio/ssl/context.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "kube/conversion/conversion_review.hpp"
#include "kube/serving/current_context.hpp"
#include "kube/serving/http_server.hpp"
#include "kube/tls/listen_endpoint.hpp"
#include "kube/tls/server_context.hpp"

namespace kueuepp::kube::webhook {

namespace {

std::string error_body(const std::string& uid, int code, std::string_view reason, std::string message) {
  return encode_admission_review(denied(uid, std::move(message), code, std::string(reason)));
}

serving::Response json_response(int status, std::string body, bool close = false) {
  return serving::Response{status, "application/json", std::move(body), {}, close};
}

std::string_view reason_of(int status) {
  switch (status) {
    case 413: return "RequestEntityTooLarge";
    case 431: return "RequestHeaderFieldsTooLarge";
    default: return "BadRequest";
  }
}

/// Counted from the server's threads and from replies that may come after it stopped.
struct Counters {
  std::atomic<std::uint64_t> requests{0}, answered{0}, bad_requests{0}, conversions{0};
};

}  // namespace

struct WebhookServer::Impl {
  WebhookServerOptions options;
  AdmissionHandler handler;
  std::shared_ptr<Counters> counters = std::make_shared<Counters>();

  serving::CurrentContext context;

  // Last: stopped before the members above go.
  std::unique_ptr<serving::HttpServer> server;

  void serve(serving::Request request, serving::Reply reply);
  void serve_conversion(const std::string& body, const serving::Reply& reply);
};

void WebhookServer::Impl::serve(serving::Request request, serving::Reply reply) {
  std::string_view path = std::string_view(request.target).substr(0, request.target.find('?'));
  if (request.method != "POST") {
    ++counters->bad_requests;
    reply(json_response(405, error_body("", 405, "MethodNotAllowed", "admission webhooks are called with POST")));
    return;
  }
  if (path == conversion::kConversionWebhookPath) return serve_conversion(request.body, reply);
  const WebhookSpec* webhook = find_webhook(path);
  if (webhook == nullptr) {
    ++counters->bad_requests;
    reply(json_response(404, error_body("", 404, "NotFound", fmt::format("no webhook is served at {}", path))));
    return;
  }
  auto decoded = decode_admission_review(request.body);
  if (!decoded) {
    ++counters->bad_requests;
    reply(json_response(400, error_body(uid_of(request.body), 400, "BadRequest",
                               "malformed AdmissionReview: " + decoded.error().message)));
    return;
  }
  ++counters->requests;
  // Counted before it is sent, so that a client that has the answer sees it counted.
  AdmissionReply answer = [reply = std::move(reply), counters = counters](AdmissionResponse response) {
    ++counters->answered;
    if (!reply(json_response(200, encode_admission_review(response)))) --counters->answered;  // too late
  };
  try {
    handler(*webhook, std::move(*decoded), std::move(answer));
  } catch (const std::exception& e) {
    spdlog::error("webhook {}: the handler failed: {}", webhook->name, e.what());
  }
}

// Conversion is pure and needs no cache of the controller's: answered here, on the
// server's thread, without the handler.
void WebhookServer::Impl::serve_conversion(const std::string& body, const serving::Reply& reply) {
  auto answer = conversion::answer_conversion_review(body);
  if (answer.http_status != 200) {
    ++counters->bad_requests;
    reply(serving::Response{answer.http_status, answer.content_type, std::move(answer.body), {}, false});
    return;
  }
  ++counters->requests;
  ++counters->conversions;
  ++counters->answered;
  reply(json_response(200, std::move(answer.body)));
}

WebhookServer::WebhookServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
WebhookServer::~WebhookServer() { stop(); }

Expected<std::unique_ptr<WebhookServer>> WebhookServer::start(WebhookServerOptions options, AdmissionHandler handler) {
  const std::string listen = options.listen;
  if (auto endpoint = tls::parse_listen_endpoint(listen); !endpoint) {
    return fail("webhook listen address " + endpoint.error().message);
  }
  auto impl = std::make_shared<Impl>();
  impl->options = std::move(options);
  impl->handler = std::move(handler);
  const auto& o = impl->options;
  serving::ServerOptions s;
  s.name = "webhook";
  s.threads = std::max<std::size_t>(o.threads, 1);
  s.max_connections = o.max_connections;
  // A ConversionReview may be far larger than an AdmissionReview (a list converted at
  // once): the body's limit depends on the path.
  s.max_body_bytes = std::max(o.max_body_bytes, o.max_conversion_body_bytes);
  s.body_limit = [admission = o.max_body_bytes, conversion = o.max_conversion_body_bytes](std::string_view path) {
    return path == conversion::kConversionWebhookPath ? conversion : admission;
  };
  s.handshake_timeout = o.handshake_timeout;
  s.read_timeout = o.read_timeout;
  s.write_timeout = o.write_timeout;
  s.answer_timeout = o.answer_timeout;
  s.timeout_response =
      json_response(500, error_body("", 500, "InternalError", "the controller did not answer in time"), true);
  s.stop_grace = o.stop_grace;
  s.tls = [raw = impl.get()] { return raw->context.get(); };
  s.error_response = [counters = impl->counters](int status, std::string message) {
    ++counters->bad_requests;
    return json_response(status, error_body("", status, reason_of(status), std::move(message)), true);
  };
  auto server = serving::HttpServer::start(
      listen, std::move(s),
      [raw = impl.get()](serving::Request request, serving::Reply reply) {
        raw->serve(std::move(request), std::move(reply));
      });
  if (!server) return fail("the webhook server cannot listen on " + listen + ": " + server.error().message);
  impl->server = std::move(*server);
  return std::unique_ptr<WebhookServer>(new WebhookServer(std::move(impl)));
}

Status WebhookServer::set_certificate(const std::string& cert_pem, const std::string& key_pem) {
  auto ctx = tls::make_server_context(cert_pem, key_pem, "the webhook");
  if (!ctx) return fail(ctx.error().message);
  impl_->context.set(std::move(*ctx));
  return {};
}

bool WebhookServer::has_certificate() const { return impl_->context.get() != nullptr; }

std::uint16_t WebhookServer::port() const { return impl_->server->port(); }

std::string WebhookServer::address() const { return impl_->server->address(); }

WebhookServerStats WebhookServer::stats() const {
  const auto served = impl_->server->stats();
  const auto& c = *impl_->counters;
  return WebhookServerStats{served.connections, served.refused,    served.tls_failures, c.requests.load(),
                            c.answered.load(),  served.timeouts,   c.bad_requests.load(), c.conversions.load()};
}

void WebhookServer::stop() {
  if (impl_ && impl_->server) impl_->server->stop();
}

}  // namespace kueuepp::kube::webhook

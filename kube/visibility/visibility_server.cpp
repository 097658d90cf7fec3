#include "kube/visibility/visibility_server.hpp"

#include <boost/asio/ssl/context.hpp>
#include <openssl/ssl.h>


#include "kube/serving/current_context.hpp"
#include "kube/serving/http_server.hpp"
#include "kube/tls/client_certificate.hpp"
#include "kube/tls/listen_endpoint.hpp"
#include "kube/tls/server_context.hpp"

namespace kueuepp::kube::visibility {

namespace {

serving::Response response_of(Answer answer) {
  serving::Response response;
  response.status = answer.status;
  response.content_type = answer.body.starts_with("{") ? "application/json" : "text/plain";
  if (answer.retry_after_seconds > 0) {
    response.headers.emplace_back("Retry-After", std::to_string(answer.retry_after_seconds));
  }
  response.body = std::move(answer.body);
  return response;
}

}  // namespace

struct VisibilityServer::Impl {
  RequestHandler handler;
  serving::CurrentContext context;
  // Last: stopped before the members above go.
  std::unique_ptr<serving::HttpServer> server;
};

VisibilityServer::VisibilityServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
VisibilityServer::~VisibilityServer() { stop(); }

Expected<std::unique_ptr<VisibilityServer>> VisibilityServer::start(VisibilityServerOptions options,
                                                                    RequestHandler handler) {
  const std::string listen = options.listen;
  if (auto endpoint = tls::parse_listen_endpoint(listen); !endpoint) {
    return fail("--visibility-listen " + endpoint.error().message);
  }
  auto impl = std::make_shared<Impl>();
  impl->handler = std::move(handler);
  serving::ServerOptions s;
  s.name = "visibility";
  s.max_connections = options.max_connections;
  s.max_body_bytes = 1024 * 1024;  // a what-if question carries a Job or Workload
  s.handshake_timeout = options.handshake_timeout;
  s.read_timeout = options.read_timeout;
  s.write_timeout = options.write_timeout;
  s.answer_timeout = options.answer_timeout;
  s.timeout_response = response_of(Answer{504, status_timeout("the controller did not answer in time")});
  s.tls = [raw = impl.get()] { return raw->context.get(); };
  auto serve = [raw = impl.get()](serving::Request r, serving::Reply reply) {
    IncomingRequest in{std::move(r.method), std::move(r.target), std::move(r.headers), std::move(r.peer_chain_der),
                       std::move(r.body)};
    raw->handler(std::move(in), [reply = std::move(reply)](Answer answer) { reply(response_of(std::move(answer))); });
  };
  auto server = serving::HttpServer::start(listen, std::move(s), std::move(serve));
  if (!server) return fail("the visibility server cannot listen on " + listen + ": " + server.error().message);
  impl->server = std::move(*server);
  return std::unique_ptr<VisibilityServer>(new VisibilityServer(std::move(impl)));
}

Status VisibilityServer::set_certificate(const std::string& cert_pem, const std::string& key_pem) {
  auto ctx = tls::make_server_context(cert_pem, key_pem, "the visibility server");
  if (!ctx) return fail(ctx.error().message);
  // The front-proxy CA may change while the server runs: the handler checks per request.
  tls::request_client_certificates((*ctx)->native_handle(), "");
  impl_->context.set(std::move(*ctx));
  return {};
}

std::uint16_t VisibilityServer::port() const { return impl_->server->port(); }

void VisibilityServer::stop() {
  if (impl_ && impl_->server) impl_->server->stop();
}

}  // namespace kueuepp::kube::visibility

#include "kube/apiserver/conformance/client_transport.hpp"

#include "kube/client/blocking_client.hpp"

namespace kueuepp::kube::conformance {

Expected<ActualResponse> ClientReplayTransport::send(const client::HttpRequest& request) {
  auto response = client::BlockingClient(client_).raw(request);
  if (!response) return fail(response.error().describe());
  return ActualResponse{response->status, std::move(response->headers), std::move(response->body)};
}

Expected<ActualResponse> ClientReplayTransport::send_watch(const client::HttpRequest& request) {
  auto collected = client::BlockingClient(client_).raw_stream(request);
  if (!collected) return fail(collected.error().describe());
  return ActualResponse{collected->status, std::move(collected->headers), std::move(collected->body)};
}

client::ClientOptions ClientReplayTransport::replay_options() {
  client::ClientOptions options;
  options.qps = -1;
  options.retry.max_retries = 0;
  options.request_timeout = std::chrono::milliseconds(60'000);
  options.stream_idle_timeout = std::chrono::milliseconds(60'000);
  options.user_agent = "kueuepp-conformance/0.1";
  return options;
}

}  // namespace kueuepp::kube::conformance

// The probe server over real sockets: the handler sees the whole target, an event stream
// sends its source's answer when it changes, and streams beyond the limit are refused.
// Over HTTPS, the gate decides before anything is answered, streams included, and sees
// the client's certificate.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "cmd/standalone/probe_server.hpp"
#include "kube/tls/client_certificate.hpp"
#include "kube/tls/server_context.hpp"
#include "tests/kube/tls/test_certificates.hpp"
#include "tests/support/raw_http_client.hpp"

namespace kueuepp::cmd {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

using Client = test_support::RawHttpClient;

struct Source {
  std::mutex mutex;
  std::string body = "one";
  std::string last_target;
  int asked = 0;
};

std::unique_ptr<ProbeServer> start(Source& source, std::size_t max_streams = 4,
                                   std::chrono::milliseconds period = std::chrono::milliseconds(20)) {
  ProbeServerOptions options;
  options.timeout = std::chrono::seconds(5);
  options.max_streams = max_streams;
  options.streams.push_back(ProbeStream{"/stream", "state", "/state", period});
  auto server = ProbeServer::start(
      "127.0.0.1:0",
      [&source](const std::string& target, ProbeResponder respond) {
        std::lock_guard lock(source.mutex);
        source.last_target = target;
        ++source.asked;
        respond(200, "application/json", source.body);
      },
      options);
  EXPECT_TRUE(server) << server.error().message;
  return std::move(*server);
}

TEST(ProbeServer, TheHandlerIsGivenTheTargetWithItsQuery) {
  Source source;
  auto server = start(source);
  Client c(server->port());
  c.get("/debug/clusterqueues/cq?offset=5&limit=2");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("200 OK"), std::string::npos) << head;
  std::lock_guard lock(source.mutex);
  EXPECT_EQ(source.last_target, "/debug/clusterqueues/cq?offset=5&limit=2");
}

TEST(ProbeServer, AStreamSendsTheSourceAgainOnlyWhenItChanged) {
  Source source;
  auto server = start(source);
  Client c(server->port());
  c.get("/stream");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("text/event-stream"), std::string::npos) << head;
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: one\n\n");
  {
    std::lock_guard lock(source.mutex);
    source.body = "two";
  }
  // Unchanged answers are not sent again: the next event is the changed one.
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: two\n\n");
  server->stop();
}

TEST(ProbeServer, StreamsOfOneSourceShareItsAnswerForAPeriod) {
  Source source;
  // A period far longer than the test: the second stream is served the first one's answer.
  auto server = start(source, 4, std::chrono::seconds(60));
  Client first(server->port());
  first.get("/stream");
  EXPECT_NE(first.read_until("\r\n\r\n").find("text/event-stream"), std::string::npos);
  EXPECT_EQ(first.read_until("\n\n"), "event: state\ndata: one\n\n");
  Client second(server->port());
  second.get("/stream");
  second.read_until("\r\n\r\n");
  EXPECT_EQ(second.read_until("\n\n"), "event: state\ndata: one\n\n");
  {
    std::lock_guard lock(source.mutex);
    EXPECT_EQ(source.asked, 1);
  }
  server->stop();
}

TEST(ProbeServer, StreamsBeyondTheLimitAreRefused) {
  Source source;
  auto server = start(source, 1);
  Client first(server->port());
  first.get("/stream");
  EXPECT_NE(first.read_until("\n\n").find("event: state"), std::string::npos);
  Client second(server->port());
  second.get("/stream");
  std::string head = second.read_until("\r\n\r\n");
  EXPECT_NE(head.find("503"), std::string::npos) << head;
  server->stop();
}

/// A TLS client that trusts anything (the test's own server), optionally with a client
/// certificate.
struct TlsClient {
  asio::io_context io;
  asio::ssl::context context{asio::ssl::context::tls_client};
  std::unique_ptr<asio::ssl::stream<tcp::socket>> stream;
  asio::streambuf buffer;

  explicit TlsClient(std::uint16_t port, const kube::tls::testing::KeyPair* certificate = nullptr) {
    context.set_verify_mode(asio::ssl::verify_none);
    if (certificate != nullptr) {
      context.use_certificate_chain(asio::buffer(certificate->cert_pem));
      context.use_private_key(asio::buffer(certificate->key_pem), asio::ssl::context::pem);
    }
    stream = std::make_unique<asio::ssl::stream<tcp::socket>>(io, context);
    stream->next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    // Bounded (a generous 10 s), so a server that does not get to us fails the test.
    handshake_error = asio::error::timed_out;
    stream->async_handshake(asio::ssl::stream_base::client, [this](boost::system::error_code e) { handshake_error = e; });
    if (io.run_for(std::chrono::seconds(10)) == 0 || handshake_error == asio::error::timed_out) {
      stream->next_layer().close();
      io.restart();
      io.run();
    }
  }
  boost::system::error_code handshake_error;
  void get(const std::string& target, const std::string& token = "") {
    std::string request = "GET " + target + " HTTP/1.1\r\nHost: x\r\n";
    if (!token.empty()) request += "Authorization: Bearer " + token + "\r\n";
    asio::write(*stream, asio::buffer(request + "\r\n"));
  }
  /// Everything up to and including `delimiter`, or an error after a generous 10 s.
  std::string read_until(const std::string& delimiter) {
    boost::system::error_code ec = asio::error::timed_out;
    std::size_t n = 0;
    asio::async_read_until(*stream, buffer, delimiter, [&](boost::system::error_code e, std::size_t got) {
      ec = e;
      n = got;
    });
    io.restart();
    if (io.run_for(std::chrono::seconds(10)) == 0 || ec == asio::error::timed_out) {
      stream->next_layer().close();
      io.restart();
      io.run();
      return "error: nothing within 10 s";
    }
    if (ec) return "error: " + ec.message();
    std::string out(asio::buffers_begin(buffer.data()), asio::buffers_begin(buffer.data()) + static_cast<long>(n));
    buffer.consume(n);
    return out;
  }
};

/// What the gate saw of the last request.
struct GateLog {
  std::mutex mutex;
  std::string target;
  std::size_t chain_length = 0;
  int asked = 0;
};

/// An HTTPS server whose gate lets through the bearer token "let-me-in" only.
std::unique_ptr<ProbeServer> start_tls(Source& source, GateLog& log, const kube::tls::testing::TestCa& ca,
                                       std::chrono::milliseconds io_timeout = std::chrono::seconds(10)) {
  ProbeServerOptions options;
  options.io_timeout = io_timeout;
  options.streams.push_back(ProbeStream{"/stream", "state", "/state", std::chrono::milliseconds(20)});
  auto serving = ca.issue("127.0.0.1", true);
  auto context = kube::tls::make_server_context(serving.cert_pem, serving.key_pem, "the test server");
  EXPECT_TRUE(context) << context.error().message;
  std::shared_ptr<asio::ssl::context> ctx = *context;
  // Ask for a client certificate without requiring one, as the secure listener does.
  kube::tls::request_client_certificates(ctx->native_handle(), "");
  options.tls = [ctx] { return ctx; };
  options.gate = [&log](const ProbeRequest& request, std::function<void(std::optional<ProbeRefusal>)> decide) {
    {
      std::lock_guard lock(log.mutex);
      log.target = request.target;
      log.chain_length = request.peer_chain_der.size();
      ++log.asked;
    }
    for (const auto& [name, value] : request.headers) {
      if (name == "Authorization" && value == "Bearer let-me-in") {
        decide(std::nullopt);
        return;
      }
    }
    decide(ProbeRefusal{401, "application/json", R"({"message":"who are you"})"});
  };
  auto server = ProbeServer::start(
      "127.0.0.1:0",
      [&source](const std::string& target, ProbeResponder respond) {
        std::lock_guard lock(source.mutex);
        source.last_target = target;
        ++source.asked;
        respond(200, "text/plain", source.body);
      },
      options);
  EXPECT_TRUE(server) << server.error().message;
  return std::move(*server);
}

TEST(ProbeServerOverTls, TheGateRefusesBeforeTheHandlerIsAsked) {
  Source source;
  GateLog log;
  kube::tls::testing::TestCa ca("probe-test-ca");
  auto server = start_tls(source, log, ca);
  TlsClient c(server->port());
  c.get("/metrics?x=1");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("401"), std::string::npos) << head;
  EXPECT_NE(head.find("WWW-Authenticate: Bearer"), std::string::npos) << head;
  EXPECT_EQ(c.read_until("}"), R"({"message":"who are you"})");
  std::lock_guard lock(source.mutex);
  EXPECT_EQ(source.asked, 0);
  std::lock_guard gate_lock(log.mutex);
  EXPECT_EQ(log.target, "/metrics?x=1");
}

TEST(ProbeServerOverTls, WhomTheGateLetsThroughIsAnswered) {
  Source source;
  GateLog log;
  kube::tls::testing::TestCa ca("probe-test-ca");
  auto server = start_tls(source, log, ca);
  TlsClient c(server->port());
  c.get("/metrics", "let-me-in");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("200 OK"), std::string::npos) << head;
  EXPECT_EQ(c.read_until("one"), "one");
}

TEST(ProbeServerOverTls, AStreamIsGatedAndThenServed) {
  Source source;
  GateLog log;
  kube::tls::testing::TestCa ca("probe-test-ca");
  auto server = start_tls(source, log, ca);
  {
    TlsClient refused(server->port());
    refused.get("/stream");
    EXPECT_NE(refused.read_until("\r\n\r\n").find("401"), std::string::npos);
  }
  TlsClient c(server->port());
  c.get("/stream", "let-me-in");
  EXPECT_NE(c.read_until("\r\n\r\n").find("text/event-stream"), std::string::npos);
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: one\n\n");
  {
    std::lock_guard lock(source.mutex);
    source.body = "two";
  }
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: two\n\n");
  server->stop();
}

TEST(ProbeServerOverTls, TheGateSeesTheClientCertificate) {
  Source source;
  GateLog log;
  kube::tls::testing::TestCa ca("probe-test-ca");
  auto server = start_tls(source, log, ca);
  auto client_certificate = ca.issue("prometheus");
  TlsClient c(server->port(), &client_certificate);
  c.get("/metrics");
  EXPECT_NE(c.read_until("\r\n\r\n").find("401"), std::string::npos);
  std::lock_guard lock(log.mutex);
  EXPECT_EQ(log.chain_length, 1u);
}

TEST(ProbeServerOverTls, AClientThatNeverSpeaksDoesNotHoldTheServer) {
  Source source;
  GateLog log;
  kube::tls::testing::TestCa ca("probe-test-ca");
  // Longer than the client waits: a server that served connections one after the other
  // would still be waiting for the silent one's handshake.
  auto server = start_tls(source, log, ca, std::chrono::seconds(60));
  // Connected, no handshake: the next client is served meanwhile.
  asio::io_context io;
  tcp::socket silent(io);
  silent.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server->port()));
  TlsClient c(server->port());
  ASSERT_FALSE(c.handshake_error) << c.handshake_error.message();
  c.get("/metrics", "let-me-in");
  EXPECT_NE(c.read_until("\r\n\r\n").find("200 OK"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::cmd

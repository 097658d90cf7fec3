#include "tests/kube/apiserver/server/admission/test_webhook_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "core/base64.hpp"
#include "kube/apiserver/server/tls/certificates.hpp"

namespace kueuepp::kube::server::testing {

namespace {

int listen_loopback(std::uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    throw std::runtime_error("test webhook: cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

SSL_CTX* server_context(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  BIO* cb = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  BIO* kb = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  SSL_CTX_use_certificate(ctx, cert);
  SSL_CTX_use_PrivateKey(ctx, key);
  X509_free(cert);
  EVP_PKEY_free(key);
  BIO_free(cb);
  BIO_free(kb);
  return ctx;
}

/// Reads one HTTP request (headers and Content-Length body); false when the peer went away.
bool read_request(SSL* ssl, std::string& path, std::string& body) {
  std::string data;
  char buf[4096];
  std::size_t header_end = std::string::npos;
  while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    data.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t sp1 = data.find(' ');
  std::size_t sp2 = data.find(' ', sp1 + 1);
  path = data.substr(sp1 + 1, sp2 - sp1 - 1);
  if (std::size_t q = path.find('?'); q != std::string::npos) path.resize(q);
  std::size_t length = 0;
  std::string headers = data.substr(0, header_end);
  for (char& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::size_t cl = headers.find("content-length:"); cl != std::string::npos) {
    length = std::stoul(headers.substr(cl + 15));
  }
  body = data.substr(header_end + 4);
  while (body.size() < length) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    body.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

double thread_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

json::value response_of(const json::value& review, json::object response) {
  response["uid"] = json::get_string(*json::find(review, "request"), "uid");
  return json::object{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", std::move(response)}};
}

}  // namespace

TestWebhookServer::TestWebhookServer(std::vector<std::string> hosts) {
  auto certs = generate_certificates(hosts);
  if (!certs) throw std::runtime_error("test webhook: " + certs.error().message);
  ca_pem_ = certs->ca_cert_pem;
  cert_pem_ = certs->server_cert_pem;
  key_pem_ = certs->server_key_pem;
  tls_ = server_context(cert_pem_, key_pem_);
  listen_fd_ = listen_loopback(port_);
  for (int i = 0; i < 4; ++i) workers_.emplace_back([this] { work(); });
  acceptor_ = std::thread([this] { accept_loop(); });
}

TestWebhookServer::~TestWebhookServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  stopping_cv_.notify_all();
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  for (auto& w : workers_) w.join();
  for (int fd : queue_) ::close(fd);
  SSL_CTX_free(static_cast<SSL_CTX*>(tls_));
}

std::string TestWebhookServer::url(std::string_view path) const {
  return "https://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

std::string TestWebhookServer::ca_bundle() const { return core::base64_encode(ca_pem_); }

void TestWebhookServer::on(std::string path, Handler handler) {
  std::lock_guard lock(mutex_);
  handlers_[std::move(path)] = std::move(handler);
}

std::vector<TestWebhookServer::Received> TestWebhookServer::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

std::vector<TestWebhookServer::Received> TestWebhookServer::received(std::string_view path) const {
  std::vector<Received> out;
  for (auto& r : received()) {
    if (r.path == path) out.push_back(r);
  }
  return out;
}

double TestWebhookServer::serving_cpu_seconds() const {
  std::lock_guard lock(mutex_);
  return serving_cpu_;
}

TestWebhookServer::Answer TestWebhookServer::allow(const json::value& review, const json::value& patch) {
  json::object response{{"allowed", true}};
  if (patch.is_array()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = core::base64_encode(json::dump(patch));
  }
  return Answer{200, json::dump(response_of(review, std::move(response))), false};
}

TestWebhookServer::Answer TestWebhookServer::deny(const json::value& review, int code, std::string_view message) {
  json::object response{{"allowed", false}, {"status", json::object{{"code", code}, {"message", message}}}};
  return Answer{200, json::dump(response_of(review, std::move(response))), false};
}

TestWebhookServer::Answer TestWebhookServer::hang() { return Answer{0, "", true}; }

void TestWebhookServer::accept_loop() {
  for (;;) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    std::lock_guard lock(mutex_);
    if (fd < 0 || stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connections_.push_back(fd);
    queue_.push_back(fd);
    ++accepted_;
    stopping_cv_.notify_all();
  }
}

void TestWebhookServer::work() {
  for (;;) {
    int fd = -1;
    {
      std::unique_lock lock(mutex_);
      stopping_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      fd = queue_.front();
      queue_.erase(queue_.begin());
    }
    serve(fd);
  }
}

void TestWebhookServer::count_cpu(double& since) {
  double seconds = thread_cpu_seconds();
  std::lock_guard lock(mutex_);
  serving_cpu_ += seconds - since;
  since = seconds;
}

void TestWebhookServer::serve(int fd) {
  // Counted after each answer, not at the end: a kept-alive connection lasts the test.
  double since = thread_cpu_seconds();
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(tls_));
  SSL_set_fd(ssl, fd);
  // A client that refuses the certificate ends the handshake: nothing to serve.
  if (SSL_accept(ssl) == 1) {
    for (int served = 0; serve_one(ssl, served); ++served) count_cpu(since);
  }
  SSL_free(ssl);
  count_cpu(since);
  std::lock_guard lock(mutex_);
  std::erase(connections_, fd);
  ::close(fd);
}

bool TestWebhookServer::serve_one(void* ssl_handle, int served_before) {
  auto* ssl = static_cast<SSL*>(ssl_handle);
  std::string path;
  std::string body;
  if (!read_request(ssl, path, body)) return false;
  bool keep_alive = false;
  {
    std::lock_guard lock(mutex_);
    keep_alive = keep_alive_;
    if (served_before > 0 && drop_reused_) return false;  // closed without an answer
  }
  auto parsed = json::parse(body);
  json::value review = parsed ? std::move(*parsed) : json::value();
  Handler handler;
  {
    std::lock_guard lock(mutex_);
    received_.push_back({path, review});
    if (auto it = handlers_.find(path); it != handlers_.end()) handler = it->second;
  }
  Answer answer = handler ? handler(review) : Answer{404, "404 page not found\n", false};
  if (answer.hang) {
    std::unique_lock lock(mutex_);
    stopping_cv_.wait(lock, [this] { return stopping_; });
    return false;
  }
  std::string reason = answer.status == 200 ? "OK" : "Error";
  std::string out = "HTTP/1.1 " + std::to_string(answer.status) + " " + reason +
                    "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(answer.body.size()) +
                    (keep_alive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n") + answer.body;
  SSL_write(ssl, out.data(), static_cast<int>(out.size()));
  if (!keep_alive) SSL_shutdown(ssl);
  return keep_alive;
}

void TestWebhookServer::keep_alive(bool on) {
  std::lock_guard lock(mutex_);
  keep_alive_ = on;
}

void TestWebhookServer::drop_requests_on_reused_connections(bool on) {
  std::lock_guard lock(mutex_);
  drop_reused_ = on;
}

std::size_t TestWebhookServer::connections_accepted() const {
  std::lock_guard lock(mutex_);
  return accepted_;
}

std::uint16_t unused_port() {
  std::uint16_t port = 0;
  int fd = listen_loopback(port);
  ::close(fd);
  return port;
}

}  // namespace kueuepp::kube::server::testing

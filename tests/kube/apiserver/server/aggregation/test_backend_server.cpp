#include "tests/kube/apiserver/server/aggregation/test_backend_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <stdexcept>

#include <fmt/format.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

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
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    throw std::runtime_error("test backend: cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

SSL_CTX* server_context(const std::string& cert_pem, const std::string& key_pem, const std::string& client_ca_pem) {
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
  if (!client_ca_pem.empty()) {
    BIO* ca_bio = BIO_new_mem_buf(client_ca_pem.data(), static_cast<int>(client_ca_pem.size()));
    X509* ca = PEM_read_bio_X509(ca_bio, nullptr, nullptr, nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca);
    X509_free(ca);
    BIO_free(ca_bio);
    // Asked for, checked by the test: a missing or foreign certificate is recorded, not refused.
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
  }
  return ctx;
}

bool read_request(SSL* ssl, TestBackendServer::Request& req) {
  std::string data;
  char buf[4096];
  std::size_t header_end = std::string::npos;
  while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    data.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t line_end = data.find("\r\n");
  std::string line = data.substr(0, line_end);
  std::size_t sp1 = line.find(' ');
  std::size_t sp2 = line.find(' ', sp1 + 1);
  req.method = line.substr(0, sp1);
  req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  req.path = req.target.substr(0, req.target.find('?'));
  std::size_t length = 0;
  std::size_t pos = line_end + 2;
  while (pos < header_end) {
    std::size_t end = data.find("\r\n", pos);
    std::string field = data.substr(pos, end - pos);
    pos = end + 2;
    std::size_t colon = field.find(':');
    std::string name = field.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = field.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (name == "content-length") length = std::stoul(value);
    req.headers.emplace_back(std::move(name), std::move(value));
  }
  req.body = data.substr(header_end + 4);
  while (req.body.size() < length) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    req.body.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

void write_all(SSL* ssl, const std::string& bytes) {
  if (!bytes.empty()) SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace

std::vector<std::string> TestBackendServer::Request::header_values(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : headers) {
    if (n == name) out.push_back(v);
  }
  return out;
}

TestBackendServer::TestBackendServer(std::vector<std::string> server_names, std::string client_ca_pem) {
  // The proxy may close a connection before the answer is written (a cancelled check):
  // that must end the write, not the test process.
  std::signal(SIGPIPE, SIG_IGN);
  auto certs = generate_certificates(server_names);
  if (!certs) throw std::runtime_error("test backend: " + certs.error().message);
  ca_pem_ = certs->ca_cert_pem;
  tls_ = server_context(certs->server_cert_pem, certs->server_key_pem, client_ca_pem);
  listen_fd_ = listen_loopback(port_);
  for (int i = 0; i < 8; ++i) workers_.emplace_back([this] { work(); });
  acceptor_ = std::thread([this] { accept_loop(); });
}

TestBackendServer::~TestBackendServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  cv_.notify_all();
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  for (auto& t : workers_) t.join();
  for (int fd : queue_) ::close(fd);
  SSL_CTX_free(static_cast<SSL_CTX*>(tls_));
}

std::string TestBackendServer::ca_bundle() const { return core::base64_encode(ca_pem_); }

void TestBackendServer::on(std::string prefix, Handler handler) {
  std::lock_guard lock(mutex_);
  handlers_[std::move(prefix)] = std::move(handler);
}

void TestBackendServer::serve_discovery(const std::string& group, const std::string& version, const std::string& plural,
                                        const std::string& kind) {
  std::string body = fmt::format(
      R"({{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"{}/{}","resources":[)"
      R"({{"name":"{}","singularName":"","namespaced":true,"kind":"{}","verbs":["get","list","watch"]}}]}})",
      group, version, plural, kind);
  std::string path = "/apis/" + group + "/" + version;
  on(path, [path, body](const Request& r) {
    if (r.path != path) return Answer{404, "text/plain", "404 page not found\n", {}, false, ""};
    return Answer{200, "application/json", body, {}, false, ""};
  });
}

std::vector<TestBackendServer::Request> TestBackendServer::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

std::vector<TestBackendServer::Request> TestBackendServer::received(std::string_view path) const {
  std::vector<Request> out;
  for (auto& r : received()) {
    if (r.path == path) out.push_back(r);
  }
  return out;
}

void TestBackendServer::end_streams() {
  std::lock_guard lock(mutex_);
  streams_ended_ = true;
  cv_.notify_all();
}

int TestBackendServer::accepted() const {
  std::lock_guard lock(mutex_);
  return accepted_;
}

void TestBackendServer::accept_loop() {
  for (;;) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    std::lock_guard lock(mutex_);
    if (fd < 0 || stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ++accepted_;
    connections_.push_back(fd);
    queue_.push_back(fd);
    cv_.notify_all();
  }
}

void TestBackendServer::work() {
  for (;;) {
    int fd = -1;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      fd = queue_.front();
      queue_.erase(queue_.begin());
    }
    serve(fd);
  }
}

void TestBackendServer::serve(int fd) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(tls_));
  SSL_set_fd(ssl, fd);
  Request req;
  if (SSL_accept(ssl) == 1 && read_request(ssl, req)) {
    if (X509* peer = SSL_get1_peer_certificate(ssl)) {
      char cn[256] = {0};
      X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
      req.client_cn = cn;
      req.client_verified = SSL_get_verify_result(ssl) == X509_V_OK;
      X509_free(peer);
    }
    Handler handler;
    {
      std::lock_guard lock(mutex_);
      received_.push_back(req);
      std::size_t best = 0;
      for (const auto& [prefix, h] : handlers_) {
        if (req.path.rfind(prefix, 0) == 0 && prefix.size() >= best) {
          best = prefix.size();
          handler = h;
        }
      }
    }
    Answer answer = handler ? handler(req) : Answer{404, "text/plain", "404 page not found\n", {}, false, ""};
    if (answer.hang) {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_; });
    } else if (!answer.garbage.empty()) {
      write_all(ssl, answer.garbage);
      SSL_shutdown(ssl);
    } else if (!answer.stream.empty()) {
      write_all(ssl, fmt::format("HTTP/1.1 {} OK\r\nContent-Type: {}\r\nTransfer-Encoding: chunked\r\n\r\n",
                                 answer.status, answer.content_type));
      for (const auto& piece : answer.stream) write_all(ssl, fmt::format("{:x}\r\n{}\r\n", piece.size(), piece));
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return stopping_ || streams_ended_; });
      }
      write_all(ssl, "0\r\n\r\n");
      SSL_shutdown(ssl);
    } else {
      write_all(ssl, fmt::format("HTTP/1.1 {} X\r\nContent-Type: {}\r\nX-Backend: test\r\nContent-Length: {}\r\n"
                                 "Connection: close\r\n\r\n{}",
                                 answer.status, answer.content_type, answer.body.size(), answer.body));
      SSL_shutdown(ssl);
    }
  }
  SSL_free(ssl);
  std::lock_guard lock(mutex_);
  std::erase(connections_, fd);
  ::close(fd);
}

}  // namespace kueuepp::kube::server::testing

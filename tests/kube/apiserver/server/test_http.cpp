#include "tests/kube/apiserver/server/test_http.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kueuepp::testing {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

/// Parses "HTTP/1.1 200 OK\r\nName: value\r\n..." (without the final blank line).
void parse_head(std::string_view head, HttpReply& reply) {
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  std::size_t sp = status_line.find(' ');
  if (sp != std::string_view::npos) {
    std::from_chars(status_line.data() + sp + 1, status_line.data() + status_line.size(), reply.status);
  }
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    reply.headers[lower(line.substr(0, colon))].emplace_back(value);
  }
}

}  // namespace

std::string HttpReply::header(std::string_view name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() || it->second.empty() ? std::string() : it->second.front();
}

HttpConnection::HttpConnection(std::uint16_t port, std::string host) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

HttpConnection::~HttpConnection() { close(); }

void HttpConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool HttpConnection::send_raw(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return fd_ >= 0;
}

bool HttpConnection::fill(std::chrono::steady_clock::time_point deadline) {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, remaining_ms(deadline)) <= 0) return false;
  char buf[65536];
  ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
  if (n <= 0) return false;
  in_.append(buf, static_cast<std::size_t>(n));
  return true;
}

std::optional<HttpReply> HttpConnection::read_reply(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t end;
  while ((end = in_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) return std::nullopt;
  }
  HttpReply reply;
  parse_head(std::string_view(in_).substr(0, end), reply);
  in_.erase(0, end + 4);
  if (lower(reply.header("transfer-encoding")) == "chunked") {
    while (true) {
      std::size_t eol;
      while ((eol = in_.find("\r\n")) == std::string::npos) {
        if (!fill(deadline)) return reply;
      }
      std::size_t size = 0;
      std::from_chars(in_.data(), in_.data() + eol, size, 16);
      while (in_.size() < eol + 2 + size + 2) {
        if (!fill(deadline)) return reply;
      }
      reply.body.append(in_, eol + 2, size);
      in_.erase(0, eol + 2 + size + 2);
      if (size == 0) return reply;
    }
  }
  std::size_t length = 0;
  std::string cl = reply.header("content-length");
  std::from_chars(cl.data(), cl.data() + cl.size(), length);
  while (in_.size() < length) {
    if (!fill(deadline)) return std::nullopt;
  }
  reply.body = in_.substr(0, length);
  in_.erase(0, length);
  return reply;
}

HttpReply HttpConnection::request(std::string_view method, std::string_view target, std::string_view body,
                                  std::string_view content_type,
                                  const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string req;
  req.reserve(256 + body.size());
  req.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  bool has_accept = false;
  for (const auto& [k, v] : headers) {
    req.append(k).append(": ").append(v).append("\r\n");
    has_accept = has_accept || lower(k) == "accept";
  }
  if (!has_accept) req.append("Accept: application/json\r\n");
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req.append("Content-Type: ").append(content_type).append("\r\n");
    req.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  req.append("\r\n").append(body);
  if (!send_raw(req)) return {};
  auto reply = read_reply(std::chrono::seconds(30));
  return reply ? std::move(*reply) : HttpReply{};
}

bool HttpConnection::closed_by_peer(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) <= 0) return false;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return true;
  }
  return false;
}

std::optional<HttpReply> HttpConnection::start_stream(std::string_view target, std::chrono::milliseconds timeout) {
  std::string req;
  req.append("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n");
  if (!send_raw(req)) return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t end;
  while ((end = in_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) return std::nullopt;
  }
  HttpReply reply;
  parse_head(std::string_view(in_).substr(0, end), reply);
  in_.erase(0, end + 4);
  stream_done_ = false;
  lines_.clear();
  return reply;
}

bool HttpConnection::read_chunk_data(std::chrono::steady_clock::time_point deadline) {
  std::size_t eol;
  while ((eol = in_.find("\r\n")) == std::string::npos) {
    if (!fill(deadline)) return false;
  }
  std::size_t size = 0;
  std::from_chars(in_.data(), in_.data() + eol, size, 16);
  while (in_.size() < eol + 2 + size + 2) {
    if (!fill(deadline)) return false;
  }
  lines_.append(in_, eol + 2, size);
  in_.erase(0, eol + 2 + size + 2);
  if (size == 0) stream_done_ = true;
  return true;
}

std::optional<std::string> HttpConnection::next_line(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::size_t nl = lines_.find('\n');
    if (nl != std::string::npos) {
      std::string line = lines_.substr(0, nl);
      lines_.erase(0, nl + 1);
      return line;
    }
    if (stream_done_ || !read_chunk_data(deadline)) return std::nullopt;
  }
}

HttpReply http(std::uint16_t port, std::string_view method, std::string_view target, std::string_view body,
               std::string_view content_type) {
  HttpConnection c(port);
  return c.request(method, target, body, content_type);
}

}  // namespace kueuepp::testing

#pragma once

// A small blocking HTTP/1.1 client over POSIX sockets for tests and benchmarks of the
// embedded API server: keep-alive requests, chunked (watch) responses, and raw bytes
// for malformed-request tests. Deliberately independent of the server's own code.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::testing {

struct HttpReply {
  int status = 0;  ///< 0 when the connection failed or closed without an answer
  std::map<std::string, std::vector<std::string>> headers;  ///< lowercase names
  std::string body;  ///< de-chunked
  std::string header(std::string_view name) const;
};

class HttpConnection {
 public:
  HttpConnection(std::uint16_t port, std::string host = "127.0.0.1");
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  /// Sends one request (keep-alive) and reads its full answer.
  HttpReply request(std::string_view method, std::string_view target, std::string_view body = {},
                    std::string_view content_type = "application/json",
                    const std::vector<std::pair<std::string, std::string>>& headers = {});
  /// Sends raw bytes as they are.
  bool send_raw(std::string_view bytes);
  /// Reads one answer (after send_raw); nullopt on timeout or a closed connection.
  std::optional<HttpReply> read_reply(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// True when the server closed the connection (reads EOF within `timeout`).
  bool closed_by_peer(std::chrono::milliseconds timeout);
  /// Starts a streaming answer: sends the request and reads the headers.
  std::optional<HttpReply> start_stream(std::string_view target,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// The next complete line of a chunked stream (without the newline); nullopt at its
  /// end or on timeout.
  std::optional<std::string> next_line(std::chrono::milliseconds timeout);
  int fd() const { return fd_; }
  void close();

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  bool read_chunk_data(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string in_;       ///< bytes read and not yet consumed
  std::string lines_;    ///< de-chunked stream bytes not yet returned as lines
  bool stream_done_ = false;
};

/// One request on a fresh connection.
HttpReply http(std::uint16_t port, std::string_view method, std::string_view target, std::string_view body = {},
               std::string_view content_type = "application/json");

}  // namespace kueuepp::testing

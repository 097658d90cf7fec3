#pragma once

// A blocking HTTP/1.1 client over one plain loopback connection that sends exactly the
// bytes a test gives it and reads what the server sends back, so that a test can speak
// half a request, an oversized header or a stream's chunks as a real client would.

#include <cstdint>
#include <memory>
#include <string>

namespace kueuepp::test_support {

class RawHttpClient {
 public:
  /// Connects to 127.0.0.1:`port` (throws boost::system::system_error if it cannot).
  explicit RawHttpClient(std::uint16_t port);
  ~RawHttpClient();
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  void send(const std::string& bytes);
  /// A GET of `target` with a Host header and nothing else.
  void get(const std::string& target);

  /// Everything up to and including `delimiter`; "closed" when the server closed the
  /// connection first, "nothing within 10 s" when it sent no such thing for a generous
  /// 10 s, else "error: " and what failed.
  std::string read_until(const std::string& delimiter);
  /// The status line and headers of the next answer.
  std::string head() { return read_until("\r\n\r\n"); }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kueuepp::test_support

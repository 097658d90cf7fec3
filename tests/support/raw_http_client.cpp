#include "tests/support/raw_http_client.hpp"

#include <boost/asio/buffers_iterator.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <chrono>

namespace kueuepp::test_support {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct RawHttpClient::State {
  asio::io_context io;
  tcp::socket socket{io};
  asio::streambuf buffer;
};

RawHttpClient::RawHttpClient(std::uint16_t port) : state_(std::make_unique<State>()) {
  state_->socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}

RawHttpClient::~RawHttpClient() = default;

void RawHttpClient::send(const std::string& bytes) { asio::write(state_->socket, asio::buffer(bytes)); }

void RawHttpClient::get(const std::string& target) { send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n"); }

std::string RawHttpClient::read_until(const std::string& delimiter) {
  State& s = *state_;
  boost::system::error_code ec = asio::error::timed_out;
  std::size_t n = 0;
  asio::async_read_until(s.socket, s.buffer, delimiter, [&](boost::system::error_code e, std::size_t got) {
    ec = e;
    n = got;
  });
  s.io.restart();
  // A run that handled nothing, or a read still pending: the server sent no such thing.
  if (s.io.run_for(std::chrono::seconds(10)) == 0 || ec == asio::error::timed_out) {
    s.socket.cancel();
    s.io.restart();
    s.io.run();
    return "nothing within 10 s";
  }
  if (ec == asio::error::eof || ec == asio::error::connection_reset) return "closed";
  if (ec) return "error: " + ec.message();
  const auto begin = asio::buffers_begin(s.buffer.data());
  std::string out(begin, begin + static_cast<std::ptrdiff_t>(n));
  s.buffer.consume(n);
  return out;
}

}  // namespace kueuepp::test_support

#include "kube/apiserver/server/net/response_head.hpp"

#include <boost/beast/http/status.hpp>

namespace kueuepp::kube::server {

std::optional<std::string> plain_response_head(const HttpResponse& response, bool keep_alive) {
  const int code = response.status;
  if (!response.headers.empty() || code < 200 || code > 599 || code == 204 || code == 304) return std::nullopt;
  const std::string& type = response.content_type;
  auto ows = [](char c) { return c == ' ' || c == '\t'; };
  if (type.empty() || ows(type.front()) || ows(type.back())) return std::nullopt;
  const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(code));
  const std::string length = std::to_string(response.body_text().size());
  std::string head;
  head.reserve(96 + reason.size() + type.size());
  head += "HTTP/1.1 ";
  head += static_cast<char>('0' + code / 100);
  head += static_cast<char>('0' + (code / 10) % 10);
  head += static_cast<char>('0' + code % 10);
  head += ' ';
  head.append(reason.data(), reason.size());
  head += "\r\nContent-Type: ";
  head += type;
  head += "\r\nCache-Control: no-cache, private\r\n";
  if (!keep_alive) head += "Connection: close\r\n";
  head += "Content-Length: ";
  head += length;
  head += "\r\n\r\n";
  return head;
}

}  // namespace kueuepp::kube::server

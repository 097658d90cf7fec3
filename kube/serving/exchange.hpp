#pragma once

// A request as kueuepp's servers hand it to their handlers, and the answer they give:
// plain strings, no Beast types.

#include <string>
#include <vector>

#include "kube/http/headers.hpp"

namespace kueuepp::kube::serving {

struct Request {
  std::string method;
  std::string target;  ///< path and query
  ::kueuepp::http::Headers headers;
  std::string body;
  /// The client's certificate chain as presented over TLS (DER, its own first); empty without one.
  std::vector<std::string> peer_chain_der;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  ::kueuepp::http::Headers headers;  ///< fields besides Content-Type and Content-Length
  /// The connection closes once this is written (else it is kept alive when the client asks).
  bool close = false;
};

}  // namespace kueuepp::kube::serving

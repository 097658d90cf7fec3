#pragma once

// The head of a plain (non-streaming) response, written without Beast's field container
// and serializer: the common answer (no extra headers) costs a fraction of the
// instructions, with the same bytes on the wire.

#include <optional>
#include <string>

#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

/// Byte for byte what Boost.Beast writes before the body of `response` as HttpSession
/// builds it (an HTTP/1.1 string_body response with Content-Type and Cache-Control set,
/// keep_alive(keep_alive), prepare_payload()): the status line, Content-Type,
/// Cache-Control, `Connection: close` when not keep-alive, Content-Length, blank line.
/// nullopt when the response needs Beast's own field handling: extra headers, a status
/// outside 200-599 or without a body (204, 304), a content type empty or with leading or
/// trailing whitespace (which Beast trims).
std::optional<std::string> plain_response_head(const HttpResponse& response, bool keep_alive);

}  // namespace kueuepp::kube::server

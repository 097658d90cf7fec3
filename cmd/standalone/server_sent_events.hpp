#pragma once

// Server-sent events (the HTML Living Standard's text/event-stream): how one event and
// one comment are framed on the wire. Pure.

#include <string>
#include <string_view>

namespace kueuepp::cmd {

/// The response head that opens an event stream (HTTP/1.1, no length, not cached).
std::string sse_response_head();

/// One event: "event: NAME", one "data:" line per line of `data` (CR, LF and CRLF all
/// end a line, as the parser splits them), then the blank line that dispatches it.
std::string sse_event(std::string_view event, std::string_view data);

/// A comment line, which clients ignore: keeps an idle stream open through proxies and
/// finds a closed connection.
std::string sse_comment(std::string_view text);

}  // namespace kueuepp::cmd

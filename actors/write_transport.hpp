#pragma once

// How the writer actor carries out a write: over the API client in production, or a
// scripted fake in protocol tests. `done` may run on any thread, exactly once.

#include <chrono>
#include <functional>
#include <optional>

#include "messages/writer_protocol.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::actors {

/// How the writer sends one write: decided as it sends it, not by the caller.
struct SendOptions {
  /// The client gives it only the budget other writes leave
  /// (WriterOptions::normal_writes_in_background).
  bool background = false;
  /// The end of the shard's Lease: the client does not send it after that and answers
  /// NotOwner, so the fence holds up to the socket and not only up to the writer.
  std::optional<std::chrono::steady_clock::time_point> send_before;
};

using WriteTransport = std::function<void(const messages::WriteRequest& request, const SendOptions& send,
                                          std::function<void(messages::WriteOutcome)> done)>;

/// Writes through `client` (which must outlive every write it is given).
WriteTransport client_write_transport(kube::client::Client& client, std::string field_manager = "kueuepp");

}  // namespace kueuepp::actors

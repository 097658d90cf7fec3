#pragma once

// How the writer actor carries out a write: over the API client in production, or a
// scripted fake in protocol tests. `done` may run on any thread, exactly once.

#include <functional>

#include "messages/writer_protocol.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::actors {

using WriteTransport =
    std::function<void(const messages::WriteRequest& request, std::function<void(messages::WriteOutcome)> done)>;

/// Writes through `client` (which must outlive every write it is given).
WriteTransport client_write_transport(kube::client::Client& client, std::string field_manager = "kueuepp");

}  // namespace kueuepp::actors

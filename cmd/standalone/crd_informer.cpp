#include "cmd/standalone/crd_informer.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <utility>

namespace kueuepp::cmd {

std::shared_ptr<kube::client::Informer> start_crd_informer(kube::client::Client& client,
                                                           const kube::client::ResourceDescriptor& resource,
                                                           CrdWatchLog log, CrdWatchHandlers handlers) {
  using Type = kube::client::InformerEvent::Type;
  kube::client::InformerOptions options;
  options.backoff.cap = std::chrono::milliseconds(5'000);
  auto on_event = [handlers = std::move(handlers)](kube::client::InformerEvent e) {
    if (e.type != Type::Relisted) {
      handlers.changed(e.object, e.type == Type::Deleted);
    } else if (handlers.relisted) {
      handlers.relisted(e.items);
    } else {
      for (const kube::client::Object& object : e.items) handlers.changed(object, false);
    }
  };
  auto on_error = [log = std::move(log), missing = std::make_shared<std::atomic<bool>>(false)](
                      const kube::client::ApiError& error) {
    if (error.http_status == 404) {
      if (log.missing.empty() || missing->exchange(true)) return;
      spdlog::log(log.missing_at_info ? spdlog::level::info : spdlog::level::debug, "{}: {}", log.runner,
                  log.missing);
      return;
    }
    spdlog::warn("{}: {}: {} (retrying)", log.runner, log.what, error.describe());
  };
  return kube::client::Informer::start(client, resource, std::move(options), std::move(on_event),
                                       std::move(on_error));
}

}  // namespace kueuepp::cmd

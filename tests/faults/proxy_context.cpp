#include "tests/faults/proxy_context.hpp"

namespace kueuepp::faults {

ProxyContext::ProxyContext(FaultProxyOptions options, std::unique_ptr<FaultDecider> decider,
                           std::unique_ptr<FaultLog> log, std::vector<boost::asio::ip::tcp::endpoint> upstream)
    : options_(std::move(options)),
      decider_(std::move(decider)),
      log_(std::move(log)),
      upstream_(std::move(upstream)),
      started_(std::chrono::steady_clock::now()) {
  stats_.rule_faults.assign(decider_->plan().rules.size(), 0);
}

std::chrono::milliseconds ProxyContext::elapsed() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_);
}

void ProxyContext::count_connection() {
  std::lock_guard lock(stats_mutex_);
  ++stats_.connections;
}

void ProxyContext::count_request() {
  std::lock_guard lock(stats_mutex_);
  ++stats_.requests;
}

void ProxyContext::count_forwarded() {
  std::lock_guard lock(stats_mutex_);
  ++stats_.forwarded;
}

void ProxyContext::upstream_error(std::string_view method, std::string_view target, std::string_view what) {
  {
    std::lock_guard lock(stats_mutex_);
    ++stats_.upstream_errors;
  }
  note("upstream error on " + std::string(method) + " " + std::string(target) + ": " + std::string(what));
}

void ProxyContext::record_fault(std::size_t rule, FaultKind kind, std::string_view method, std::string_view target,
                                std::string detail, std::uint64_t count) {
  FaultEvent event{elapsed(), rule, kind, std::string(method), std::string(target), std::move(detail)};
  {
    std::lock_guard lock(stats_mutex_);
    stats_.faults[static_cast<std::size_t>(kind)] += count;
    if (rule < stats_.rule_faults.size()) stats_.rule_faults[rule] += count;
  }
  log_->write(event.line());
  if (options_.on_fault) options_.on_fault(event);
}

void ProxyContext::note(std::string_view text) {
  log_->write("note " + format_offset(elapsed()) + " " + std::string(text));
}

FaultProxyStats ProxyContext::stats() const {
  FaultProxyStats out;
  {
    std::lock_guard lock(stats_mutex_);
    out = stats_;
  }
  std::lock_guard lock(connections_mutex_);
  out.open_connections = connections_.size();
  return out;
}

bool ProxyContext::add_connection(std::uint64_t id, const std::shared_ptr<ProxyConnection>& connection) {
  std::lock_guard lock(connections_mutex_);
  if (stopping_) return false;
  connections_[id] = connection;
  return true;
}

void ProxyContext::remove_connection(std::uint64_t id) {
  std::lock_guard lock(connections_mutex_);
  connections_.erase(id);
  if (connections_.empty()) connections_gone_.notify_all();
}

std::size_t ProxyContext::close_connections(bool abort) {
  std::vector<std::shared_ptr<ProxyConnection>> open;
  {
    std::lock_guard lock(connections_mutex_);
    for (auto& [id, weak] : connections_) {
      if (auto c = weak.lock()) open.push_back(std::move(c));
    }
  }
  for (auto& c : open) c->close(abort);
  return open.size();
}

void ProxyContext::begin_stop() {
  {
    std::lock_guard lock(connections_mutex_);
    stopping_ = true;
  }
  close_connections(false);
}

bool ProxyContext::wait_connections_gone(std::chrono::milliseconds timeout) {
  std::unique_lock lock(connections_mutex_);
  return connections_gone_.wait_for(lock, timeout, [this] { return connections_.empty(); });
}

}  // namespace kueuepp::faults

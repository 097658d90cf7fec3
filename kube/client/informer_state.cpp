#include "kube/client/informer_state.hpp"

namespace kueuepp::kube::client {

InformerState::InformerState(Backoff backoff) : backoff_(std::move(backoff)) {}

InformerState::Action InformerState::start() {
  resource_version_.clear();
  return {Action::Kind::List, {}, std::chrono::milliseconds(0)};
}

InformerState::Action InformerState::on_list_succeeded(std::string resource_version) {
  resource_version_ = std::move(resource_version);
  backoff_.reset();
  events_since_watch_start_ = false;
  return watch_after(std::chrono::milliseconds(0));
}

InformerState::Action InformerState::on_list_failed(const ApiError&) {
  return {Action::Kind::List, {}, backoff_.next()};
}

void InformerState::on_event(std::string_view resource_version) {
  if (!resource_version.empty()) resource_version_ = std::string(resource_version);
  events_since_watch_start_ = true;
  gone_since_list_ = false;
}

InformerState::Action InformerState::relist(bool after_gone) {
  ++relists_;
  resource_version_.clear();
  // A second 410 without any event in between means the fresh list's version was
  // already too old (or the server is confused): slow down instead of spinning.
  const bool back_off = after_gone && gone_since_list_;
  gone_since_list_ = after_gone;
  return {Action::Kind::List, {}, back_off ? backoff_.next() : std::chrono::milliseconds(0)};
}

InformerState::Action InformerState::watch_after(std::chrono::milliseconds delay) const {
  return {Action::Kind::Watch, resource_version_, delay};
}

InformerState::Action InformerState::on_watch_error_event(const ApiError& error) {
  if (error.is_gone()) return relist(true);
  events_since_watch_start_ = false;
  return watch_after(backoff_.next());
}

InformerState::Action InformerState::on_watch_failed(const ApiError& error) {
  if (error.is_gone()) return relist(true);
  events_since_watch_start_ = false;
  return watch_after(backoff_.next());
}

InformerState::Action InformerState::on_watch_closed(std::chrono::milliseconds lasted) {
  const bool healthy = events_since_watch_start_ || lasted >= kHealthyStream;
  events_since_watch_start_ = false;
  if (healthy) {
    backoff_.reset();
    return watch_after(std::chrono::milliseconds(0));
  }
  return watch_after(backoff_.next());
}

}  // namespace kueuepp::kube::client

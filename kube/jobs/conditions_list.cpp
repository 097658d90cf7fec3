#include "kube/jobs/conditions_list.hpp"

namespace kueuepp::kube::jobs {

namespace {
constexpr std::size_t kMaxConditionMessage = 32 * 1024;
}  // namespace

std::string truncate_condition_message(std::string_view message) {
  if (message.size() <= kMaxConditionMessage) return std::string(message);
  constexpr std::string_view kSuffix = " ...";
  return std::string(message.substr(0, kMaxConditionMessage - kSuffix.size())) + std::string(kSuffix);
}

json::value conditions_after(const client::Object& object, std::span<const client::Condition> changes,
                             core::Time now) {
  json::value list = json::array{};
  if (const json::value* existing = object.find({"status", "conditions"}); existing && existing->is_array()) {
    list = *existing;
  }
  const std::string stamp = core::format_rfc3339(now);
  for (client::Condition c : changes) {
    c.message = truncate_condition_message(c.message);
    client::set_condition(list, c, stamp);
  }
  return list;
}

json::value conditions_after(const client::Object& object, std::initializer_list<client::Condition> changes,
                             core::Time now) {
  return conditions_after(object, std::span<const client::Condition>(changes.begin(), changes.size()), now);
}

std::optional<client::Condition> find_condition(const json::value& conditions, std::string_view type) {
  for (const auto& c : client::read_conditions(&conditions)) {
    if (c.type == type) return c;
  }
  return std::nullopt;
}

}  // namespace kueuepp::kube::jobs

// Fuzzes the reading of Kueue's Configuration file (config/), a user's file that the
// controller reads at start-up: YAML to JSON (json::parse_yaml, as cmd/ reads it), the
// strict decoding with Kueue's defaults, and Go durations on their own.

#include <cstdint>
#include <string_view>

#include "config/kueue_configuration.hpp"
#include "kube/json/yaml.hpp"

namespace {

namespace json = kueuepp::json;
namespace config = kueuepp::config;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto doc = json::parse_yaml(text)) {
    auto decoded = config::decode_configuration(*doc);
    if (decoded) {
      check(decoded->wait_for_pods_ready.recovery_timeout.has_value());
      check(decoded->wait_for_pods_ready.timeout.count() > 0);
    } else {
      check(!decoded.error().message.empty());
    }
  }
  if (size <= 64) (void)config::parse_go_duration(text);
  return 0;
}

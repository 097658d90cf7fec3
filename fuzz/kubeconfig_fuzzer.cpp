// Fuzzes the reading of kubeconfig files (kube/client/kubeconfig.hpp), a user's file:
// YAML, the clusters/users/contexts lists, base64 `*-data` fields, merging several files,
// and resolving a context to a client configuration. File references are cleared before
// resolving, so that an input cannot make the fuzzer read the files it names (the
// resolution of paths themselves is exercised by parsing, which makes them absolute).

#include <cstdint>
#include <string_view>

#include "kube/client/kubeconfig.hpp"

namespace {

using namespace kueuepp::kube::client;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = parse_kubeconfig(text, "/fuzz/home/.kube/config");
  if (!config) {
    check(!config.error().message.empty());
    return 0;
  }
  Kubeconfig offline = *config;
  for (auto& [name, cluster] : offline.clusters) cluster.certificate_authority.clear();
  for (auto& [name, user] : offline.users) {
    user.client_certificate.clear();
    user.client_key.clear();
    user.token_file.clear();
  }
  Kubeconfig merged = merge_kubeconfigs({offline, *config});
  check(merged.current_context == offline.current_context);
  check(merged.clusters.size() == offline.clusters.size());
  (void)resolve_kubeconfig(offline, "", "fuzz");
  for (const auto& [name, context] : offline.contexts) (void)resolve_kubeconfig(offline, name, "fuzz");
  return 0;
}

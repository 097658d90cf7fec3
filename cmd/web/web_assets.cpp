#include "cmd/web/web_assets.hpp"

#include <cstddef>

namespace kueuepp::cmd {

// Generated from the files of cmd/web/ at build time.
extern const WebAsset kWebAssets[];
extern const std::size_t kWebAssetCount;

const WebAsset* find_web_asset(std::string_view path) {
  if (path == "/" || path == "/ui" || path == "/ui/") path = "/ui/index.html";
  for (std::size_t i = 0; i < kWebAssetCount; ++i) {
    if (kWebAssets[i].path == path) return &kWebAssets[i];
  }
  return nullptr;
}

}  // namespace kueuepp::cmd

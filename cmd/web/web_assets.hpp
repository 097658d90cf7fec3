#pragma once

// The web view's files (cmd/web/index.html, app.js, style.css), built into the binary
// by a CMake step (embed_web_assets.cmake), so the view works without network access.

#include <string_view>

namespace kueuepp::cmd {

struct WebAsset {
  std::string_view path;          ///< where it is served, e.g. /ui/app.js
  std::string_view content_type;
  std::string_view body;
};

/// The asset served at `path` ("/" and "/ui/" are the page itself), or nullptr.
const WebAsset* find_web_asset(std::string_view path);

}  // namespace kueuepp::cmd

// The web view's files are built into the binary and found by the paths the page uses.

#include <gtest/gtest.h>

#include "cmd/web/web_assets.hpp"

namespace kueuepp::cmd {
namespace {

TEST(WebAssets, ThePageAndItsFilesAreServedWithTheirTypes) {
  const WebAsset* index = find_web_asset("/");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_NE(index->body.find("/ui/app.js"), std::string_view::npos);
  EXPECT_EQ(find_web_asset("/ui/"), index);
  const WebAsset* js = find_web_asset("/ui/app.js");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(js->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(js->body.find("EventSource('/debug/stream')"), std::string_view::npos);
  ASSERT_NE(find_web_asset("/ui/style.css"), nullptr);
  EXPECT_EQ(find_web_asset("/ui/missing.js"), nullptr);
  EXPECT_EQ(find_web_asset("/ui/../CMakeLists.txt"), nullptr);
}

}  // namespace
}  // namespace kueuepp::cmd

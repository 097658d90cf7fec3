// Media types are matched case-insensitively in ASCII only (as std::tolower does in the
// "C" locale): letters fold, every other byte stays as it is; parameter values keep
// their case.

#include <gtest/gtest.h>

#include "kube/apiserver/server/api/media.hpp"

namespace kueuepp::kube::server {
namespace {

TEST(MediaType, TypeSubtypeAndParameterNamesFoldToLowerCase) {
  MediaType m = parse_media_type(" Application/Merge-Patch+JSON ; Charset=\"UTF-8\"");
  EXPECT_EQ(m.type, "application");
  EXPECT_EQ(m.subtype, "merge-patch+json");
  EXPECT_EQ(m.param("charset"), "UTF-8");
}

TEST(MediaType, OnlyAsciiLettersFold) {
  MediaType m = parse_media_type("APPLICATION/J\xC3\x96SON@[`{");
  EXPECT_EQ(m.type, "application");
  EXPECT_EQ(m.subtype, "j\xC3\x96son@[`{");
}

}  // namespace
}  // namespace kueuepp::kube::server

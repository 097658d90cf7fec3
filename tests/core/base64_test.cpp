// Base64 in the dialects Kubernetes uses, from the one implementation in core/.

#include "core/base64.hpp"

#include <gtest/gtest.h>

namespace kueuepp::core {
namespace {

TEST(Base64, EncodesStandardPaddedAndUrlRaw) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("\xfb\xff"), "+/8=");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_encode("foob"), "Zm9vYg");
}

TEST(Base64, StandardDecodingIsGosStdEncoding) {
  EXPECT_EQ(base64_decode("Zm9vYg=="), "foob");
  EXPECT_EQ(base64_decode(""), "");
  EXPECT_EQ(base64_decoded_size("Zm9vYg=="), 4u);
  EXPECT_EQ(base64_decoded_size("Zm9vYmE="), 5u);
  // The offsets Go's decoder names in "illegal base64 data at input byte N".
  EXPECT_EQ(base64_error_at("not base64!"), 3u);
  EXPECT_EQ(base64_error_at("Zm9vYg"), 4u);
  EXPECT_EQ(base64_error_at("Zg==Zg=="), 2u);
  EXPECT_EQ(base64_error_at("Z==="), 1u);
  EXPECT_EQ(base64_error_at("Zm9v-_8="), 4u);
  EXPECT_EQ(base64_error_at("Zm9\nvYg=="), 3u);
  std::size_t bad = 0;
  EXPECT_FALSE(base64_decode("Zm9vYg", &bad));
  EXPECT_EQ(bad, 4u);
}

TEST(Base64, UrlDecodingIsGosRawUrlEncoding) {
  EXPECT_EQ(base64url_decode("-_8"), "\xfb\xff");
  std::size_t bad = 0;
  EXPECT_FALSE(base64url_decode("Zm9vYg==", &bad));
  EXPECT_EQ(bad, 6u);
  EXPECT_FALSE(base64url_decode("+/8", &bad));
  EXPECT_EQ(bad, 0u);
  EXPECT_FALSE(base64url_decode("Zm9vY", &bad));  // a lone sextet holds no byte
  EXPECT_EQ(bad, 4u);
}

TEST(Base64, LenientDecodingForKubeconfigData) {
  EXPECT_EQ(base64_decode_lenient("Zm9v\nYg==\n"), "foob");
  EXPECT_EQ(base64_decode_lenient("Zm9vYg"), "foob");
  EXPECT_EQ(base64_decode_lenient(" -_8 "), "\xfb\xff");
  EXPECT_EQ(base64_decode_lenient("+/8="), "\xfb\xff");
  EXPECT_FALSE(base64_decode_lenient("Zm=9v"));
  EXPECT_FALSE(base64_decode_lenient("Zm9vY"));
  EXPECT_FALSE(base64_decode_lenient("Zm9v!"));
}

TEST(Base64, RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t n = 0; n <= bytes.size(); n += 37) {
    const std::string data = bytes.substr(0, n);
    EXPECT_EQ(base64_decode(base64_encode(data)), data);
    EXPECT_EQ(base64url_decode(base64url_encode(data)), data);
    EXPECT_EQ(base64_decode_lenient(base64url_encode(data)), data);
    EXPECT_EQ(base64_decoded_size(base64_encode(data)), n);
  }
}

}  // namespace
}  // namespace kueuepp::core

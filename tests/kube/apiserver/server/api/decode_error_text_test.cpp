// kube-apiserver's wording for bodies it cannot read a kind from (Go's encoding/json
// errors and the summary of the body it quotes).

#include <gtest/gtest.h>

#include "kube/apiserver/server/api/decode_error_text.hpp"

namespace kueuepp::kube::server {
namespace {

TEST(DecodeErrorText, ATruncatedOrEmptyBodyIsAnUnexpectedEnd) {
  EXPECT_EQ(go_probe_error(R"({"kind":"ConfigMap")", "parser"), "unexpected end of JSON input");
  EXPECT_EQ(go_probe_error("", "parser"), "unexpected end of JSON input");
  EXPECT_EQ(go_syntax_error(R"({"data":)", "parser"), "unexpected end of JSON input");
}

TEST(DecodeErrorText, OtherSyntaxErrorsKeepTheParsersText) {
  EXPECT_EQ(go_probe_error("{]", "parser"), "parser");
  EXPECT_EQ(go_syntax_error("{]", "parser"), "parser");
}

TEST(DecodeErrorText, ANonObjectCannotBeUnmarshalledIntoTheProbe) {
  EXPECT_EQ(go_probe_error("[1,2]", "parser"),
            "json: cannot unmarshal array into Go value of type struct { APIVersion string "
            "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
  EXPECT_NE(go_probe_error("\"text\"", "parser")->find("cannot unmarshal string"), std::string::npos);
  EXPECT_EQ(go_probe_error(R"({"kind":"ConfigMap"})", "parser"), std::nullopt);
}

TEST(DecodeErrorText, TheSummaryIsTextForObjectsAndHexOtherwise) {
  EXPECT_EQ(summarize_body(""), "<empty>");
  EXPECT_EQ(summarize_body("[1,2]"), "5b312c325d");
  EXPECT_EQ(summarize_body(R"({"apiVersion":"v1","kind":"ConfigMap"})"), R"({"apiVersion":"v1","kind":"Con ...)");
}

}  // namespace
}  // namespace kueuepp::kube::server

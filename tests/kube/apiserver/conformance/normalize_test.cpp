#include "kube/apiserver/conformance/normalize.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conformance {
namespace {

json::value parsed(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << v.error().message;
  return *v;
}

TEST(Normalize, RecognizesUuidsAndTimes) {
  EXPECT_TRUE(is_uuid("0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"));
  EXPECT_FALSE(is_uuid("0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5"));
  EXPECT_FALSE(is_uuid("0f1e2d3c_4b5a-6978-8a9b-0c1d2e3f4a5b"));
  EXPECT_TRUE(is_rfc3339_time("2026-11-29T23:12:55Z"));
  EXPECT_TRUE(is_rfc3339_time("2026-11-29T23:12:55.123456Z"));
  EXPECT_TRUE(is_rfc3339_time("2026-11-29T23:12:55+01:00"));
  EXPECT_FALSE(is_rfc3339_time("2026-11-29 23:12:55Z"));
  EXPECT_FALSE(is_rfc3339_time("2026-11-29T23:12:55"));
}

TEST(Normalize, ReplacesServerValuesWithTokensAndDropsManagedFields) {
  ResponseNormalizer n;
  const json::value out = n.normalize(parsed(R"({
    "metadata": {"name": "j1", "uid": "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
                 "resourceVersion": "1234", "creationTimestamp": "2026-11-29T23:12:55Z",
                 "managedFields": [{"manager": "kubectl"}]},
    "items": [], "continue": "eyJ2IjoibWV0YSJ9", "empty": {"continue": "", "resourceVersion": ""}})"));
  EXPECT_TRUE(json::equal(out, parsed(R"({
    "metadata": {"name": "j1", "uid": "<uid>", "resourceVersion": "<rv>", "creationTimestamp": "<time>"},
    "items": [], "continue": "<continue>", "empty": {"continue": "", "resourceVersion": ""}})")))
      << json::dump(out);
}

TEST(Normalize, KeepsUuidsAndTimesTheTraceWrote) {
  ResponseNormalizer n;
  n.note_trace_written(parsed(R"({"metadata": {"uid": "11111111-2222-3333-4444-555555555555"},
                                  "spec": {"at": "2024-01-01T00:00:00Z"}})"));
  const json::value out = n.normalize(parsed(R"({
    "message": "Precondition failed: UID in precondition: 11111111-2222-3333-4444-555555555555, UID in object meta: 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
    "at": "2024-01-01T00:00:00Z", "other": "2024-01-01T00:00:01Z"})"));
  EXPECT_EQ(json::get_string(out, "message"),
            "Precondition failed: UID in precondition: 11111111-2222-3333-4444-555555555555, UID in "
            "object meta: <uid>");
  EXPECT_EQ(json::get_string(out, "at"), "2024-01-01T00:00:00Z");
  EXPECT_EQ(json::get_string(out, "other"), "<time>");
}

TEST(Normalize, ResourceVersionsSeenEarlierBecomeTokensInMessagesOnly) {
  ResponseNormalizer n;
  (void)n.normalize(parsed(R"({"metadata": {"resourceVersion": "4711"}})"));
  const json::value out = n.normalize(parsed(R"({
    "message": "Too large resource version: 99999, current: 4711", "reason": "4711", "code": 4711})"));
  EXPECT_EQ(json::get_string(out, "message"), "Too large resource version: 99999, current: <rv>");
  EXPECT_EQ(json::get_string(out, "reason"), "4711");
  EXPECT_EQ(json::find(out, "code")->to_number<int>(), 4711);
}

TEST(Normalize, GeneratedNamesBecomePatternsWhereverTheyReappear) {
  ResponseNormalizer n;
  const json::value created = n.normalize(parsed(R"({"metadata": {"generateName": "j-", "name": "j-x7k2p"}})"));
  EXPECT_EQ(json::get_string(*json::find(created, "metadata"), "name"), "j-<generated>");
  const json::value later = n.normalize(parsed(R"({"message": "jobs.batch \"j-x7k2p\" not found"})"));
  EXPECT_EQ(json::get_string(later, "message"), "jobs.batch \"j-<generated>\" not found");
}

TEST(Normalize, WarningTextsAreNormalizedLikeBodyStrings) {
  ResponseNormalizer n;
  EXPECT_EQ(n.normalize_text("object 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b is old"), "object <uid> is old");
  EXPECT_EQ(n.normalize_text("unknown field \"spec.foo\""), "unknown field \"spec.foo\"");
}

}  // namespace
}  // namespace kueuepp::kube::conformance

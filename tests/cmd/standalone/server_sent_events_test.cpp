// The framing of server-sent events.

#include <gtest/gtest.h>

#include "cmd/standalone/server_sent_events.hpp"

namespace kueuepp::cmd {
namespace {

TEST(ServerSentEvents, AnEventIsItsNameItsDataLinesAndABlankLine) {
  EXPECT_EQ(sse_event("cohorts", R"({"trees":[]})"), "event: cohorts\ndata: {\"trees\":[]}\n\n");
  EXPECT_EQ(sse_event("", "x"), "data: x\n\n");
}

TEST(ServerSentEvents, EveryLineBreakOfTheDataStartsADataLine) {
  EXPECT_EQ(sse_event("e", "a\nb\r\nc\rd"), "event: e\ndata: a\ndata: b\ndata: c\ndata: d\n\n");
  EXPECT_EQ(sse_event("e", "a\n"), "event: e\ndata: a\ndata: \n\n");
  EXPECT_EQ(sse_event("e", ""), "event: e\ndata: \n\n");
}

TEST(ServerSentEvents, NamesAndCommentsStayOnOneLine) {
  EXPECT_EQ(sse_event("a\nb", "x"), "event: a b\ndata: x\n\n");
  EXPECT_EQ(sse_comment("keep\nalive"), ": keep alive\n\n");
  EXPECT_NE(sse_response_head().find("Content-Type: text/event-stream\r\n"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::cmd

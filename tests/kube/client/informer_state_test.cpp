#include "kube/client/informer_state.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using Kind = InformerState::Action::Kind;

InformerState make_state() {
  return InformerState(Backoff({100ms, 1000ms, 2.0, 0.0}, [] { return 0.0; }));
}

ApiError status(int code, const char* reason) {
  ApiError e;
  e.http_status = code;
  e.reason = reason;
  return e;
}

TEST(InformerState, ListsThenWatchesFromTheListVersion) {
  InformerState s = make_state();
  auto a = s.start();
  EXPECT_EQ(a.kind, Kind::List);
  EXPECT_EQ(a.delay, 0ms);
  a = s.on_list_succeeded("100");
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(a.resource_version, "100");
  EXPECT_EQ(a.delay, 0ms);
}

TEST(InformerState, EventsAndBookmarksAdvanceTheVersionForTheNextWatch) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  s.on_event("101");
  s.on_event("");  // an object without a version does not erase the last one
  s.on_event("105");  // a bookmark
  auto a = s.on_watch_closed(5min);
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(a.resource_version, "105");
  EXPECT_EQ(a.delay, 0ms);
}

TEST(InformerState, AnInStreamGoneRelistsAtOnceAndForgetsTheStaleVersion) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  s.on_event("150");
  auto a = s.on_watch_error_event(status(410, "Expired"));
  EXPECT_EQ(a.kind, Kind::List);
  EXPECT_EQ(a.delay, 0ms);
  EXPECT_EQ(s.resource_version(), "");
  EXPECT_EQ(s.relists(), 1);
  a = s.on_list_succeeded("300");
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(a.resource_version, "300");
}

TEST(InformerState, AGoneHttpStatusRelistsToo) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  auto a = s.on_watch_failed(status(410, "Gone"));
  EXPECT_EQ(a.kind, Kind::List);
  EXPECT_EQ(a.delay, 0ms);
}

TEST(InformerState, RepeatedGoneWithoutProgressBacksOffInsteadOfSpinning) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  auto a = s.on_watch_failed(status(410, "Gone"));
  EXPECT_EQ(a.delay, 0ms);
  s.on_list_succeeded("200");
  a = s.on_watch_error_event(status(410, "Expired"));  // again, no event in between
  EXPECT_EQ(a.kind, Kind::List);
  EXPECT_EQ(a.delay, 100ms);
  s.on_list_succeeded("300");
  s.on_event("301");  // progress
  a = s.on_watch_error_event(status(410, "Expired"));
  EXPECT_EQ(a.delay, 0ms);
}

TEST(InformerState, NeverWatchesFromAVersionThatWasGone) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  s.on_event("150");
  s.on_watch_error_event(status(410, "Expired"));
  // Whatever fails next, the stale "150" is never used again.
  auto a = s.on_list_failed(status(500, "InternalError"));
  EXPECT_EQ(a.kind, Kind::List);
  a = s.on_list_succeeded("400");
  EXPECT_EQ(a.resource_version, "400");
}

TEST(InformerState, OtherWatchFailuresResumeFromTheLastVersionWithGrowingBackoff) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  s.on_event("120");
  auto a = s.on_watch_failed(make_error(ApiError::Kind::Transport, "watch", "reset"));
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(a.resource_version, "120");
  EXPECT_EQ(a.delay, 100ms);
  a = s.on_watch_failed(status(500, "InternalError"));
  EXPECT_EQ(a.delay, 200ms);
  a = s.on_watch_error_event(status(500, "InternalError"));
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(a.delay, 400ms);
  s.on_event("121");
  a = s.on_watch_closed(1ms);  // the stream delivered events: healthy
  EXPECT_EQ(a.delay, 0ms);
  a = s.on_watch_failed(status(503, "ServiceUnavailable"));
  EXPECT_EQ(a.delay, 100ms);  // backoff was reset by the healthy stream
}

TEST(InformerState, StreamsThatCloseAtOnceBackOff) {
  InformerState s = make_state();
  s.start();
  s.on_list_succeeded("100");
  EXPECT_EQ(s.on_watch_closed(5ms).delay, 100ms);
  EXPECT_EQ(s.on_watch_closed(5ms).delay, 200ms);
  EXPECT_EQ(s.on_watch_closed(InformerState::kHealthyStream).delay, 0ms);
  EXPECT_EQ(s.on_watch_closed(5ms).delay, 100ms);
}

TEST(InformerState, ListFailuresBackOff) {
  InformerState s = make_state();
  s.start();
  EXPECT_EQ(s.on_list_failed(status(503, "x")).delay, 100ms);
  EXPECT_EQ(s.on_list_failed(status(503, "x")).delay, 200ms);
  auto a = s.on_list_succeeded("1");
  EXPECT_EQ(a.kind, Kind::Watch);
  EXPECT_EQ(s.on_list_failed(status(503, "x")).delay, 100ms);
}

}  // namespace
}  // namespace kueuepp::kube::client

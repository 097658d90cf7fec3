#include "kube/client/api_error.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

HttpResponse response(int status, std::string body, Headers headers = {}) {
  return HttpResponse{status, std::move(headers), std::move(body)};
}

TEST(ApiError, DecodesANotFoundStatus) {
  const ApiError e = decode_error_response(
      response(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
        "message":"jobs.batch \"j1\" not found","reason":"NotFound",
        "details":{"name":"j1","group":"batch","kind":"jobs"},"code":404})"),
      "get Job ns/j1");
  EXPECT_EQ(e.kind, ApiError::Kind::Status);
  EXPECT_EQ(e.http_status, 404);
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, "jobs.batch \"j1\" not found");
  EXPECT_EQ(e.details.name, "j1");
  EXPECT_EQ(e.details.group, "batch");
  EXPECT_EQ(e.details.kind, "jobs");
  EXPECT_TRUE(e.is_not_found());
  EXPECT_FALSE(e.is_conflict());
  EXPECT_FALSE(e.is_retryable());
  EXPECT_EQ(e.describe(), "get Job ns/j1: 404 NotFound: jobs.batch \"j1\" not found");
}

TEST(ApiError, TellsConflictFromAlreadyExists) {
  const ApiError conflict = decode_error_response(
      response(409, R"({"kind":"Status","reason":"Conflict","code":409,"message":"modified"})"), "u");
  EXPECT_TRUE(conflict.is_conflict());
  EXPECT_FALSE(conflict.is_already_exists());
  const ApiError exists = decode_error_response(
      response(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})"), "c");
  EXPECT_TRUE(exists.is_already_exists());
  EXPECT_FALSE(exists.is_conflict());
}

TEST(ApiError, DecodesCausesOfAnInvalidStatus) {
  const ApiError e = decode_error_response(
      response(422, R"({"kind":"Status","reason":"Invalid","code":422,"message":"bad",
        "details":{"name":"wl","kind":"Workload","causes":[
          {"reason":"FieldValueRequired","message":"Required value","field":"spec.podSets[0].template"},
          {"reason":"FieldValueInvalid","field":"<nil>"}]}})"),
      "create Workload ns/wl");
  EXPECT_TRUE(e.is_invalid());
  ASSERT_EQ(e.details.causes.size(), 2u);
  EXPECT_EQ(e.details.causes[0].reason, "FieldValueRequired");
  EXPECT_EQ(e.details.causes[0].field, "spec.podSets[0].template");
  EXPECT_EQ(e.details.causes[0].message, "Required value");
  EXPECT_NE(e.describe().find("spec.podSets[0].template: FieldValueRequired"), std::string::npos);
}

TEST(ApiError, FallsBackToTheHttpStatusForNonStatusBodies) {
  const ApiError e = decode_error_response(response(404, "404 page not found\n"), "get");
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, "404 page not found");
  EXPECT_TRUE(e.is_not_found());
  const ApiError gateway = decode_error_response(response(502, "<html>bad gateway</html>"), "get");
  EXPECT_EQ(gateway.http_status, 502);
  EXPECT_TRUE(gateway.is_retryable());
}

TEST(ApiError, TheHttpStatusWinsOverTheBodyCode) {
  const ApiError e =
      decode_error_response(response(410, R"({"kind":"Status","reason":"Expired"})"), "list");
  EXPECT_EQ(e.http_status, 410);
  EXPECT_TRUE(e.is_gone());
}

TEST(ApiError, ReadsRetryAfterFromTheHeaderOrTheDetails) {
  const ApiError header = decode_error_response(
      response(429, R"({"kind":"Status","reason":"TooManyRequests","code":429})",
               {{"Retry-After", "3"}}),
      "get");
  ASSERT_TRUE(header.retry_after.has_value());
  EXPECT_EQ(header.retry_after->count(), 3);
  EXPECT_TRUE(header.is_too_many_requests());
  EXPECT_TRUE(header.is_retryable());

  const ApiError details = decode_error_response(
      response(504, R"({"kind":"Status","reason":"Timeout","details":{"retryAfterSeconds":2}})"),
      "get");
  ASSERT_TRUE(details.retry_after.has_value());
  EXPECT_EQ(details.retry_after->count(), 2);
  EXPECT_TRUE(details.is_server_timeout());
}

TEST(ApiError, ParsesOnlyDeltaSecondsRetryAfter) {
  EXPECT_EQ(parse_retry_after("7")->count(), 7);
  EXPECT_EQ(parse_retry_after(" 0 ")->count(), 0);
  EXPECT_FALSE(parse_retry_after("abc"));
  EXPECT_FALSE(parse_retry_after("-1"));
  EXPECT_FALSE(parse_retry_after("1.5"));
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
  EXPECT_EQ(parse_retry_after("999999999")->count(), 86400);  // capped
}

TEST(ApiError, DecodesAnInStreamWatchError) {
  auto status = json::parse(R"json({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"too old resource version: 1 (5)","reason":"Expired","code":410})json");
  ASSERT_TRUE(status);
  const ApiError e = decode_status_object(*status, "watch Job");
  EXPECT_EQ(e.http_status, 410);
  EXPECT_TRUE(e.is_gone());
  EXPECT_EQ(e.message, "too old resource version: 1 (5)");
}

TEST(ApiError, LocalErrorsHaveKindsAndPredicates) {
  ApiError transport = make_error(ApiError::Kind::Transport, "get", "connection refused");
  EXPECT_TRUE(transport.is_transport());
  EXPECT_TRUE(transport.is_retryable());
  EXPECT_FALSE(transport.is_not_found());
  EXPECT_EQ(transport.describe(), "get: connection failed: connection refused");
  ApiError cancelled = make_error(ApiError::Kind::Cancelled, "watch", "stop");
  EXPECT_TRUE(cancelled.is_cancelled());
  EXPECT_FALSE(cancelled.is_retryable());
  EXPECT_TRUE(make_error(ApiError::Kind::Timeout, "get", "").is_timeout());
}

TEST(ApiError, MalformedStatusBodiesDoNotCrash) {
  for (const char* body : {"{", "[]", "null", R"({"kind":"Status","code":"x","details":[]})",
                           R"({"kind":"Status","details":{"causes":{}}})", ""}) {
    const ApiError e = decode_error_response(response(500, body), "get");
    EXPECT_EQ(e.http_status, 500) << body;
    EXPECT_EQ(e.kind, ApiError::Kind::Status);
  }
}

}  // namespace
}  // namespace kueuepp::kube::client

namespace kueuepp::kube::client {
namespace {

TEST(ApiError, AWriteMayHaveBeenAppliedUnlessRefusedOrNeverSent) {
  auto status = [](int code) {
    ApiError e;
    e.kind = ApiError::Kind::Status;
    e.http_status = code;
    return e;
  };
  EXPECT_FALSE(status(409).may_have_been_applied());
  EXPECT_FALSE(status(429).may_have_been_applied()) << "refused before the server acts";
  EXPECT_FALSE(status(422).may_have_been_applied());
  EXPECT_TRUE(status(500).may_have_been_applied());
  EXPECT_TRUE(status(504).may_have_been_applied()) << "kube-apiserver's timeout: etcd may still commit";
  ApiError reset = make_error(ApiError::Kind::Transport, "PATCH x", "reading the response failed: reset");
  EXPECT_TRUE(reset.may_have_been_applied());
  ApiError refused = reset;
  refused.not_sent = true;  // connecting failed
  EXPECT_FALSE(refused.may_have_been_applied());
  EXPECT_TRUE(make_error(ApiError::Kind::Timeout, "PATCH x", "timed out").may_have_been_applied());
  EXPECT_TRUE(make_error(ApiError::Kind::Decode, "PATCH x", "bad body").may_have_been_applied());
  EXPECT_FALSE(make_error(ApiError::Kind::Usage, "PATCH x", "no name").may_have_been_applied());
  EXPECT_FALSE(fence_deadline_error("PATCH x", std::chrono::milliseconds(5)).may_have_been_applied());
}

}  // namespace
}  // namespace kueuepp::kube::client

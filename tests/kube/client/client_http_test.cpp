// The client over real HTTP against the test server: verbs, headers, keep-alive,
// retries, rate limiting, timeouts, token refresh, shutdown.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include "kube/client/kinds/job.hpp"
#include "kube/client/rate_limiter.hpp"
#include "tests/kube/client/client_fixture.hpp"
#include "tests/kube/client/temp_dir.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using resources::kJob;

/// Whether `answered` was set to true within ten seconds (an asynchronous call's answer).
bool answered_true(std::promise<bool>& answered) {
  auto f = answered.get_future();
  return f.wait_for(10s) == std::future_status::ready && f.get();
}

TEST(ClientHttp, GetSendsTheRightRequestAndDecodesTheObject) {
  auto server = TestServer::start([](const TestRequest&) {
    return TestResponse::json(200, job_json("j1", "42"));
  });
  ClientConfig config;
  config.token = "secret";
  auto client = make_client(server->url(), fast_options(), config);
  BlockingClient blocking(*client);
  auto job = blocking.get(kJob, "ns", "j1");
  ASSERT_TRUE(job) << job.error().describe();
  EXPECT_EQ(job->name(), "j1");
  EXPECT_EQ(job->resource_version(), "42");
  const auto requests = server->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/apis/batch/v1/namespaces/ns/jobs/j1");
  EXPECT_EQ(requests[0].header("Authorization"), "Bearer secret");
  EXPECT_EQ(requests[0].header("Accept"), "application/json");
  EXPECT_EQ(requests[0].header("User-Agent"), "kueuepp/0.1");
  EXPECT_EQ(requests[0].header("Host"), "127.0.0.1:" + std::to_string(server->port()));
  EXPECT_EQ(client->stats().requests_of(Verb::Get), 1u);
}

TEST(ClientHttp, ErrorsAreDecodedStatuses) {
  auto server = TestServer::start([](const TestRequest&) {
    return TestResponse::json(404, R"({"kind":"Status","status":"Failure","reason":"NotFound",
      "message":"jobs.batch \"nope\" not found","details":{"name":"nope","group":"batch","kind":"jobs"},"code":404})");
  });
  auto client = make_client(server->url());
  auto job = BlockingClient(*client).get(kJob, "ns", "nope");
  ASSERT_FALSE(job);
  EXPECT_TRUE(job.error().is_not_found());
  EXPECT_EQ(job.error().details.name, "nope");
  EXPECT_EQ(job.error().operation, "get Job ns/nope");
  EXPECT_EQ(server->requests().size(), 1u);  // 404 is not retried
}

TEST(ClientHttp, CreateUpdatePatchAndDeleteSendFieldManagerBodiesAndContentTypes) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.method == "DELETE") {
      if (r.target.find("/gone") != std::string::npos) {
        return TestResponse::json(200, R"({"kind":"Status","status":"Success","details":{"name":"gone"}})");
      }
      return TestResponse::json(200, R"({"kind":"Job","metadata":{"name":"held","deletionTimestamp":"2024-01-01T00:00:00Z","finalizers":["x"]}})");
    }
    if (r.method == "PATCH") return TestResponse::json(200, job_json("j1"));
    return TestResponse::json(r.method == "POST" ? 201 : 200, r.body.empty() ? job_json("j") : r.body);
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);

  Job job;
  job.set_name("j1");
  job.set_suspend(true);
  auto created = blocking.create(kJob, job);  // no namespace: the config's default
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(created->api_version(), "batch/v1");  // filled in

  Job existing(*json::parse(job_json("j1", "7")));
  existing.json().as_object()["status"] = json::object{{"unknownToUs", 1}};
  auto updated = blocking.update(kJob, existing);
  ASSERT_TRUE(updated);
  auto status = blocking.update_status(kJob, existing);
  ASSERT_TRUE(status);

  PatchOptions patch_options;
  patch_options.field_manager = "kueue-admission";
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::Merge, *json::parse(R"({"spec":{"suspend":false}})"), patch_options));
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::Json, *json::parse(R"([{"op":"remove","path":"/spec/suspend"}])")));
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::StrategicMerge, *json::parse(R"({"spec":{}})")));
  PatchOptions apply_options;
  apply_options.force = true;
  apply_options.dry_run = true;
  ASSERT_TRUE(blocking.apply(kJob, existing, apply_options));

  DeleteOptions del;
  del.propagation_policy = "Background";
  del.precondition_resource_version = "7";
  auto deleted = blocking.remove(kJob, "ns", "gone", del);
  ASSERT_TRUE(deleted);
  EXPECT_FALSE(deleted->finalizing);
  auto held = blocking.remove(kJob, "ns", "held");
  ASSERT_TRUE(held);
  EXPECT_TRUE(held->finalizing);
  EXPECT_TRUE(held->object.being_deleted());

  const auto r = server->requests();
  ASSERT_EQ(r.size(), 9u);
  EXPECT_EQ(r[0].method, "POST");
  EXPECT_EQ(r[0].target, "/apis/batch/v1/namespaces/default/jobs?fieldManager=kueuepp");
  EXPECT_EQ(r[0].header("Content-Type"), "application/json");
  auto posted = json::parse(r[0].body);
  ASSERT_TRUE(posted);
  EXPECT_EQ(json::get_string(*json::find(*posted, "metadata"), "namespace"), "default");
  EXPECT_EQ(json::get_string(*posted, "kind"), "Job");

  EXPECT_EQ(r[1].method, "PUT");
  EXPECT_EQ(r[1].target, "/apis/batch/v1/namespaces/ns/jobs/j1?fieldManager=kueuepp");
  auto put = json::parse(r[1].body);
  ASSERT_TRUE(put);
  EXPECT_EQ(json::get_string(*json::find(*put, "metadata"), "resourceVersion"), "7");
  EXPECT_NE(json::find_path(*put, {"status", "unknownToUs"}), nullptr);  // nothing dropped

  EXPECT_EQ(r[2].target, "/apis/batch/v1/namespaces/ns/jobs/j1/status?fieldManager=kueuepp");
  EXPECT_EQ(r[3].method, "PATCH");
  EXPECT_EQ(r[3].target, "/apis/batch/v1/namespaces/ns/jobs/j1?fieldManager=kueue-admission");
  EXPECT_EQ(r[3].header("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(r[3].body, R"({"spec":{"suspend":false}})");
  EXPECT_EQ(r[4].header("Content-Type"), "application/json-patch+json");
  EXPECT_EQ(r[5].header("Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(r[6].header("Content-Type"), "application/apply-patch+yaml");
  EXPECT_EQ(r[6].target, "/apis/batch/v1/namespaces/ns/jobs/j1?fieldManager=kueuepp&dryRun=All&force=true");

  EXPECT_EQ(r[7].method, "DELETE");
  EXPECT_EQ(r[7].target, "/apis/batch/v1/namespaces/ns/jobs/gone?propagationPolicy=Background");
  auto del_body = json::parse(r[7].body);
  ASSERT_TRUE(del_body);
  EXPECT_EQ(json::get_string(*json::find(*del_body, "preconditions"), "resourceVersion"), "7");
  EXPECT_TRUE(r[8].body.empty());

  const ClientStats stats = client->stats();
  EXPECT_EQ(stats.requests_of(Verb::Create), 1u);
  EXPECT_EQ(stats.requests_of(Verb::Update), 2u);
  EXPECT_EQ(stats.requests_of(Verb::Patch), 4u);
  EXPECT_EQ(stats.requests_of(Verb::Delete), 2u);
}

TEST(ClientHttp, APatchPreconditionIsSentAsMetadataResourceVersion) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j1")); });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  PatchOptions conditional;
  conditional.precondition_resource_version = "42";
  const json::value status = *json::parse(R"({"status":{"active":1,"note":"a \"quoted\" word"}})");
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::Merge, status, conditional));
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::Merge, json::object{}, conditional));
  const json::value labelled = *json::parse(R"({"metadata":{"labels":{"a":"b"}},"spec":{"suspend":true}})");
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j1", PatchType::StrategicMerge, labelled, conditional));
  auto refused = blocking.patch(kJob, "ns", "j1", PatchType::Json, json::array{}, conditional);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ApiError::Kind::Usage);

  const auto r = server->requests();
  ASSERT_EQ(r.size(), 3u);  // the JSON patch was refused before any request
  auto expect_body = [](const std::string& body, std::string_view expected) {
    auto sent = json::parse(body);
    ASSERT_TRUE(sent) << body;
    EXPECT_TRUE(json::equal(*sent, *json::parse(expected))) << body;
  };
  expect_body(r[0].body, R"({"metadata":{"resourceVersion":"42"},"status":{"active":1,"note":"a \"quoted\" word"}})");
  expect_body(r[1].body, R"({"metadata":{"resourceVersion":"42"}})");
  expect_body(r[2].body, R"({"metadata":{"labels":{"a":"b"},"resourceVersion":"42"},"spec":{"suspend":true}})");
  // The caller's documents are left as they were.
  EXPECT_EQ(json::find(status, "metadata"), nullptr);
  EXPECT_EQ(json::find_path(labelled, {"metadata", "resourceVersion"}), nullptr);
}

TEST(ClientHttp, CreatingFromAKeptDocumentSendsItAsItIsOrCompletesACopy) {
  std::promise<bool> first, second;  // outlive the client, whose shutdown answers what is left
  auto server = TestServer::start([](const TestRequest& r) { return TestResponse::json(201, r.body); });
  auto client = make_client(server->url());
  const std::string complete_text =
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"a","namespace":"team"},"spec":{}})";
  const json::value complete = *json::parse(complete_text);
  const json::value partial = *json::parse(R"({"metadata":{"generateName":"b-"},"spec":{}})");
  client->create(kJob, complete, [&](Result<Object> r) { first.set_value(r.has_value()); });
  client->create(kJob, partial, [&](Result<Object> r) { second.set_value(r.has_value()); });
  ASSERT_TRUE(answered_true(first));
  ASSERT_TRUE(answered_true(second));
  std::vector<std::string> posted;
  for (const auto& req : server->requests()) posted.push_back(req.target + " " + req.body);
  ASSERT_EQ(posted.size(), 2u);
  std::sort(posted.begin(), posted.end());
  EXPECT_EQ(posted[1], "/apis/batch/v1/namespaces/team/jobs?fieldManager=kueuepp " + complete_text);
  auto filled = json::parse(posted[0].substr(posted[0].find(' ') + 1));
  ASSERT_TRUE(filled);
  EXPECT_EQ(json::get_string(*filled, "kind"), "Job");
  EXPECT_EQ(json::get_string(*filled, "apiVersion"), "batch/v1");
  EXPECT_EQ(json::get_string(*json::find(*filled, "metadata"), "namespace"), "default");
  EXPECT_EQ(json::find(partial, "kind"), nullptr);  // the caller's document is untouched
}

TEST(ClientHttp, CallsWithoutANameFailWithoutARequest) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, "{}"); });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  auto r = blocking.get(kJob, "ns", "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ApiError::Kind::Usage);
  EXPECT_FALSE(blocking.update(kJob, Job()));
  EXPECT_FALSE(blocking.remove(kJob, "ns", ""));
  EXPECT_TRUE(server->requests().empty());
}

TEST(ClientHttp, UndecodableSuccessBodiesAreDecodeErrors) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.body = "this is not json";
    return r;
  });
  auto client = make_client(server->url());
  auto r = BlockingClient(*client).get(kJob, "ns", "x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ApiError::Kind::Decode);
}

TEST(ClientHttp, ListsWithSelectorsAndPagesThroughListAll) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.target.find("continue=p2") != std::string::npos) {
      return TestResponse::json(200, R"({"metadata":{"resourceVersion":"50","continue":"p3"},"items":[{"metadata":{"name":"c"}}]})");
    }
    if (r.target.find("continue=p3") != std::string::npos) {
      return TestResponse::json(200, R"({"metadata":{"resourceVersion":"50"},"items":[{"metadata":{"name":"d"}}]})");
    }
    return TestResponse::json(200, R"({"kind":"JobList","metadata":{"resourceVersion":"50","continue":"p2","remainingItemCount":2},
      "items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  ListOptions options;
  options.label_selector = "app=ct";
  options.limit = 2;
  auto page = blocking.list(kJob, "ns", options);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->continue_token, "p2");
  EXPECT_EQ(page->remaining_item_count, 2);
  EXPECT_EQ(page->items[0].kind(), "Job");  // built-in list items get their type
  EXPECT_EQ(page->items[0].api_version(), "batch/v1");

  ListOptions all_options;
  all_options.label_selector = "app=ct";
  auto all = blocking.list_all(kJob, "", all_options, 2);
  ASSERT_TRUE(all) << all.error().describe();
  ASSERT_EQ(all->items.size(), 4u);
  EXPECT_EQ(all->items[3].name(), "d");
  EXPECT_EQ(all->resource_version, "50");
  const auto r = server->requests();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].target, "/apis/batch/v1/namespaces/ns/jobs?labelSelector=app%3Dct&limit=2");
  EXPECT_EQ(r[1].target, "/apis/batch/v1/jobs?labelSelector=app%3Dct&limit=2");
  EXPECT_EQ(r[2].target, "/apis/batch/v1/jobs?labelSelector=app%3Dct&limit=2&continue=p2");
  EXPECT_EQ(client->stats().requests_of(Verb::List), 4u);
}

TEST(ClientHttp, ListAllRestartsUnpaginatedWhenTheContinueTokenExpires) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.target.find("continue=") != std::string::npos) {
      return TestResponse::json(410, R"({"kind":"Status","reason":"Expired","code":410})");
    }
    if (r.target.find("limit=") != std::string::npos) {
      return TestResponse::json(200, R"({"metadata":{"resourceVersion":"1","continue":"old"},"items":[{"metadata":{"name":"a"}}]})");
    }
    return TestResponse::json(200, R"({"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  });
  auto client = make_client(server->url());
  auto all = BlockingClient(*client).list_all(kJob, "ns", {}, 1);
  ASSERT_TRUE(all) << all.error().describe();
  EXPECT_EQ(all->items.size(), 2u);
  EXPECT_EQ(all->resource_version, "9");
  EXPECT_EQ(server->requests().size(), 3u);
}

TEST(ClientHttp, ReusesKeepAliveConnections) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(blocking.get(kJob, "ns", "j"));
  EXPECT_EQ(server->connections_accepted(), 1);
  const auto stats = client->stats();
  EXPECT_EQ(stats.connections_opened, 1u);
  EXPECT_EQ(stats.connections_reused, 4u);
  for (const auto& r : server->requests()) EXPECT_EQ(r.connection, 1);
}

TEST(ClientHttp, OpensANewConnectionWhenTheServerClosesIt) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r = TestResponse::json(200, job_json("j"));
    r.close_after = true;
    return r;
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(blocking.get(kJob, "ns", "j"));
  EXPECT_EQ(server->connections_accepted(), 3);
  EXPECT_EQ(client->stats().retries, 0u);
}

TEST(ClientHttp, DoesNotReuseAnIdleConnectionTheServerDropped) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(201, job_json("j")); });
  ClientOptions options = fast_options();
  options.retry.max_retries = 0;  // success must not depend on a retry
  auto client = make_client(server->url(), options);
  BlockingClient blocking(*client);
  ASSERT_TRUE(blocking.create(kJob, Job(*json::parse(job_json("a")))));
  server->drop_connections();  // the idle keep-alive connection dies
  std::this_thread::sleep_for(100ms);
  auto second = blocking.create(kJob, Job(*json::parse(job_json("b"))));  // a POST: never retried
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(server->connections_accepted(), 2);
}

TEST(ClientHttp, RetriesTooManyRequestsHonouringRetryAfter) {
  std::atomic<int> calls{0};
  auto server = TestServer::start([&](const TestRequest&) {
    if (calls++ == 0) {
      TestResponse r = TestResponse::json(429, R"({"kind":"Status","reason":"TooManyRequests","code":429})");
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    return TestResponse::json(201, job_json("j"));
  });
  auto client = make_client(server->url());
  const auto start = std::chrono::steady_clock::now();
  auto created = BlockingClient(*client).create(kJob, Job(*json::parse(job_json("j"))));  // POST too
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(calls.load(), 2);
  EXPECT_GE(elapsed, 1s);
  EXPECT_EQ(client->stats().retries, 1u);
  EXPECT_EQ(client->stats().requests_of(Verb::Create), 2u);
}

TEST(ClientHttp, RetriesServerErrorsOnlyForIdempotentRequests) {
  std::atomic<int> calls{0};
  auto server = TestServer::start([&](const TestRequest&) {
    ++calls;
    return TestResponse::json(500, R"({"kind":"Status","reason":"InternalError","code":500})");
  });
  ClientOptions options = fast_options();
  options.retry.max_retries = 3;
  auto client = make_client(server->url(), options);
  BlockingClient blocking(*client);
  auto get = blocking.get(kJob, "ns", "j");
  ASSERT_FALSE(get);
  EXPECT_EQ(get.error().http_status, 500);
  EXPECT_EQ(calls.load(), 4);  // 1 + 3 retries
  calls = 0;
  auto post = blocking.create(kJob, Job(*json::parse(job_json("j"))));
  ASSERT_FALSE(post);
  EXPECT_EQ(calls.load(), 1);  // a POST may have been applied: not retried
  calls = 0;
  auto patch = blocking.patch(kJob, "ns", "j", PatchType::Merge, json::object{});
  EXPECT_FALSE(patch);
  EXPECT_EQ(calls.load(), 1);
}

TEST(ClientHttp, RetriesAnIdempotentRequestWhoseConnectionWasReset) {
  std::atomic<int> calls{0};
  auto server = TestServer::start([&](const TestRequest&) {
    TestResponse r = TestResponse::json(200, job_json("j"));
    if (calls++ == 0) r.drop = true;  // close without answering
    return r;
  });
  auto client = make_client(server->url());
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_TRUE(job) << job.error().describe();
  EXPECT_EQ(calls.load(), 2);
}

TEST(ClientHttp, DoesNotRetryAPostWhoseConnectionWasReset) {
  std::atomic<int> calls{0};
  auto server = TestServer::start([&](const TestRequest&) {
    ++calls;
    TestResponse r;
    r.drop = true;
    return r;
  });
  auto client = make_client(server->url());
  auto created = BlockingClient(*client).create(kJob, Job(*json::parse(job_json("j"))));
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().kind, ApiError::Kind::Transport);
  EXPECT_FALSE(created.error().not_sent);
  EXPECT_EQ(calls.load(), 1);
}

TEST(ClientHttp, ConnectionRefusedIsANotSentTransportErrorAndIsRetried) {
  std::uint16_t port = 0;
  {
    auto server = TestServer::start([](const TestRequest&) { return TestResponse{}; });
    port = server->port();
  }  // now nothing listens there
  ClientOptions options = fast_options();
  options.retry.max_retries = 2;
  auto client = make_client("http://127.0.0.1:" + std::to_string(port), options);
  auto created = BlockingClient(*client).create(kJob, Job(*json::parse(job_json("j"))));
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().kind, ApiError::Kind::Transport);
  EXPECT_TRUE(created.error().not_sent);
  EXPECT_NE(created.error().message.find("connecting to 127.0.0.1"), std::string::npos);
  EXPECT_EQ(client->stats().retries, 2u);  // even a POST: it never reached the server
}

TEST(ClientHttp, TimesOutSlowAnswers) {
  auto server = TestServer::start([](const TestRequest&) {
    std::this_thread::sleep_for(600ms);
    return TestResponse::json(200, job_json("j"));
  });
  ClientOptions options = fast_options();
  options.request_timeout = 150ms;
  options.retry.max_retries = 0;
  auto client = make_client(server->url(), options);
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_FALSE(job);
  EXPECT_TRUE(job.error().is_timeout());
}

TEST(ClientHttp, ReadModifyWriteRetriesOnConflict) {
  std::atomic<int> puts{0};
  auto server = TestServer::start([&](const TestRequest& r) {
    if (r.method == "GET") return TestResponse::json(200, job_json("j", std::to_string(10 + puts.load())));
    if (puts++ < 2) {
      return TestResponse::json(409, R"({"kind":"Status","reason":"Conflict","code":409,
        "message":"the object has been modified; please apply your changes to the latest version and try again"})");
    }
    return TestResponse::json(200, r.body);
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  int mutations = 0;
  auto result = blocking.read_modify_write(kJob, "ns", "j", [&](Object& o) -> Expected<bool> {
    ++mutations;
    o.ensure({"spec", "suspend"}) = false;
    return true;
  });
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(mutations, 3);
  EXPECT_EQ(puts.load(), 3);
  EXPECT_FALSE(Job(result->json()).suspended());
  // The final PUT carried the version read just before it.
  const auto requests = server->requests();
  EXPECT_EQ(json::get_string(*json::find(*json::parse(requests.back().body), "metadata"), "resourceVersion"), "12");
}

TEST(ClientHttp, ReadModifyWriteGivesUpAfterMaxAttemptsAndSkipsNoOps) {
  std::atomic<int> puts{0};
  auto server = TestServer::start([&](const TestRequest& r) {
    if (r.method == "GET") return TestResponse::json(200, job_json("j"));
    ++puts;
    return TestResponse::json(409, R"({"kind":"Status","reason":"Conflict","code":409})");
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  ReadModifyWriteOptions options;
  options.max_attempts = 2;
  auto result = blocking.read_modify_write(kJob, "ns", "j", [](Object&) -> Expected<bool> { return true; }, options);
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().is_conflict());
  EXPECT_EQ(puts.load(), 2);

  puts = 0;
  auto unchanged = blocking.read_modify_write(kJob, "ns", "j", [](Object&) -> Expected<bool> { return false; });
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(puts.load(), 0);

  auto refused = blocking.read_modify_write(kJob, "ns", "j", [](Object&) -> Expected<bool> {
    return fail("quota is gone");
  });
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("quota is gone"), std::string::npos);
}

TEST(ClientHttp, RateLimiterThrottlesAndCountsTheWait) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  ClientOptions options = fast_options();
  options.qps = 20;
  options.burst = 1;
  auto client = make_client(server->url(), options);
  BlockingClient blocking(*client);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(blocking.get(kJob, "ns", "j"));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 140ms);  // 3 waits of ~50 ms
  const auto stats = client->stats();
  EXPECT_GE(stats.throttled_requests, 2u);
  EXPECT_GT(stats.throttled_time, 50ms);
}

TEST(ClientHttp, AThrottledWriteThatMayWaitGoesOutOnAStep) {
  std::mutex mutex;
  std::vector<std::chrono::steady_clock::time_point> arrivals;
  auto server = TestServer::start([&](const TestRequest&) {
    std::lock_guard lock(mutex);
    arrivals.push_back(std::chrono::steady_clock::now());
    return TestResponse::json(200, job_json("j"));
  });
  ClientOptions options = fast_options();
  // A token every 500 ms, so that the next write must wait for one even when the GET
  // (connection set-up included) takes a few hundred milliseconds, as under TSan; a step
  // ten times that, so that a write sent on its token would mostly arrive before the step.
  options.qps = 2;
  options.burst = 1;
  options.throttle_granularity = 5s;
  auto client = make_client(server->url(), options);
  BlockingClient blocking(*client);
  ASSERT_TRUE(blocking.get(kJob, "ns", "j"));  // spends the burst: the next write waits

  // Its token comes within 500 ms; it goes out on the next whole five seconds of
  // the steady clock (never before: the assertion below holds whatever the load). Sent
  // on its token instead, it would arrive before that unless the call came within the
  // token's wait of the step (one time in ten).
  PatchOptions may_wait;
  may_wait.may_wait_for_step = true;
  const auto called = std::chrono::steady_clock::now();
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j", PatchType::Merge, *json::parse(R"({"spec":{"suspend":false}})"),
                             may_wait));
  std::lock_guard lock(mutex);
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1], round_up_to_step(called, 5s));
}

/// A client whose rate limiter gives a token every second (QPS 1, burst 1), its burst
/// spent on a GET of job ns/j: its next request waits for most of a second, even when the
/// GET itself took hundreds of milliseconds (as under TSan). Null if that GET failed.
std::unique_ptr<Client> client_with_the_burst_spent(TestServer& server) {
  ClientOptions options = fast_options();
  options.qps = 1;
  options.burst = 1;
  auto client = make_client(server.url(), options);
  if (!BlockingClient(*client).get(kJob, "ns", "j")) return nullptr;
  return client;
}

TEST(ClientHttp, AFencedWriteIsNotSentOnceItsDeadlinePassed) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  auto client = client_with_the_burst_spent(*server);
  ASSERT_TRUE(client);
  BlockingClient blocking(*client);
  const json::value patch = json::object{{"spec", json::object{{"suspend", false}}}};
  // The rate limiter holds it past its Lease: it is not sent.
  PatchOptions fenced;
  fenced.send_before = std::chrono::steady_clock::now() + 100ms;
  auto refused = blocking.patch(kJob, "ns", "j", PatchType::Merge, patch, fenced);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ApiError::Kind::Cancelled);
  EXPECT_EQ(refused.error().reason, "NotOwner");
  EXPECT_TRUE(refused.error().not_sent);
  EXPECT_NE(refused.error().message.find("not sent"), std::string::npos) << refused.error().message;
  // A deadline it meets changes nothing.
  PatchOptions in_time;
  in_time.send_before = std::chrono::steady_clock::now() + 10s;
  ASSERT_TRUE(blocking.patch(kJob, "ns", "j", PatchType::Merge, patch, in_time));
  const auto r = server->requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, "GET");
  EXPECT_EQ(r[1].method, "PATCH");
}

TEST(ClientHttp, ABackgroundWriteLetsAWriteSentAfterItGoFirst) {
  std::promise<bool> background_done, foreground_done;  // outlive the client
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  auto client = client_with_the_burst_spent(*server);
  ASSERT_TRUE(client);
  BlockingClient blocking(*client);
  PatchOptions background;
  background.background = true;
  client->patch(kJob, "ns", "background", PatchType::Merge, *json::parse(R"({"spec":{}})"),
                [&](Result<Object> r) { background_done.set_value(r.has_value()); }, background);
  // Sent after it, this one reserves the next token; the background write holds none
  // and asks again when that token is gone.
  client->patch(kJob, "ns", "foreground", PatchType::Merge, *json::parse(R"({"spec":{}})"),
                [&](Result<Object> r) { foreground_done.set_value(r.has_value()); }, PatchOptions{});
  ASSERT_TRUE(answered_true(foreground_done));
  ASSERT_TRUE(answered_true(background_done));
  std::vector<std::string> order;
  for (const auto& req : server->requests()) order.push_back(req.method + " " + req.target.substr(0, req.target.find('?')));
  EXPECT_EQ(order, (std::vector<std::string>{"GET /apis/batch/v1/namespaces/ns/jobs/j",
                                             "PATCH /apis/batch/v1/namespaces/ns/jobs/foreground",
                                             "PATCH /apis/batch/v1/namespaces/ns/jobs/background"}));
  EXPECT_GE(client->stats().throttled_requests, 2u);  // both waited, each counted once
}

TEST(ClientHttp, RawPassesHeadersAndBodiesVerbatim) {
  auto server = TestServer::start([](const TestRequest& r) {
    TestResponse resp;
    resp.status = 201;
    resp.headers = {{"Content-Type", "text/plain"},
                    {"Warning", "299 - \"first\""},
                    {"Warning", "299 - \"second\""}};
    resp.body = "echo:" + r.body;
    return resp;
  });
  ClientConfig config;
  config.token = "t";
  auto client = make_client(server->url(), fast_options(), config);
  BlockingClient blocking(*client);
  HttpRequest request;
  request.method = "POST";
  request.target = "/api/v1/namespaces/x/configmaps?fieldValidation=Strict";
  request.headers = {{"Accept", "application/yaml"}, {"Content-Type", "application/yaml"},
                     {"Authorization", "Bearer override"}};
  request.body = "a: 1\n";
  auto response = blocking.raw(request);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "echo:a: 1\n");
  EXPECT_EQ(find_headers(response->headers, "warning").size(), 2u);

  HttpRequest empty_body;
  empty_body.method = "POST";
  empty_body.target = "/x";
  empty_body.body = "";
  ASSERT_TRUE(blocking.raw(empty_body));
  HttpRequest no_body;
  no_body.target = "/y";
  ASSERT_TRUE(blocking.raw(no_body));

  const auto r = server->requests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].target, "/api/v1/namespaces/x/configmaps?fieldValidation=Strict");
  EXPECT_EQ(r[0].header("Accept"), "application/yaml");
  EXPECT_EQ(r[0].header("Authorization"), "Bearer override");  // the caller's wins
  EXPECT_EQ(r[0].header("Content-Length"), "5");
  EXPECT_EQ(r[1].header("Content-Length"), "0");
  EXPECT_EQ(r[1].body, "");
  EXPECT_EQ(r[2].header("Content-Length"), "");
  EXPECT_EQ(r[2].header("Authorization"), "Bearer t");
  EXPECT_EQ(client->stats().requests_of(Verb::Raw), 3u);
}

TEST(ClientHttp, RawDoesNotRetryUnlessAsked) {
  std::atomic<int> calls{0};
  auto server = TestServer::start([&](const TestRequest&) {
    ++calls;
    return TestResponse::json(503, "{}");
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  HttpRequest request;
  request.target = "/healthz";
  auto once = blocking.raw(request);
  ASSERT_TRUE(once);
  EXPECT_EQ(once->status, 503);
  EXPECT_EQ(calls.load(), 1);
  auto retried = blocking.raw(request, RawOptions{true, {}});
  ASSERT_TRUE(retried);
  EXPECT_EQ(calls.load(), 1 + 1 + 5);
}

TEST(ClientHttp, RereadsARotatedTokenFileOn401) {
  TempDir dir;
  const std::string token_file = dir.write("token", "old");
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.header("Authorization") != "Bearer new") {
      return TestResponse::json(401, R"({"kind":"Status","reason":"Unauthorized","code":401})");
    }
    return TestResponse::json(200, job_json("j"));
  });
  ClientConfig config;
  config.token_file = token_file;
  auto client = make_client(server->url(), fast_options(), config);
  BlockingClient blocking(*client);
  auto first = blocking.get(kJob, "ns", "j");
  ASSERT_FALSE(first);
  EXPECT_TRUE(first.error().is_unauthorized());
  EXPECT_EQ(server->requests().size(), 2u);  // one re-read and resend, then give up
  dir.write("token", "new");  // the kubelet rotates the token
  auto second = blocking.get(kJob, "ns", "j");
  ASSERT_TRUE(second) << second.error().describe();
}

/// The log lines written while it lives (the default logger's, swapped for a ring buffer).
class CapturedLog {
 public:
  CapturedLog()
      : previous_(spdlog::default_logger()), sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", sink_));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::vector<std::string> lines_at(spdlog::level::level_enum level) const {
    std::vector<std::string> out;
    for (const auto& m : sink_->last_raw()) {
      if (m.level == level) out.emplace_back(m.payload.data(), m.payload.size());
    }
    return out;
  }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

// A 403 means the client's identity lacks a permission: said at error level with the
// server's message, whoever made the request; a write into a terminating namespace is not.
TEST(ClientHttp, AForbiddenRequestIsLoggedAsAnErrorWithTheServersMessage) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.target.find("/namespaces/gone/") != std::string::npos) {
      return TestResponse::json(403, R"({"kind":"Status","code":403,"reason":"Forbidden",
          "message":"unable to create new content in namespace gone because it is being terminated",
          "details":{"causes":[{"reason":"NamespaceTerminating","field":"metadata.namespace"}]}})");
    }
    return TestResponse::json(403, R"({"kind":"Status","code":403,"reason":"Forbidden",
        "message":"jobs.batch \"j\" is forbidden: User \"system:serviceaccount:s:c\" cannot patch resource \"jobs\" in API group \"batch\" in the namespace \"ns\""})");
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  CapturedLog log;
  auto refused = blocking.get(kJob, "ns", "j");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().is_forbidden());
  EXPECT_FALSE(blocking.get(kJob, "gone", "j"));
  std::vector<std::string> errors = log.lines_at(spdlog::level::err);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "the API server forbade GET /apis/batch/v1/namespaces/ns/jobs/j: jobs.batch \"j\" is forbidden: User "
            "\"system:serviceaccount:s:c\" cannot patch resource \"jobs\" in API group \"batch\" in the namespace "
            "\"ns\"; grant this permission to the client's identity (for the controller: its ServiceAccount's "
            "roles in deploy/rbac/)");
}

TEST(ClientHttp, CallbacksRunOnTheIoThreadWhereBlockingCallsAreRefused) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  auto client = make_client(server->url());
  Waiter<std::pair<bool, bool>> waiter;
  auto cb = waiter.callback();
  EXPECT_FALSE(client->in_io_thread());
  client->get(kJob, "ns", "j", [&client, cb](Result<Object> r) {
    BlockingClient blocking(*client);
    auto nested = blocking.get(kJob, "ns", "j");  // would deadlock: refused
    cb({client->in_io_thread() && r.has_value(), !nested && nested.error().kind == ApiError::Kind::Usage});
  });
  auto [on_io_thread, refused] = waiter.get();
  EXPECT_TRUE(on_io_thread);
  EXPECT_TRUE(refused);
}

TEST(ClientHttp, ShutdownCancelsInFlightWorkPromptly) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.target.find("watch=1") != std::string::npos) {
      TestResponse held;
      held.hold_open = true;
      return held;
    }
    std::this_thread::sleep_for(2s);
    return TestResponse::json(200, job_json("j"));
  });
  auto client = make_client(server->url());
  Waiter<Result<Object>> slow;
  client->get(kJob, "ns", "slow", slow.callback());
  Waiter<Result<void>> watch_end;
  WatchHandlers handlers;
  handlers.on_end = watch_end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  std::atomic<bool> timer_fired{false};
  client->after(10s, [&] { timer_fired = true; });
  std::this_thread::sleep_for(200ms);

  const auto start = std::chrono::steady_clock::now();
  client->shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  auto slow_result = slow.get(1s);
  ASSERT_FALSE(slow_result);
  EXPECT_TRUE(slow_result.error().is_cancelled());
  auto end = watch_end.get(1s);
  ASSERT_FALSE(end);
  EXPECT_TRUE(end.error().is_cancelled());
  EXPECT_FALSE(timer_fired.load());

  // After shutdown every call fails at once.
  auto late = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_FALSE(late);
  EXPECT_TRUE(late.error().is_cancelled());
  client->shutdown();  // idempotent
  server->stop();
}

TEST(ClientHttp, CreateRejectsBadConfigurations) {
  ClientConfig config;
  config.server = "ftp://x";
  EXPECT_FALSE(Client::create(config));
  config.server = "https://127.0.0.1:1";
  config.ca_pem = "not a certificate";
  auto bad_ca = Client::create(config);
  ASSERT_FALSE(bad_ca);
  EXPECT_NE(bad_ca.error().message.find("certificate authority"), std::string::npos);
}

TEST(ClientHttp, ManyConcurrentRequestsOnSeveralIoThreads) {
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  auto server = TestServer::start([&](const TestRequest& r) {
    const int now = ++in_flight;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {}
    std::this_thread::sleep_for(2ms);
    --in_flight;
    return TestResponse::json(200, job_json(r.target.substr(r.target.rfind('/') + 1)));
  });
  ClientOptions options = fast_options();
  options.io_threads = 4;
  options.max_idle_connections = 8;
  auto client = make_client(server->url(), options);
  constexpr int kRequests = 200;
  std::atomic<int> ok{0};
  std::atomic<int> done{0};
  std::promise<void> all_done;
  for (int i = 0; i < kRequests; ++i) {
    client->get(kJob, "ns", "j" + std::to_string(i), [&, i](Result<Object> r) {
      if (r && r->name() == "j" + std::to_string(i)) ++ok;
      if (++done == kRequests) all_done.set_value();
    });
  }
  ASSERT_EQ(all_done.get_future().wait_for(20s), std::future_status::ready);
  EXPECT_EQ(ok.load(), kRequests);
  const auto stats = client->stats();
  EXPECT_EQ(stats.requests_of(Verb::Get), static_cast<std::uint64_t>(kRequests));
  EXPECT_GT(max_in_flight.load(), 1);  // requests really ran in parallel
  EXPECT_EQ(stats.connections_opened + stats.connections_reused, static_cast<std::uint64_t>(kRequests));
  client->shutdown();
}

TEST(ClientHttp, WritesWaitingForTokensFromManyThreadsAreEachAnsweredOnceOnShutdown) {
  // Writes from several threads wait for tokens while the client shuts down under them:
  // every request is answered exactly once, those still waiting as cancelled.
  auto server = TestServer::start([](const TestRequest&) { return TestResponse::json(200, job_json("j")); });
  ClientOptions options = fast_options();
  options.qps = 1;  // one token at once, the next a second later: the rest wait
  options.burst = 1;
  auto client = make_client(server->url(), options);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  std::atomic<int> answered{0}, ok{0}, cancelled{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        client->patch(kJob, "ns", "j", PatchType::Merge, *json::parse(R"({"spec":{}})"), [&](Result<Object> r) {
          ++answered;
          if (r) ++ok;
          else if (r.error().is_cancelled()) ++cancelled;
        });
      }
    });
  }
  std::this_thread::sleep_for(20ms);  // some are still being issued
  client->shutdown();
  for (auto& c : callers) c.join();
  // Calls made after shutdown began are answered at once, the others by the shutdown.
  for (int i = 0; i < 100 && answered.load() < kThreads * kPerThread; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(answered.load(), kThreads * kPerThread);
  EXPECT_LE(ok.load(), 2);
  EXPECT_EQ(ok.load() + cancelled.load(), kThreads * kPerThread);
}

TEST(ClientHttp, TimersRunUnlessCancelled) {
  auto server = TestServer::start([](const TestRequest&) { return TestResponse{}; });
  auto client = make_client(server->url());
  Waiter<bool> fired;
  auto cb = fired.callback();
  std::atomic<bool> cancelled_fired{false};
  auto handle = client->after(50ms, [&] { cancelled_fired = true; });
  handle.cancel();
  client->after(20ms, [cb, &client] { cb(client->in_io_thread()); });
  EXPECT_TRUE(fired.get());
  std::this_thread::sleep_for(80ms);
  EXPECT_FALSE(cancelled_fired.load());
}

TEST(ClientHttp, StripsManagedFieldsFromAnswersAndWatchesWhenConfigured) {
  const std::string object =
      R"({"kind":"Job","metadata":{"name":"a","resourceVersion":"9","managedFields":[{"manager":"m","operation":"Update"}]},"spec":{"parallelism":1}})";
  auto server = TestServer::start([&](const TestRequest& r) {
    if (r.target.find("watch=1") != std::string::npos) {
      TestResponse w;
      w.chunks = {R"({"type":"ADDED","object":)" + object + "}\n"};
      return w;
    }
    if (r.target.find("/jobs/a") != std::string::npos) return TestResponse::json(200, object);
    return TestResponse::json(200, R"({"metadata":{"resourceVersion":"9"},"items":[)" + object + "]}");
  });
  ClientOptions options = fast_options();
  options.strip_managed_fields = true;
  auto client = make_client(server->url(), options);
  BlockingClient blocking(*client);
  auto got = blocking.get(kJob, "ns", "a");
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(got->resource_version(), "9");
  EXPECT_EQ(json::find_path(got->json(), {"metadata", "managedFields"}), nullptr);
  EXPECT_NE(json::find(got->json(), "spec"), nullptr);
  auto listed = blocking.list(kJob, "ns", {});
  ASSERT_TRUE(listed) << listed.error().describe();
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(json::find_path(listed->items[0].json(), {"metadata", "managedFields"}), nullptr);

  std::mutex mutex;
  std::vector<WatchEvent> events;
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  ASSERT_TRUE(end.get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(json::find_path(events[0].object, {"metadata", "managedFields"}), nullptr);

  // A write whose caller reads only the new version gets the metadata alone.
  PatchOptions metadata_only;
  metadata_only.metadata_only_answer = true;
  auto patched = blocking.patch(kJob, "ns", "a", PatchType::Merge, json::object{{"spec", json::object{}}}, metadata_only);
  ASSERT_TRUE(patched) << patched.error().describe();
  EXPECT_EQ(patched->resource_version(), "9");
  EXPECT_EQ(patched->kind(), "Job");
  EXPECT_EQ(json::find(patched->json(), "spec"), nullptr);
  EXPECT_EQ(json::find_path(patched->json(), {"metadata", "managedFields"}), nullptr);

  // By default nothing is left out.
  auto plain = make_client(server->url());
  BlockingClient plain_blocking(*plain);
  auto full = plain_blocking.get(kJob, "ns", "a");
  ASSERT_TRUE(full);
  EXPECT_NE(json::find_path(full->json(), {"metadata", "managedFields"}), nullptr);
}

}  // namespace
}  // namespace kueuepp::kube::client

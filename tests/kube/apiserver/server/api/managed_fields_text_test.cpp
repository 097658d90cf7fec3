// A write that leaves metadata.managedFields exactly as stored (a status writer updating
// fields it alone owns, within the second of its previous write) has the store reuse
// their stored text instead of serializing them again. What is sent must be what a full
// serialization gives: the stored text of every version is checked against its own
// parse, and each writer's entry against the second the write happened in (a reused text
// with a stale time would fall before it). The store holds managedFields apart from the
// rest of each version and shares them between versions: every reader that needs the
// whole object must still get them.

#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kWorkloads = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team/workloads";
const std::string kWorkload = std::string(kWorkloads) + "/w";
const std::string kStatus = kWorkload + "/status";

json::value workload() {
  return json::parse(
             R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","labels":{"app":"x"}},)"
             R"("spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"restartPolicy":"Never",)"
             R"("containers":[{"name":"c","image":"busybox"}]}}}]}})")
      .value();
}

json::object status_patch(int round) {
  return json::object{
      {"status", json::object{{"conditions", json::array{json::object{{"type", "QuotaReserved"},
                                                                      {"status", "True"},
                                                                      {"reason", "R"},
                                                                      {"message", "round " + std::to_string(round)},
                                                                      {"lastTransitionTime", "2024-01-01T00:00:00Z"}}}}}}};
}

/// Now, as the server writes managedFields times (RFC 3339, seconds, UTC).
std::string now_rfc3339() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void sleep_into_next_second() {
  auto now = std::chrono::system_clock::now();
  auto next = std::chrono::ceil<std::chrono::seconds>(now + std::chrono::milliseconds(1));
  std::this_thread::sleep_until(next + std::chrono::milliseconds(20));
}

/// The time of `manager`'s entry ("" when it has none).
std::string entry_time(const json::value& obj, std::string_view manager) {
  const json::value* mf = at(obj, "/metadata/managedFields");
  if (mf == nullptr) return "";
  for (const auto& e : mf->as_array()) {
    if (str(e, "/manager") == manager) return str(e, "/time");
  }
  return "";
}

class ManagedFieldsText : public KueueServerTest {
 protected:
  void SetUp() override {
    KueueServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create(kWorkloads, workload());
  }

  /// A status patch by `manager`; its answer and the stored text (GET) must be full
  /// serializations of the same version, the manager's entry dated in the write's second.
  void write(std::string_view manager, int round) {
    const std::string before = now_rfc3339();
    HttpReply reply = api().patch(kStatus + "?fieldManager=" + std::string(manager), status_patch(round));
    const std::string after = now_rfc3339();
    ASSERT_EQ(reply.status, 200) << reply.body;
    const json::value answer = body_json(reply);
    EXPECT_EQ(reply.body, json::dump(answer));
    HttpReply stored = api().get(kWorkload);
    EXPECT_EQ(stored.body, reply.body);
    const std::string time = entry_time(answer, manager);
    EXPECT_GE(time, before) << reply.body;
    EXPECT_LE(time, after) << reply.body;
    EXPECT_EQ(str(answer, "/status/conditions/0/message"), "round " + std::to_string(round));
  }
};

TEST_F(ManagedFieldsText, StatusWritesWithinASecondAndAcrossSeconds) {
  int round = 0;
  // A new entry, then in place. In later seconds the writer's entry moves after the
  // creator's (re-sorted), and then, last already, only its time changes: the case where
  // a stale text would go unnoticed but for the time.
  for (int second = 0; second < 3; ++second) {
    for (int i = 0; i < 5; ++i) write("kueue", ++round);
    sleep_into_next_second();
  }
  // The entries of the first writer stay as they are while another one's change.
  write("other", ++round);
  write("other", ++round);
  sleep_into_next_second();
  write("kueue", ++round);
  write("kueue", ++round);
}

// Versions that share a stored text are each what they were: a watch from the first
// version replays every later one whole, each entry list as it was at its version.
TEST_F(ManagedFieldsText, EveryVersionKeepsItsOwnText) {
  const json::value first = get_ok(kWorkload);
  std::vector<std::string> answers;
  for (int round = 1; round <= 4; ++round) {
    HttpReply reply = api().patch(kStatus + "?fieldManager=kueue", status_patch(round));
    ASSERT_EQ(reply.status, 200);
    answers.push_back(reply.body);
    if (round == 2) sleep_into_next_second();
  }
  HttpConnection watch(port());
  auto head = watch.start_stream(std::string(kWorkloads) + "?watch=1&resourceVersion=" + str(first, "/metadata/resourceVersion"));
  ASSERT_TRUE(head && head->status == 200);
  for (const std::string& answer : answers) {
    auto line = watch.next_line(std::chrono::seconds(5));
    ASSERT_TRUE(line);
    const json::value event = json::parse(*line).value();
    EXPECT_EQ(json::dump(event.at("object")), answer);
  }
}

// The managedFields a write kept (shared with the previous version, not copied into the
// new one) reach whatever takes the object whole: partial metadata, a dry run, a JSON
// patch that reads them, a deletion's watch event, a PUT of what GET answered.
TEST_F(ManagedFieldsText, KeptManagedFieldsReachEveryReader) {
  ASSERT_EQ(api().patch(kStatus + "?fieldManager=kueue", status_patch(1)).status, 200);
  HttpReply kept = api().patch(kStatus + "?fieldManager=kueue", status_patch(2));
  ASSERT_EQ(kept.status, 200);
  const json::value current = body_json(kept);
  const json::value* entries = at(current, "/metadata/managedFields");
  ASSERT_TRUE(entries != nullptr && entries->is_array() && entries->as_array().size() == 2u) << kept.body;
  const std::string expected = json::dump(*entries);
  auto entries_of = [](const HttpReply& reply) {
    const json::value body = body_json(reply);
    const json::value* mf = at(body, "/metadata/managedFields");
    return mf != nullptr ? json::dump(*mf) : std::string("absent");
  };

  HttpReply partial = api().request("GET", kWorkload, {}, "application/json",
                                    {{"Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(partial.status, 200) << partial.body;
  EXPECT_EQ(entries_of(partial), expected);
  HttpReply partial_list = api().request("GET", kWorkloads, {}, "application/json",
                                         {{"Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(partial_list.status, 200) << partial_list.body;
  const json::value list = body_json(partial_list);
  const json::value* item_entries = at(list, "/items/0/metadata/managedFields");
  EXPECT_EQ(item_entries != nullptr ? json::dump(*item_entries) : std::string("absent"), expected);

  HttpReply dry = api().patch(kStatus + "?fieldManager=kueue&dryRun=All", status_patch(3));
  ASSERT_EQ(dry.status, 200) << dry.body;
  EXPECT_EQ(entries_of(dry), expected);

  const json::value test_op = json::array{
      json::object{{"op", "test"}, {"path", "/metadata/managedFields"}, {"value", *entries}},
      json::object{{"op", "replace"}, {"path", "/metadata/labels/app"}, {"value", "y"}}};
  HttpReply json_patched = api().patch(kWorkload, test_op, "application/json-patch+json");
  ASSERT_EQ(json_patched.status, 200) << json_patched.body;

  json::value whole = get_ok(kWorkload);
  whole.as_object()["metadata"].as_object()["labels"].as_object()["app"] = "z";
  HttpReply put = api().put(kWorkload, whole);
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string before_delete = entries_of(put);
  EXPECT_NE(before_delete, "absent");

  HttpConnection watch(port());
  auto head = watch.start_stream(std::string(kWorkloads) + "?watch=1&resourceVersion=" +
                                 str(body_json(put), "/metadata/resourceVersion"));
  ASSERT_TRUE(head && head->status == 200);
  ASSERT_EQ(api().del(kWorkload).status, 200);
  auto line = watch.next_line(std::chrono::seconds(5));
  ASSERT_TRUE(line);
  const json::value event = json::parse(*line).value();
  EXPECT_EQ(str(event, "/type"), "DELETED");
  const json::value* deleted = at(event, "/object/metadata/managedFields");
  ASSERT_NE(deleted, nullptr) << *line;
  EXPECT_EQ(json::dump(*deleted), before_delete);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

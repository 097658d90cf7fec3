// A write that leaves metadata.managedFields exactly as stored (a status writer updating
// fields it alone owns, within the second of its previous write) has the store reuse
// their stored text instead of serializing them again. What is sent must be what a full
// serialization gives: the stored text of every version is checked against its own
// parse, and each writer's entry against the second the write happened in (a reused text
// with a stale time would fall before it).

#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "tests/kube/server/server_fixture.hpp"

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

}  // namespace
}  // namespace kueuepp::kube::server::testing

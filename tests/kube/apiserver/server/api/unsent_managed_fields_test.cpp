// A merge patch that does not name metadata.managedFields leaves them out of the patched
// object, and the field manager records the write on the stored ones. Every write here is
// made twice, on twin objects: once without managedFields, once sending the stored list
// as it is (the path that copies and compares them). Both must end alike: same
// managedFields (times aside), status and labels, and a no-op stays a no-op.

#include <algorithm>
#include <functional>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kWorkloads = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team/workloads";
constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";

json::value workload(std::string_view name) {
  return json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" +
                     std::string(name) +
                     R"(","labels":{"app":"x"}},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}]}})")
      .value();
}

/// What must agree between the twins: managedFields (times aside), status, generation and
/// the labels the tests write (a Job's other labels carry its name and uid).
std::string comparable(const json::value& v) {
  json::value managed = at(v, "/metadata/managedFields") != nullptr ? *at(v, "/metadata/managedFields") : nullptr;
  if (managed.is_array()) {
    for (auto& e : managed.as_array()) e.as_object().erase("time");
  }
  json::object labels;
  for (const char* k : {"app", "l"}) {
    if (const json::value* l = at(v, std::string("/metadata/labels/") + k)) labels[k] = *l;
  }
  const json::value* status = at(v, "/status");
  return json::dump(json::object{{"managedFields", managed},
                                 {"status", status != nullptr ? *status : nullptr},
                                 {"generation", at(v, "/metadata/generation") != nullptr ? *at(v, "/metadata/generation") : nullptr},
                                 {"labels", labels}});
}

class UnsentManagedFields : public KueueServerTest {
 protected:
  void SetUp() override {
    KueueServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }

  /// Patches `a` with `patch` and `b` with `patch` plus b's stored managedFields; both
  /// answers must agree, and a write is stored on both or on neither.
  void twin_patch(const std::string& a, const std::string& b, std::string_view suffix, std::string_view manager,
                  json::object patch) {
    json::value before_a = get_ok(a);
    json::value before_b = get_ok(b);
    json::value sent = patch;
    json::object& meta = sent.as_object()["metadata"].emplace_object();
    if (const json::value* m = patch.if_contains("metadata")) meta = m->as_object();
    meta["managedFields"] = *at(before_b, "/metadata/managedFields");
    std::string query = "?fieldManager=" + std::string(manager);
    json::value after_a = expect(200, api().patch(a + std::string(suffix) + query, patch));
    json::value after_b = expect(200, api().patch(b + std::string(suffix) + query, sent));
    EXPECT_EQ(comparable(after_a), comparable(after_b)) << json::dump(patch);
    EXPECT_EQ(rv_of(after_a) == rv_of(before_a), rv_of(after_b) == rv_of(before_b)) << json::dump(patch);
    EXPECT_EQ(json::dump(after_a), json::dump(get_ok(a)));  // answered as stored
  }

  void writes_agree(std::string_view collection, const json::value& a_body, const json::value& b_body,
                    const std::function<json::object(int)>& status_change) {
    json::value ca = create(collection, a_body);
    json::value cb = create(collection, b_body);
    const std::string a = std::string(collection) + "/" + str(ca, "/metadata/name");
    const std::string b = std::string(collection) + "/" + str(cb, "/metadata/name");
    // A status writer's first write (new entry), its next ones (in place), the same
    // write again (no-op), another writer taking a field over.
    twin_patch(a, b, "/status", "kueue", status_change(1));
    twin_patch(a, b, "/status", "kueue", status_change(2));
    twin_patch(a, b, "/status", "kueue", status_change(2));
    twin_patch(a, b, "/status", "other", status_change(3));
    // Main resource: a label by a new manager, by the creator, a no-op, one removed.
    twin_patch(a, b, "", "labeler", json::object{{"metadata", json::object{{"labels", json::object{{"l", "1"}}}}}});
    twin_patch(a, b, "", "unknown", json::object{{"metadata", json::object{{"labels", json::object{{"l", "2"}}}}}});
    twin_patch(a, b, "", "unknown", json::object{{"metadata", json::object{{"labels", json::object{{"l", "2"}}}}}});
    twin_patch(a, b, "", "labeler", json::object{{"metadata", json::object{{"labels", json::object{{"app", nullptr}}}}}});
  }
};

TEST_F(UnsentManagedFields, WorkloadWritesEndAsWithTheStoredListSent) {
  writes_agree(kWorkloads, workload("a"), workload("b"), [](int round) {
    return json::object{
        {"status", json::object{{"conditions", json::array{json::object{{"type", "QuotaReserved"},
                                                                        {"status", "True"},
                                                                        {"reason", "R"},
                                                                        {"message", "round " + std::to_string(round)},
                                                                        {"lastTransitionTime", "2024-01-01T00:00:00Z"}}}}}}};
  });
}

TEST_F(UnsentManagedFields, JobWritesEndAsWithTheStoredListSent) {
  writes_agree(kJobs, job("a"), job("b"),
               [](int round) { return json::object{{"status", json::object{{"active", round}}}}; });
}

TEST_F(UnsentManagedFields, ManagedFieldsNamedByThePatchStillCount) {
  json::value created = create(kWorkloads, workload("w"));
  const std::string w = std::string(kWorkloads) + "/w";
  ASSERT_NE(at(created, "/metadata/managedFields"), nullptr);
  // `[]` on the main resource clears them (and the write of nothing else is a no-op that
  // still stores nothing, as kube-apiserver does).
  json::value cleared = expect(200, api().patch(w, json::object{{"metadata", json::object{{"managedFields", json::array{}}}}}));
  EXPECT_EQ(rv_of(cleared), rv_of(created));
  // A status write ignores what it sends: the stored entries record it.
  json::value status = expect(
      200, api().patch(w + "/status?fieldManager=kueue",
                       json::object{{"metadata", json::object{{"managedFields", json::array{json::object{{"manager", "forged"}}}}}},
                                    {"status", json::object{{"conditions", json::array{json::object{
                                                                            {"type", "QuotaReserved"},
                                                                            {"status", "True"},
                                                                            {"reason", "R"},
                                                                            {"message", "m"},
                                                                            {"lastTransitionTime", "2024-01-01T00:00:00Z"}}}}}}}));
  std::vector<std::string> managers;
  for (const auto& e : at(status, "/metadata/managedFields")->as_array()) managers.emplace_back(str(e, "/manager"));
  std::sort(managers.begin(), managers.end());
  EXPECT_EQ(managers, (std::vector<std::string>{"kueue", "unknown"}));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

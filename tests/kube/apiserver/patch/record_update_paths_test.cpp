// record_update keeps the stored managedFields in place when a write only touches fields
// its manager alone owns (most status writes), and decodes, recomputes and encodes them
// otherwise. Both must give byte-identical objects: random write sequences by several
// managers on a Job are recorded both ways and compared after every step.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kube/apiserver/patch/managed_fields.hpp"
#include "kube/apiserver/patch/managed_fields_kept.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using testing::J;

struct Writer {
  std::string manager;
  std::string api_version;
  std::string subresource;
};

const std::vector<Writer>& writers() {
  static const std::vector<Writer> all = {
      {"kubectl", "batch/v1", ""},      {"kueue", "batch/v1", ""},   {"kueue", "batch/v1", "status"},
      {"job-controller", "batch/v1", "status"}, {"kubectl", "batch/v2", ""}, {"", "batch/v1", ""},
  };
  return all;
}

json::value job() {
  return J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"ns","uid":"u",
    "labels":{"app":"a"}},"spec":{"parallelism":1,"template":{"spec":{"containers":[{"name":"c","image":"i1",
    "env":[{"name":"E","value":"1"}]}]}}},"status":{"active":0}})");
}

class Mutator {
 public:
  explicit Mutator(unsigned seed) : rng_(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A main-resource write changes spec and metadata; a status write changes status.
  void mutate(json::value& doc, bool status) {
    json::object& o = doc.as_object();
    const int changes = 1 + pick(3);
    for (int i = 0; i < changes; ++i) {
      if (status) {
        mutate_status(o["status"].as_object());
      } else {
        mutate_main(o);
      }
    }
  }

 private:
  std::string word(const char* prefix, int n) { return prefix + std::to_string(pick(n)); }

  void mutate_status(json::object& st) {
    switch (pick(4)) {
      case 0: st["active"] = pick(3); break;
      case 1: st["succeeded"] = pick(3); break;
      case 2: st.erase("succeeded"); break;
      default: {
        json::array conds;
        if (pick(2) == 0) conds.push_back(json::object{{"type", "Complete"}, {"status", word("s", 2)}});
        st["conditions"] = std::move(conds);
      }
    }
  }

  void mutate_main(json::object& o) {
    json::object& meta = o["metadata"].as_object();
    json::object& spec = o["spec"].as_object();
    json::array& containers = spec["template"].as_object()["spec"].as_object()["containers"].as_array();
    switch (pick(6)) {
      case 0: meta["labels"].as_object()[word("l", 4)] = word("v", 3); break;
      case 1: meta["labels"].as_object().erase(word("l", 4)); break;
      case 2: spec["parallelism"] = pick(4); break;
      case 3: {
        json::object& c = containers[static_cast<std::size_t>(pick(static_cast<int>(containers.size())))].as_object();
        c["image"] = word("i", 3);
        break;
      }
      case 4: {
        std::string name = word("c", 3);
        bool found = false;
        for (std::size_t k = 0; k < containers.size(); ++k) {
          if (containers[k].as_object()["name"] == json::value(name)) {
            if (containers.size() > 1) containers.erase(containers.begin() + static_cast<std::ptrdiff_t>(k));
            found = true;
            break;
          }
        }
        if (!found) containers.push_back(json::object{{"name", name}, {"image", "i0"}});
        break;
      }
      default: {
        json::object& c = containers[0].as_object();
        json::array& env = c["env"].is_array() ? c["env"].as_array() : (c["env"] = json::array()).as_array();
        env = json::array{json::object{{"name", "E"}, {"value", word("", 3)}}};
        break;
      }
    }
  }

  std::mt19937 rng_;
};

// `doc` as a store that holds managedFields apart keeps it: a null in their place. The
// list itself goes to `*apart` (null when there is none).
json::value held_apart(const json::value& doc, json::value* apart) {
  json::value held = doc;
  json::object& meta = held.as_object()["metadata"].as_object();
  *apart = nullptr;
  if (json::value* list = meta.if_contains("managedFields")) {
    *apart = *list;
    *list = nullptr;
  }
  return held;
}

std::string timestamp(int second) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2024-01-01T00:%02d:%02dZ", (second / 60) % 60, second % 60);
  return buf;
}

TEST(RecordUpdatePaths, InPlaceAndGeneralPathsAgreeOnRandomWriteSequences) {
  int in_place = 0;
  int general = 0;
  int kept = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Mutator m(seed);
    json::value stored = job();
    record_update(stored, nullptr, "creator", "batch/v1", timestamp(0));
    int clock = 0;
    std::size_t writer = 0;
    for (int step = 0; step < 300; ++step) {
      // Writers come in runs, like a controller updating the status it owns.
      if (m.pick(20) < 3) writer = static_cast<std::size_t>(m.pick(static_cast<int>(writers().size())));
      const Writer& w = writers()[writer];
      json::value next = stored;
      m.mutate(next, !w.subresource.empty());
      // Sometimes the clock stands still (ties in the entries' order), sometimes a client
      // sends managedFields of its own, or clears them.
      if (m.pick(3) != 0) ++clock;
      if (w.subresource.empty() && m.pick(25) == 0) {
        next.as_object()["metadata"].as_object()["managedFields"] = json::array();
      } else if (m.pick(3) == 0) {
        // What the API server's merge patches do (the field manager takes the stored ones).
        next.as_object()["metadata"].as_object().erase("managedFields");
      }
      const std::string now = timestamp(clock);
      json::value fast = next;
      json::value slow = next;
      json::value apart = next;
      bool kept_as_stored = false;
      const bool took_in_place = detail::record_update_via(detail::RecordPath::Any, fast, &stored, w.manager,
                                                           w.api_version, now, w.subresource, {}, {}, &kept_as_stored);
      detail::record_update_via(detail::RecordPath::GeneralOnly, slow, &stored, w.manager, w.api_version, now,
                                w.subresource, {}, {});
      ASSERT_EQ(json::dump(fast), json::dump(slow)) << "seed " << seed << " step " << step << " by " << w.manager
                                                    << " " << w.api_version << " " << w.subresource
                                                    << "\nprevious: " << json::dump(stored);
      // The same write on the stored version as the API server's store holds it: a kept
      // list is left a null stand-in, which the stored list fills back to the same object.
      json::value stored_list;
      const json::value stored_held = held_apart(stored, &stored_list);
      const json::value* list = stored_list.is_null() ? nullptr : &stored_list;
      const bool kept_apart =
          record_update_keeping(apart, &stored_held, list, w.manager, w.api_version, now, w.subresource, {});
      ASSERT_EQ(kept_apart, kept_as_stored) << "seed " << seed << " step " << step;
      if (kept_apart) {
        json::value& stand_in = apart.as_object()["metadata"].as_object()["managedFields"];
        ASSERT_TRUE(stand_in.is_null()) << "seed " << seed << " step " << step;
        stand_in = stored_list;
      }
      ASSERT_EQ(json::dump(apart), json::dump(slow)) << "seed " << seed << " step " << step;
      (took_in_place ? in_place : general) += 1;
      // Entries said to be kept serialize exactly as the stored ones (the API server then
      // reuses their stored text).
      if (kept_as_stored) {
        ++kept;
        ASSERT_TRUE(took_in_place);
        const json::value* before = json::find_path(stored, {"metadata", "managedFields"});
        const json::value* after = json::find_path(fast, {"metadata", "managedFields"});
        ASSERT_TRUE(before != nullptr && after != nullptr);
        ASSERT_EQ(json::dump(*after), json::dump(*before)) << "seed " << seed << " step " << step;
      }
      stored = std::move(fast);
      // A cleared list leaves the object untracked for good: start a new one.
      if (json::find_path(stored, {"metadata", "managedFields"}) == nullptr) {
        stored = job();
        record_update(stored, nullptr, "creator", "batch/v1", now);
      }
    }
  }
  // Both paths were exercised, the in-place one for a good share of the writes, and
  // entries were kept as stored for some of those.
  EXPECT_GT(in_place, 1000);
  EXPECT_GT(general, 1000);
  EXPECT_GT(kept, 100);
}

TEST(RecordUpdatePaths, AStatusWriteOfOwnFieldsOnlyMovesTheWritersTimestamp) {
  json::value stored = job();
  record_update(stored, nullptr, "creator", "batch/v1", "2024-01-01T00:00:00Z");
  json::value first = stored;
  first.as_object()["status"].as_object()["active"] = 1;
  record_update(first, &stored, "ctrl", "batch/v1", "2024-01-01T00:00:01Z", "status");
  json::value second = first;
  second.as_object()["status"].as_object()["active"] = 2;
  ASSERT_TRUE(detail::record_update_via(detail::RecordPath::Any, second, &first, "ctrl", "batch/v1",
                                        "2024-01-01T00:00:05Z", "status", {}, {}));
  const json::array& entries = json::find_path(second, {"metadata", "managedFields"})->as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(json::get_string(entries[1], "manager"), "ctrl");
  EXPECT_EQ(json::get_string(entries[1], "time"), "2024-01-01T00:00:05Z");
  EXPECT_EQ(json::get_string(entries[0], "time"), "2024-01-01T00:00:00Z");
}

// record_update_keeping: kept as stored only when nothing in the entries moves.
TEST(RecordUpdatePaths, EntriesKeptAsStoredWithinTheSameSecondOnly) {
  json::value stored = job();
  record_update(stored, nullptr, "creator", "batch/v1", "2024-01-01T00:00:00Z");
  // Writes that do not send managedFields, as the API server's merge patches.
  auto without_entries = [](json::value doc) {
    doc.as_object()["metadata"].as_object().erase("managedFields");
    return doc;
  };
  json::value first = without_entries(stored);
  first.as_object()["status"].as_object()["active"] = 1;
  // A new entry for the status writer: not kept.
  auto list_of = [](const json::value& doc) { return json::find_path(doc, {"metadata", "managedFields"}); };
  EXPECT_FALSE(
      record_update_keeping(first, &stored, list_of(stored), "ctrl", "batch/v1", "2024-01-01T00:00:01Z", "status", {}));
  json::value same_second = without_entries(first);
  same_second.as_object()["status"].as_object()["active"] = 2;
  EXPECT_TRUE(record_update_keeping(same_second, &first, list_of(first), "ctrl", "batch/v1", "2024-01-01T00:00:01Z",
                                    "status", {}));
  // Kept: a null stands in for the stored list.
  ASSERT_NE(list_of(same_second), nullptr);
  EXPECT_TRUE(list_of(same_second)->is_null());
  same_second.as_object()["metadata"].as_object()["managedFields"] = *list_of(first);
  json::value next_second = without_entries(same_second);
  next_second.as_object()["status"].as_object()["active"] = 3;
  EXPECT_FALSE(record_update_keeping(next_second, &same_second, list_of(same_second), "ctrl", "batch/v1",
                                     "2024-01-01T00:00:02Z", "status", {}));
  // Another manager's field: the general path, not kept.
  json::value taken = without_entries(same_second);
  taken.as_object()["spec"].as_object()["parallelism"] = 5;
  EXPECT_FALSE(record_update_keeping(taken, &same_second, list_of(same_second), "kubectl", "batch/v1",
                                     "2024-01-01T00:00:01Z", "", {}));
  // Entries the request sent (equal to the stored ones, members in another order): the
  // result serializes as sent, so it is not said to be kept.
  json::value sent = same_second;
  sent.as_object()["spec"].as_object()["parallelism"] = 1;
  json::array reordered = json::find_path(same_second, {"metadata", "managedFields"})->as_array();
  json::object& e0 = reordered[0].as_object();
  json::value manager = e0["manager"];
  e0.erase("manager");
  e0["manager"] = manager;
  sent.as_object()["metadata"].as_object()["managedFields"] = reordered;
  EXPECT_FALSE(record_update_keeping(sent, &same_second, list_of(same_second), "creator", "batch/v1",
                                     "2024-01-01T00:00:00Z", "", {}));
}

TEST(RecordUpdatePaths, TakingAnotherManagersFieldGoesTheGeneralWay) {
  json::value stored = job();
  record_update(stored, nullptr, "creator", "batch/v1", "2024-01-01T00:00:00Z");
  json::value next = stored;
  next.as_object()["spec"].as_object()["parallelism"] = 3;
  EXPECT_FALSE(detail::record_update_via(detail::RecordPath::Any, next, &stored, "kubectl", "batch/v1",
                                         "2024-01-01T00:00:01Z", "", {}, {}));
  const json::array& entries = json::find_path(next, {"metadata", "managedFields"})->as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(json::get_string(entries[1], "manager"), "kubectl");
}

// Server-set metadata (generation, resourceVersion) moving with a write is nobody's: a
// manager changing its own spec field again stays in place, and agrees with the general
// path.
TEST(RecordUpdatePaths, OwnFieldsWithAGenerationBumpStayInPlace) {
  json::value stored = job();
  stored.as_object()["metadata"].as_object()["generation"] = 1;
  record_update(stored, nullptr, "creator", "batch/v1", "2024-01-01T00:00:00Z");
  json::value first = stored;
  first.as_object()["spec"].as_object()["parallelism"] = 2;
  first.as_object()["metadata"].as_object()["generation"] = 2;
  record_update(first, &stored, "kubectl", "batch/v1", "2024-01-01T00:00:01Z");
  json::value second = first;
  second.as_object()["spec"].as_object()["parallelism"] = 3;
  second.as_object()["metadata"].as_object()["generation"] = 3;
  json::value general = second;
  ASSERT_TRUE(detail::record_update_via(detail::RecordPath::Any, second, &first, "kubectl", "batch/v1",
                                        "2024-01-01T00:00:05Z", "", {}, {}));
  detail::record_update_via(detail::RecordPath::GeneralOnly, general, &first, "kubectl", "batch/v1",
                            "2024-01-01T00:00:05Z", "", {}, {});
  EXPECT_EQ(json::dump(second), json::dump(general));
  const json::array& entries = json::find_path(second, {"metadata", "managedFields"})->as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(json::get_string(entries[1], "manager"), "kubectl");
  EXPECT_EQ(json::get_string(entries[1], "time"), "2024-01-01T00:00:05Z");
}

}  // namespace
}  // namespace kueuepp::kube::patch

// Every function on thousands of generated documents: no crash, no exception, and the
// invariants that must hold whatever the input (an empty patch changes nothing, applying
// the same configuration twice is stable, ...). Deterministic: fixed seeds.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using testing::J;
using testing::JsonEq;

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // Keys that exercise directives, list keys and metadata handling.
  std::string key() {
    static const std::vector<std::string> keys{"a", "b", "name", "type", "metadata", "spec", "status", "finalizers",
                                               "labels", "containers", "env", "ports", "containerPort", "protocol",
                                               "$patch", "$retainKeys", "$setElementOrder/containers",
                                               "$deleteFromPrimitiveList/finalizers", "$setElementOrder/a",
                                               "managedFields", "mergingList", "~", "/", ""};
    return keys[static_cast<std::size_t>(pick(static_cast<int>(keys.size())))];
  }

  json::value scalar() {
    switch (pick(7)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 0;
      case 2:
        return pick(5);
      case 3:
        return 1.5;
      case 4:
        return pick(2) == 0 ? "replace" : "delete";
      case 5:
        return "merge";
      default:
        return json::value(json::string(key()));
    }
  }

  json::value value(int depth) {
    if (depth <= 0) return scalar();
    switch (pick(4)) {
      case 0: {
        json::object o;
        const int n = pick(5);
        for (int i = 0; i < n; ++i) o[key()] = value(depth - 1);
        return o;
      }
      case 1: {
        json::array a;
        const int n = pick(4);
        for (int i = 0; i < n; ++i) {
          if (pick(2) == 0) {
            json::object item{{"name", key()}};
            if (pick(2) == 0) item[key()] = value(depth - 2);
            a.push_back(std::move(item));
          } else {
            a.push_back(value(depth - 1));
          }
        }
        return a;
      }
      default:
        return scalar();
    }
  }

  std::string pointer(const json::value& doc) {
    std::string p;
    const json::value* cur = &doc;
    while (pick(3) != 0) {
      if (const json::object* o = cur->if_object(); o != nullptr && !o->empty() && pick(4) != 0) {
        auto it = o->begin() + pick(static_cast<int>(o->size()));
        p += "/" + escape(it->key());
        cur = &it->value();
      } else if (const json::array* a = cur->if_array(); a != nullptr && !a->empty() && pick(4) != 0) {
        const int i = pick(static_cast<int>(a->size()) + 1);
        p += "/" + (i == static_cast<int>(a->size()) ? std::string(pick(2) == 0 ? "-" : "999") : std::to_string(i));
        if (i < static_cast<int>(a->size())) cur = &(*a)[static_cast<std::size_t>(i)];
      } else {
        p += "/" + escape(key());
        break;
      }
    }
    return p;
  }

  json::value ops(const json::value& doc) {
    static const std::vector<std::string> names{"add", "remove", "replace", "move", "copy", "test", "bogus"};
    json::array list;
    const int n = pick(4);
    for (int i = 0; i < n; ++i) {
      json::object op{{"op", names[static_cast<std::size_t>(pick(7))]}, {"path", pointer(doc)}};
      if (pick(3) != 0) op["value"] = value(2);
      if (pick(2) == 0) op["from"] = pointer(doc);
      list.push_back(std::move(op));
    }
    return list;
  }

 private:
  static std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }

  std::mt19937 rng_;
};

ListStrategy any_strategy(FieldPath path) {
  const std::string& last = path.back();
  if (last == "containers" || last == "mergingList" || last == "env") return {ListStrategy::Kind::Map, {"name"}};
  if (last == "ports") return {ListStrategy::Kind::Map, {"containerPort", "protocol"}, json::object{{"protocol", "TCP"}}};
  if (last == "finalizers" || last == "a") return {ListStrategy::Kind::Set, {}};
  return {};
}

TEST(PatchRobustness, MergePatch) {
  Generator g(1);
  for (int i = 0; i < 3000; ++i) {
    const json::value target = g.value(5);
    const json::value patch = g.value(5);
    auto r = merge_patch(target, patch);
    ASSERT_TRUE(r.has_value());
    if (target.is_object()) {
      EXPECT_TRUE(JsonEq(*merge_patch(target, J("{}")), target));
    }
    json::value in_place = target;
    ASSERT_TRUE(merge_patch_into(in_place, patch).has_value());
    EXPECT_TRUE(JsonEq(in_place, *r));
    // Idempotent: applying the same merge patch twice changes nothing more.
    EXPECT_TRUE(JsonEq(*merge_patch(*r, patch), *r)) << json::dump(target) << " + " << json::dump(patch);
  }
}

TEST(PatchRobustness, JsonPatch) {
  Generator g(2);
  int applied = 0;
  for (int i = 0; i < 3000; ++i) {
    const json::value target = g.value(5);
    const json::value ops = g.ops(target);
    auto r = json_patch(target, ops);
    if (r) {
      ++applied;
    } else {
      EXPECT_FALSE(r.error().message.empty());
      EXPECT_NE(r.error().kind, PatchError::Kind::Conflict);
    }
    EXPECT_TRUE(JsonEq(*json_patch(target, J("[]")), target));
  }
  EXPECT_GT(applied, 100);  // the generator does produce applicable patches
}

TEST(PatchRobustness, StrategicMergePatch) {
  Generator g(3);
  int merged = 0;
  for (int i = 0; i < 3000; ++i) {
    json::value target = g.value(5);
    if (!target.is_object()) target = json::object{{"spec", target}};
    const json::value patch = g.value(5);
    auto r = strategic_merge_patch(target, patch, any_strategy);
    if (r) {
      ++merged;
      EXPECT_TRUE(r->is_object());
    } else {
      EXPECT_FALSE(r.error().message.empty());
    }
    EXPECT_TRUE(JsonEq(*strategic_merge_patch(target, J("{}"), any_strategy), target));
  }
  EXPECT_GT(merged, 300);
}

TEST(PatchRobustness, ServerSideApplyAndRecordUpdate) {
  Generator g(4);
  int applied = 0;
  for (int i = 0; i < 1500; ++i) {
    json::value live = g.value(5);
    if (!live.is_object()) live = json::object{{"spec", live}};
    json::value config = g.value(5);
    if (!config.is_object()) config = json::object{{"status", config}};
    if (json::value* meta = json::find(config, "metadata"); meta != nullptr && meta->is_object()) {
      meta->as_object().erase("managedFields");
    }
    json::value tracked = live;
    record_update(tracked, nullptr, "creator", "v1", "2024-01-01T00:00:00Z", {}, any_strategy);

    ApplyRequest request{&tracked, &config, "applier", g.pick(2) == 0, "v1", "2024-01-01T00:00:01Z", any_strategy};
    auto r = server_side_apply(request);
    if (!r) {
      EXPECT_FALSE(r.error().message.empty());
      continue;
    }
    ++applied;
    // Applying the same configuration again (forced) is stable.
    request.live = &*r;
    request.force = true;
    auto again = server_side_apply(request);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_TRUE(JsonEq(*again, *r)) << "live " << json::dump(tracked) << "\nconfig " << json::dump(config);

    json::value next = *r;
    record_update(next, &*r, "writer", "v1", "2024-01-01T00:00:02Z", {}, any_strategy);
  }
  EXPECT_GT(applied, 300);
}

TEST(PatchRobustness, GarbageManagedFields) {
  Generator g(5);
  for (int i = 0; i < 1000; ++i) {
    json::value live = json::object{{"metadata", json::object{{"name", "x"}, {"managedFields", g.value(4)}}},
                                    {"spec", g.value(3)}};
    json::value config = J(R"({"metadata":{"name":"x"},"spec":{"a":1}})");
    ApplyRequest request{&live, &config, "m", true, "v1", "t", any_strategy};
    (void)server_side_apply(request);
    json::value next = live;
    next.as_object()["spec"] = g.value(3);
    record_update(next, &live, "w", "v1", "t", {}, any_strategy);
    record_update(next, &live, "w", "v1", "t", "status", any_strategy);
  }
}

}  // namespace
}  // namespace kueuepp::kube::patch

#include "kube/client/packed_object.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace kueuepp::kube::client {
namespace {

Object object_of(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << text;
  return Object(v ? *v : json::value{});
}

TEST(PackedObject, UnpacksToTheSameDocument) {
  Object wl = object_of(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns", "resourceVersion": "17", "generation": 2,
                 "labels": {"a": "b"}, "annotations": {}, "finalizers": []},
    "spec": {"queueName": "lq", "priority": -5, "active": true, "podSets": [{"name": "main", "count": 3,
             "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]}}}]},
    "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
               "message": "couldn't assign flavors: \"quoted\" \\ tab\t line\n é ∑ 😀"}],
               "admission": null, "ratio": 0.1, "big": 1e300, "tiny": -2.5e-300, "negzero": -0.0}
  })");
  wl.json().as_object()["int64"] = std::numeric_limits<std::int64_t>::min();
  wl.json().as_object()["uint64"] = std::numeric_limits<std::uint64_t>::max();

  auto packed = PackedObject::pack(wl);
  EXPECT_EQ(packed.text(), json::dump(wl.json()));
  auto back = packed.unpack();
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->json(), wl.json());
  // Types survive, not only values: an integer must not come back as a double.
  EXPECT_TRUE(back->find({"spec", "priority"})->is_int64());
  EXPECT_TRUE(back->find({"uint64"})->is_uint64());
  EXPECT_TRUE(back->find({"status", "ratio"})->is_double());
  EXPECT_EQ(back->condition("QuotaReserved")->message, wl.condition("QuotaReserved")->message);
}

TEST(PackedObject, PacksAnEmptyObjectAndLargeDocuments) {
  auto empty = PackedObject::pack(Object());
  EXPECT_EQ(empty.text(), "{}");
  ASSERT_TRUE(empty.unpack());
  EXPECT_EQ(empty.unpack()->json(), json::value(json::object{}));

  // Larger than the first serialization buffer (4 KiB): the buffer grows.
  Object big;
  json::array items;
  for (int i = 0; i < 2000; ++i) items.push_back(json::string("item-" + std::to_string(i)));
  big.json().as_object()["items"] = std::move(items);
  auto packed = PackedObject::pack(big);
  EXPECT_GT(packed.text().size(), 8192u);
  auto back = packed.unpack();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->json(), big.json());
  // The per-thread buffer is reused: a small object after a big one is exact again.
  EXPECT_EQ(PackedObject::pack(object_of(R"({"a":1})")).text(), R"({"a":1})");
}

}  // namespace
}  // namespace kueuepp::kube::client

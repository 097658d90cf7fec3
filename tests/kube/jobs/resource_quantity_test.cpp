#include "kube/jobs/resource_quantity.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::jobs {
namespace {

TEST(ResourceQuantity, CpuInMilli) {
  EXPECT_EQ(resource_quantity("cpu", 1500), "1500m");
  EXPECT_EQ(resource_quantity("cpu", 2000), "2");
  EXPECT_EQ(resource_quantity("cpu", 0), "0");
  EXPECT_EQ(resource_quantity("cpu", 1), "1m");
}

TEST(ResourceQuantity, MemoryInBinaryBytes) {
  EXPECT_EQ(resource_quantity("memory", 1073741824LL * 1000), "1Gi");
  EXPECT_EQ(resource_quantity("memory", 209715200LL * 1000), "200Mi");
  EXPECT_EQ(resource_quantity("memory", 1000000000LL * 1000), "1000000000");
  EXPECT_EQ(resource_quantity("memory", 512LL * 1000), "512");
  EXPECT_EQ(resource_quantity("ephemeral-storage", 2048LL * 1000), "2Ki");
  EXPECT_EQ(resource_quantity("hugepages-2Mi", 2097152LL * 1000), "2Mi");
}

TEST(ResourceQuantity, FractionalBytesRoundUp) {
  EXPECT_EQ(resource_quantity("memory", 1500), "2");
  EXPECT_EQ(resource_quantity("example.com/foo", 1), "1");
}

TEST(ResourceQuantity, OtherResourcesInWholeDecimalUnits) {
  EXPECT_EQ(resource_quantity("nvidia.com/gpu", 4000), "4");
  EXPECT_EQ(resource_quantity("pods", 1000000), "1k");
  EXPECT_EQ(resource_quantity("pods", 1500000), "1500");
}

TEST(ResourceQuantity, ResourceListJson) {
  core::ResourceList list;
  list["cpu"] = core::Quantity::from_milli(3000);
  list["memory"] = core::Quantity::from_milli(600LL * 1048576 * 1000, core::Quantity::Format::BinarySI);
  json::object o = resource_list_json(list);
  EXPECT_EQ(o.at("cpu").as_string(), "3");
  EXPECT_EQ(o.at("memory").as_string(), "600Mi");
}

}  // namespace
}  // namespace kueuepp::kube::jobs

#include "kube/client/url.hpp"

#include <gtest/gtest.h>

#include "kube/client/client_config.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace resources;

TEST(Url, PercentEncodesEverythingButUnreserved) {
  EXPECT_EQ(percent_encode("aZ09-._~"), "aZ09-._~");
  EXPECT_EQ(percent_encode("a b/c=d,e!"), "a%20b%2Fc%3Dd%2Ce%21");
  EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(percent_encode(""), "");
}

TEST(Url, BuildsResourcePaths) {
  EXPECT_EQ(resource_path(kJob, "ns", "j1"), "/apis/batch/v1/namespaces/ns/jobs/j1");
  EXPECT_EQ(resource_path(kJob, "ns"), "/apis/batch/v1/namespaces/ns/jobs");
  EXPECT_EQ(resource_path(kJob, ""), "/apis/batch/v1/jobs");  // all namespaces
  EXPECT_EQ(resource_path(kPod, "ns", "p", "status"), "/api/v1/namespaces/ns/pods/p/status");
  EXPECT_EQ(resource_path(kNamespace, "ignored", "team-a"), "/api/v1/namespaces/team-a");
  EXPECT_EQ(resource_path(kClusterQueue, "ignored", "cq"),
            "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq");
  EXPECT_EQ(resource_path(kWorkload, "ns", "wl", "status"),
            "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads/wl/status");
  EXPECT_EQ(resource_path(kLease, "kube-system", "c1f6bfd2.kueue.x-k8s.io"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/c1f6bfd2.kueue.x-k8s.io");
  EXPECT_EQ(resource_path(kEvent, "ns", "a:b"), "/api/v1/namespaces/ns/events/a%3Ab");
}

TEST(Url, DescriptorsCoverTheKindsKueueppUses) {
  EXPECT_EQ(kJob.api_version(), "batch/v1");
  EXPECT_EQ(kPod.api_version(), "v1");
  EXPECT_EQ(find_resource("kueue.x-k8s.io/v1beta2", "Workload"), &kWorkload);
  EXPECT_EQ(find_resource("events.k8s.io/v1", "Event"), &kEventsV1Event);
  EXPECT_EQ(find_resource("v1", "Event"), &kEvent);
  EXPECT_EQ(find_resource("scheduling.k8s.io/v1", "PriorityClass"), &kPriorityClass);
  EXPECT_EQ(find_resource("kueue.x-k8s.io/v1beta1", "Workload"), nullptr);
  for (const ResourceDescriptor* r : known_resources()) {
    EXPECT_FALSE(r->plural.empty());
    EXPECT_FALSE(r->kind.empty());
    EXPECT_EQ(find_resource(r->api_version(), r->kind), r);
  }
  EXPECT_FALSE(kClusterQueue.namespaced);
  EXPECT_TRUE(kLocalQueue.namespaced);
  EXPECT_FALSE(kCohort.namespaced);
  EXPECT_FALSE(kWorkloadPriorityClass.namespaced);
  EXPECT_FALSE(kResourceFlavor.namespaced);
}

TEST(Url, ListTargetsEncodeSelectorsAndPagination) {
  ListOptions options;
  options.label_selector = "app=ct,tier in (a,b)";
  options.field_selector = "metadata.name!=x";
  options.limit = 2;
  options.continue_token = "abc/==";
  EXPECT_EQ(list_target(kConfigMap, "ns", options),
            "/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dct%2Ctier%20in%20%28a%2Cb%29"
            "&fieldSelector=metadata.name%21%3Dx&limit=2&continue=abc%2F%3D%3D");
  EXPECT_EQ(list_target(kConfigMap, "ns", {}), "/api/v1/namespaces/ns/configmaps");
  ListOptions exact;
  exact.resource_version = "42";
  exact.resource_version_match = "Exact";
  EXPECT_EQ(list_target(kNamespace, "", exact),
            "/api/v1/namespaces?resourceVersion=42&resourceVersionMatch=Exact");
}

TEST(Url, WatchTargetsAskForBookmarks) {
  WatchOptions options;
  options.resource_version = "17";
  options.label_selector = "kueue.x-k8s.io/queue-name";
  options.timeout_seconds = 300;
  EXPECT_EQ(watch_target(kJob, "", options),
            "/apis/batch/v1/jobs?watch=1&resourceVersion=17&allowWatchBookmarks=true"
            "&labelSelector=kueue.x-k8s.io%2Fqueue-name&timeoutSeconds=300");
  WatchOptions plain;
  plain.allow_bookmarks = false;
  EXPECT_EQ(watch_target(kJob, "ns", plain), "/apis/batch/v1/namespaces/ns/jobs?watch=1");
}

TEST(Url, WriteTargetsAlwaysCarryAFieldManager) {
  EXPECT_EQ(write_target(kJob, "ns", "", {}, "kueuepp"),
            "/apis/batch/v1/namespaces/ns/jobs?fieldManager=kueuepp");
  WriteOptions options;
  options.field_manager = "kueue-admission";
  options.dry_run = true;
  options.field_validation = "Strict";
  options.status_subresource = true;
  EXPECT_EQ(write_target(kWorkload, "ns", "wl", options, "kueuepp", true),
            "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads/wl/status"
            "?fieldManager=kueue-admission&dryRun=All&fieldValidation=Strict&force=true");
}

TEST(Url, DeleteOptionsGoInTheQueryAndTheBody) {
  DeleteOptions options;
  options.propagation_policy = "Background";
  options.precondition_uid = "u-1";
  options.precondition_resource_version = "9";
  options.grace_period_seconds = 0;
  options.dry_run = true;
  EXPECT_EQ(delete_target(kJob, "ns", "j", options),
            "/apis/batch/v1/namespaces/ns/jobs/j?propagationPolicy=Background&dryRun=All");
  const json::value body = options.to_body();
  EXPECT_EQ(json::get_string(body, "kind"), "DeleteOptions");
  EXPECT_EQ(json::get_string(body, "propagationPolicy"), "Background");
  EXPECT_EQ(json::get_string(*json::find(body, "preconditions"), "uid"), "u-1");
  EXPECT_EQ(json::get_string(*json::find(body, "preconditions"), "resourceVersion"), "9");
  EXPECT_EQ(json::find(body, "gracePeriodSeconds")->as_int64(), 0);
  EXPECT_EQ(json::find(body, "dryRun")->as_array().at(0).as_string(), "All");
  EXPECT_TRUE(DeleteOptions{}.to_body().is_null());
}

TEST(Url, PatchContentTypes) {
  EXPECT_STREQ(patch_content_type(PatchType::Merge), "application/merge-patch+json");
  EXPECT_STREQ(patch_content_type(PatchType::Json), "application/json-patch+json");
  EXPECT_STREQ(patch_content_type(PatchType::StrategicMerge), "application/strategic-merge-patch+json");
  EXPECT_STREQ(patch_content_type(PatchType::Apply), "application/apply-patch+yaml");
}

TEST(ServerUrl, ParsesSchemesHostsPortsAndPrefixes) {
  auto https = parse_server_url("https://10.0.0.1:6443");
  ASSERT_TRUE(https);
  EXPECT_TRUE(https->tls);
  EXPECT_EQ(https->host, "10.0.0.1");
  EXPECT_EQ(https->port, 6443);
  EXPECT_EQ(https->host_header(), "10.0.0.1:6443");

  auto defaults = parse_server_url("https://api.example.com");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->port, 443);
  EXPECT_EQ(defaults->host_header(), "api.example.com");

  auto http = parse_server_url("http://127.0.0.1/k8s/clusters/c-1/");
  ASSERT_TRUE(http);
  EXPECT_FALSE(http->tls);
  EXPECT_EQ(http->port, 80);
  EXPECT_EQ(http->path_prefix, "/k8s/clusters/c-1");

  auto v6 = parse_server_url("https://[::1]:8443");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->host_header(), "[::1]:8443");

  auto bare = parse_server_url("kube:1234");
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->tls);
  EXPECT_EQ(bare->port, 1234);

  EXPECT_FALSE(parse_server_url("ftp://x"));
  EXPECT_FALSE(parse_server_url("https://:443"));
  EXPECT_FALSE(parse_server_url("https://h:0"));
  EXPECT_FALSE(parse_server_url("https://h:99999"));
  EXPECT_FALSE(parse_server_url("https://h:12ab"));
  EXPECT_FALSE(parse_server_url("https://[::1"));
}

}  // namespace
}  // namespace kueuepp::kube::client

// Durability of the data directory (kube/apiserver/server/persist): acknowledged writes survive a
// restart with the same objects and resourceVersions (and the version keeps increasing),
// a torn or corrupt tail of the write-ahead log is truncated with the intact records
// recovered, a damaged snapshot is a clear error at start, and a snapshot plus the log
// after it restores the state after many writes.

#include <filesystem>
#include <fstream>
#include <map>

#include <boost/asio/io_context.hpp>

#include "kube/apiserver/server/persist/durable_store.hpp"
#include "kube/apiserver/server/persist/record.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

json::value config_map(std::string_view name, std::string value = "v") {
  return json::object{{"metadata", json::object{{"name", name}}}, {"data", json::object{{"k", std::move(value)}}}};
}

/// The write-ahead log segments of a data directory, in order.
std::vector<std::string> segments(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind("wal-", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".log") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The last non-empty segment.
std::string last_written_segment(const std::string& dir) {
  std::string last;
  for (const auto& s : segments(dir)) {
    if (fs::file_size(s) > 0) last = s;
  }
  return last;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

void append_file(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

/// Offsets at which the records of a segment start (and its end).
std::vector<std::size_t> record_offsets(const std::string& data) {
  std::vector<std::size_t> out;
  RecordReader reader(data);
  out.push_back(0);
  while (reader.next()) out.push_back(reader.offset());
  return out;
}

class ApiServerDurability : public ServerTest {
 protected:
  ApiServerOptions options() const override { return durable_options(); }
  ApiServerOptions durable_options(bool fsync = true) const {
    ApiServerOptions o = test_options();
    o.data_dir = dir_.path();
    o.fsync = fsync;
    return o;
  }
  void restart(ApiServerOptions o) {
    stop();
    start(std::move(o));
  }
  /// Every item of a collection, serialized, plus the list's resourceVersion.
  std::string snapshot_of(std::string_view collection) {
    json::value list = get_ok(collection);
    return str(list, "/metadata/resourceVersion") + " " + json::dump(*at(list, "/items"));
  }
  std::uint64_t current_rv() { return std::stoull(str(get_ok("/api/v1/namespaces"), "/metadata/resourceVersion")); }

  TempDir dir_;
};

TEST_F(ApiServerDurability, AcknowledgedWritesSurviveARestart) {
  if (crds_dir().empty()) GTEST_SKIP() << "needs the Kueue CRDs";
  ApiServerOptions first = durable_options();
  first.crd_paths = {crds_dir()};
  restart(first);
  make_namespace("team");
  std::string jobs = "/apis/batch/v1/namespaces/team/jobs";
  create(jobs, job("j1"));
  create(jobs, job("j2"));
  ASSERT_EQ(api().patch(jobs + "/j1", json::object{{"spec", json::object{{"parallelism", 3}}}}).status, 200);
  ASSERT_EQ(api().patch(jobs + "/j1/status", json::object{{"status", json::object{{"active", 2}}}}).status, 200);
  ASSERT_EQ(api().del(jobs + "/j2?propagationPolicy=Background").status, 200);
  create(std::string(kKueue) + "/resourceflavors", resource_flavor("default"));
  create(std::string(kKueue) + "/clusterqueues", cluster_queue("cq"));
  create(std::string(kKueue) + "/namespaces/team/workloads", workload("wl"));
  // A namespace held in Terminating by an object with a finalizer.
  make_namespace("doomed");
  json::value held = config_map("held");
  held.as_object()["metadata"].as_object()["finalizers"] = json::array{"example.com/hold"};
  create("/api/v1/namespaces/doomed/configmaps", held);
  ASSERT_EQ(api().del("/api/v1/namespaces/doomed").status, 200);

  const std::vector<std::string> collections = {
      "/api/v1/namespaces", jobs, "/api/v1/configmaps", std::string(kKueue) + "/clusterqueues",
      std::string(kKueue) + "/resourceflavors", std::string(kKueue) + "/workloads",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"};
  std::map<std::string, std::string> before;
  for (const auto& c : collections) before[c] = snapshot_of(c);
  std::uint64_t rv_before = current_rv();

  // Restart without --crds: the CRDs are in the data directory too.
  restart(durable_options());
  for (const auto& c : collections) EXPECT_EQ(snapshot_of(c), before[c]) << c;
  EXPECT_EQ(current_rv(), rv_before);

  // New writes continue the versions.
  json::value after = create(jobs, job("j3"));
  EXPECT_GT(rv_of(after), rv_before);
  // Watches resume from the recovered version.
  HttpConnection watch(port());
  auto head = watch.start_stream(jobs + "?watch=1&resourceVersion=" + std::to_string(rv_of(after)));
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  ASSERT_EQ(api().patch(jobs + "/j3", json::object{{"metadata", json::object{{"labels", json::object{{"x", "y"}}}}}}).status, 200);
  auto line = watch.next_line(std::chrono::seconds(10));
  ASSERT_TRUE(line);
  EXPECT_NE(line->find(R"("type":"MODIFIED")"), std::string::npos) << *line;

  // The controllers pick up where they were: the held namespace goes once released.
  ASSERT_EQ(api().patch("/api/v1/namespaces/doomed/configmaps/held",
                        json::object{{"metadata", json::object{{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_TRUE(wait_gone("/api/v1/namespaces/doomed"));
}

TEST_F(ApiServerDurability, ManyWritesAcrossSeveralRestarts) {
  restart(durable_options(false));
  make_namespace("team");
  std::uint64_t last = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      std::string name = "cm-" + std::to_string(i % 40);
      HttpReply r = i % 7 == 6 ? api().del(std::string(kCms) + "/" + name)
                               : api().put(std::string(kCms) + "/" + name, config_map(name, std::to_string(round * 1000 + i)));
      if (r.status == 404) r = api().post(kCms, config_map(name, std::to_string(round * 1000 + i)));
      ASSERT_TRUE(r.status == 200 || r.status == 201) << r.status << " " << r.body;
    }
    std::string state = snapshot_of(kCms);
    std::uint64_t rv = current_rv();
    EXPECT_GT(rv, last);
    last = rv;
    restart(durable_options(false));
    EXPECT_EQ(snapshot_of(kCms), state) << "round " << round;
    EXPECT_EQ(current_rv(), rv);
  }
  EXPECT_GE(segments(dir_.path()).size(), 3u);
}

TEST_F(ApiServerDurability, ATornTailIsTruncatedAndTheRestRecovered) {
  make_namespace("team");
  for (int i = 0; i < 5; ++i) create(kCms, config_map("cm-" + std::to_string(i)));
  std::uint64_t rv_of_cm3 = rv_of(get_ok(std::string(kCms) + "/cm-3"));
  stop();

  std::string segment = last_written_segment(dir_.path());
  ASSERT_FALSE(segment.empty());
  std::string data = read_file(segment);
  std::vector<std::size_t> offsets = record_offsets(data);
  ASSERT_EQ(offsets.back(), data.size());
  std::size_t last_record = offsets[offsets.size() - 2];
  // A crash in the middle of the last record's write.
  fs::resize_file(segment, last_record + (data.size() - last_record) / 2);

  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"cm-0", "cm-1", "cm-2", "cm-3"}));
  EXPECT_EQ(current_rv(), rv_of_cm3);
  EXPECT_EQ(fs::file_size(segment), last_record);  // truncated at the last intact record
  // Writing goes on, and survives the next restart.
  json::value again = create(kCms, config_map("cm-4"));
  EXPECT_GT(rv_of(again), rv_of_cm3);
  stop();
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4"}));
  EXPECT_EQ(rv_of(get_ok(std::string(kCms) + "/cm-4")), rv_of(again));
}

TEST_F(ApiServerDurability, GarbageAndFlippedBytesEndTheLog) {
  make_namespace("team");
  for (int i = 0; i < 3; ++i) create(kCms, config_map("cm-" + std::to_string(i)));
  stop();
  std::string segment = last_written_segment(dir_.path());
  std::size_t intact = fs::file_size(segment);
  std::string garbage("\x13\0\0\0", 4);  // a length, then bytes that are no checksum nor record
  garbage += "garbage that is not a record";
  append_file(segment, garbage);
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"cm-0", "cm-1", "cm-2"}));
  EXPECT_EQ(fs::file_size(segment), intact);

  // A flipped byte inside the last record of the newest segment: that record is lost.
  create(kCms, config_map("cm-3"));
  create(kCms, config_map("cm-4"));
  stop();
  segment = last_written_segment(dir_.path());
  std::string data = read_file(segment);
  std::vector<std::size_t> offsets = record_offsets(data);
  ASSERT_GE(offsets.size(), 3u);
  data[offsets[offsets.size() - 2] + 20] ^= 0x5a;
  write_file(segment, data);
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"cm-0", "cm-1", "cm-2", "cm-3"}));
}

TEST_F(ApiServerDurability, DamageInAnOlderSegmentSetsTheNewerOnesAside) {
  make_namespace("team");
  create(kCms, config_map("a"));
  create(kCms, config_map("b"));
  stop();
  std::string first = last_written_segment(dir_.path());
  start(options());
  create(kCms, config_map("c"));
  stop();
  std::string second = last_written_segment(dir_.path());
  ASSERT_NE(first, second);
  // Tear the last record of the older segment.
  std::string data = read_file(first);
  fs::resize_file(first, data.size() - 3);
  start(options());
  // Everything after the damage is unusable: the newer segment is kept aside, not applied.
  EXPECT_EQ(item_names(get_ok(kCms)), std::vector<std::string>{"a"});
  EXPECT_TRUE(fs::exists(second + ".corrupt"));
  // And the server goes on writing.
  create(kCms, config_map("d"));
  stop();
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"a", "d"}));
}

TEST_F(ApiServerDurability, AnUnreadableObjectWithAValidChecksumEndsTheLogToo) {
  make_namespace("team");
  create(kCms, config_map("a"));
  std::uint64_t rv = rv_of(create(kCms, config_map("b")));
  stop();
  std::string segment = last_written_segment(dir_.path());
  std::size_t intact = fs::file_size(segment);
  // Well-framed records whose objects the server cannot use.
  std::string bad;
  encode_record(bad, RecordType::Put, rv + 1, "/configmaps", R"({"metadata":"not an object"})");
  append_file(segment, bad);
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fs::file_size(segment), intact);

  stop();
  bad.clear();
  encode_record(bad, RecordType::Put, rv + 1, "/configmaps", R"([1,2,3])");
  append_file(last_written_segment(dir_.path()), bad);
  start(options());
  EXPECT_EQ(item_names(get_ok(kCms)), (std::vector<std::string>{"a", "b"}));
}

TEST_F(ApiServerDurability, ADamagedSnapshotIsAClearError) {
  make_namespace("team");
  stop();
  write_file(dir_.file("snapshot"), "definitely not a snapshot");
  auto started = ApiServer::start(options());
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("snapshot"), std::string::npos) << started.error().message;
  EXPECT_NE(started.error().message.find("damaged"), std::string::npos) << started.error().message;

  // Well framed, but an object without metadata.
  std::string snap;
  encode_record(snap, RecordType::SnapshotBegin, 10, "", "");
  encode_record(snap, RecordType::Put, 9, "/configmaps", R"({"kind":"ConfigMap"})");
  encode_record(snap, RecordType::SnapshotEnd, 10, "", "");
  write_file(dir_.file("snapshot"), snap);
  started = ApiServer::start(options());
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("snapshot"), std::string::npos) << started.error().message;

  // Truncated: no end marker.
  snap.clear();
  encode_record(snap, RecordType::SnapshotBegin, 10, "", "");
  write_file(dir_.file("snapshot"), snap);
  started = ApiServer::start(options());
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("damaged"), std::string::npos) << started.error().message;
}

TEST_F(ApiServerDurability, OneServerPerDataDirectory) {
  auto second = ApiServer::start(options());
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("in use"), std::string::npos) << second.error().message;
  // A data directory that cannot be one.
  TempDir other;
  write_file(other.file("file"), "x");
  ApiServerOptions o = test_options();
  o.data_dir = other.file("file");
  auto bad = ApiServer::start(o);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(other.file("file")), std::string::npos) << bad.error().message;
  // The first server still works.
  make_namespace("fine");
}

TEST_F(ApiServerDurability, SnapshotPlusLogAfterManyWrites) {
  // Enough writes through the persistence layer to cut a snapshot (every
  // kSnapshotEveryRecords records), then more, then the server recovers the lot.
  make_namespace("team");
  create(kCms, config_map("via-http"));
  stop();

  constexpr int kObjects = 50;
  const std::size_t writes = DurableStore::kSnapshotEveryRecords + 1234;
  std::map<std::string, std::string> expected;
  std::uint64_t final_rv = 0;
  {
    boost::asio::io_context io;
    auto durable = DurableStore::open(dir_.path(), io, false);
    ASSERT_TRUE(durable) << durable.error().message;
    ObjectStore store;
    ASSERT_TRUE((*durable)->recover(store));
    BucketId bucket = store.bucket("/configmaps");
    for (std::size_t i = 0; i < writes; ++i) {
      std::string name = "cm-" + std::to_string(i % kObjects);
      std::string value = std::to_string(i);
      json::value doc = json::object{{"apiVersion", "v1"},
                                     {"kind", "ConfigMap"},
                                     {"metadata", json::object{{"name", name},
                                                               {"namespace", "team"},
                                                               {"uid", "uid-" + name},
                                                               {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
                                     {"data", json::object{{"k", value}}}};
      const Change& change = store.put(bucket, std::move(doc));
      expected[name] = value;
      final_rv = change.rv;
      (*durable)->append(change, {});
    }
    (*durable)->close();
  }
  ASSERT_TRUE(fs::exists(dir_.file("snapshot")));
  // The segments before the snapshot are gone; the log after it is replayed on top.
  EXPECT_LE(segments(dir_.path()).size(), 2u);

  start(options());
  json::value list = get_ok(kCms);
  std::vector<std::string> names = item_names(list);
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kObjects + 1));
  for (const auto& item : at(list, "/items")->as_array()) {
    std::string name = str(item, "/metadata/name");
    if (name == "via-http") continue;
    EXPECT_EQ(str(item, "/data/k"), expected[name]) << name;
  }
  EXPECT_EQ(current_rv(), final_rv);
  EXPECT_EQ(api().get(std::string(kCms) + "/via-http").status, 200);
  json::value next = create(kCms, config_map("after"));
  EXPECT_EQ(rv_of(next), final_rv + 1);
  stop();
  start(options());
  EXPECT_EQ(rv_of(get_ok(std::string(kCms) + "/after")), final_rv + 1);
  EXPECT_EQ(str(get_ok(std::string(kCms) + "/cm-7"), "/data/k"), expected["cm-7"]);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

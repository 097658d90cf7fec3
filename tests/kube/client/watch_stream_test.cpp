#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kube/client/line_splitter.hpp"
#include "kube/client/watch_event.hpp"

namespace kueuepp::kube::client {
namespace {

const std::string kStream =
    R"({"type":"ADDED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"10"}}})" "\n"
    R"({"type":"MODIFIED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"11"},"spec":{"x":"é ünïcode"}}})" "\n"
    R"({"type":"BOOKMARK","object":{"kind":"Job","metadata":{"resourceVersion":"12"}}})" "\n"
    R"({"type":"DELETED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"13"}}})" "\n"
    R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}})" "\n";

std::vector<std::string> split_lines(const std::vector<std::string>& chunks) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  auto sink = [&](std::string_view line) { lines.emplace_back(line); };
  for (const auto& c : chunks) EXPECT_TRUE(splitter.feed(c, sink));
  splitter.finish(sink);
  return lines;
}

std::vector<std::string> expected_lines(const std::string& stream) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < stream.size()) {
    std::size_t nl = stream.find('\n', start);
    if (nl == std::string::npos) nl = stream.size();
    if (nl > start) lines.push_back(stream.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

TEST(LineSplitter, EveryTwoCutSplitYieldsTheSameLines) {
  const auto expected = expected_lines(kStream);
  ASSERT_EQ(expected.size(), 5u);
  for (std::size_t i = 0; i <= kStream.size(); ++i) {
    for (std::size_t j = i; j <= kStream.size(); j += 7) {
      const std::vector<std::string> chunks = {kStream.substr(0, i), kStream.substr(i, j - i),
                                               kStream.substr(j)};
      ASSERT_EQ(split_lines(chunks), expected) << "cuts at " << i << " and " << j;
    }
  }
}

TEST(LineSplitter, ByteByByteAndRandomChunksYieldTheSameLines) {
  const auto expected = expected_lines(kStream);
  std::vector<std::string> bytes;
  for (char c : kStream) bytes.emplace_back(1, c);
  EXPECT_EQ(split_lines(bytes), expected);

  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> chunks;
    std::size_t pos = 0;
    while (pos < kStream.size()) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 90)(rng);
      chunks.push_back(kStream.substr(pos, n));
      pos += n;
    }
    ASSERT_EQ(split_lines(chunks), expected) << "round " << round;
  }
}

TEST(LineSplitter, OneChunkMayHoldManyLinesAndTheLastMayBeUnterminated) {
  EXPECT_EQ(split_lines({"a\nb\n\nc\r\nd"}), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(split_lines({"", "\n", "\n"}), std::vector<std::string>{});
}

TEST(LineSplitter, LinesAreFollowedByPaddingInsideTheBuffer) {
  LineSplitter splitter;
  std::vector<std::string> seen;
  ASSERT_TRUE(splitter.feed("{\"a\":1}\n{\"b\"", [&](std::string_view line) {
    // The padding after the line must be readable memory (simdjson reads it).
    volatile char sum = 0;
    for (std::size_t i = 0; i < LineSplitter::kPadding; ++i) sum = sum + line.data()[line.size() + i];
    (void)sum;
    seen.emplace_back(line);
  }));
  EXPECT_EQ(seen, std::vector<std::string>{"{\"a\":1}"});
  EXPECT_EQ(splitter.pending_bytes(), 4u);
}

TEST(LineSplitter, RejectsLinesBeyondTheLimitAndRecovers) {
  LineSplitter splitter(16);
  std::vector<std::string> lines;
  auto sink = [&](std::string_view l) { lines.emplace_back(l); };
  EXPECT_TRUE(splitter.feed("0123456789", sink));
  auto s = splitter.feed("0123456789", sink);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("exceeds 16 bytes"), std::string::npos);
  EXPECT_TRUE(splitter.feed("ok\n", sink));
  EXPECT_EQ(lines, std::vector<std::string>{"ok"});
}

std::vector<Expected<WatchEvent>> decode_stream(const std::vector<std::string>& chunks) {
  WatchStreamDecoder decoder;
  std::vector<Expected<WatchEvent>> events;
  auto sink = [&](Expected<WatchEvent> e) { events.push_back(std::move(e)); };
  for (const auto& c : chunks) decoder.feed(c, sink);
  decoder.finish(sink);
  return events;
}

TEST(WatchStreamDecoder, DecodesTypedEventsAcrossArbitraryChunkSplits) {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    auto events = decode_stream({kStream.substr(0, cut), kStream.substr(cut)});
    ASSERT_EQ(events.size(), 5u) << cut;
    for (auto& e : events) ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ(events[0]->type, WatchEventType::Added);
    EXPECT_EQ(events[0]->resource_version(), "10");
    EXPECT_EQ(json::get_string(*json::find(events[0]->object, "metadata"), "name"), "a");
    EXPECT_EQ(events[1]->type, WatchEventType::Modified);
    EXPECT_EQ(json::get_string(*json::find(events[1]->object, "spec"), "x"), "é ünïcode");
    EXPECT_EQ(events[2]->type, WatchEventType::Bookmark);
    EXPECT_EQ(events[2]->resource_version(), "12");
    EXPECT_EQ(events[3]->type, WatchEventType::Deleted);
    EXPECT_EQ(events[4]->type, WatchEventType::Error);
    const ApiError gone = events[4]->status_error("watch Job");
    EXPECT_TRUE(gone.is_gone());
    EXPECT_EQ(gone.message, "too old");
  }
}

TEST(WatchStreamDecoder, KeepsNumbersAndNestingExact) {
  auto events = decode_stream({R"({"type":"ADDED","object":{"i":-5,"u":18446744073709551615,"d":1.5,"b":true,"n":null,"a":[1,[2,{"x":[]}]],"dup":1,"dup":2}})" "\n"});
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0]);
  const json::value& o = events[0]->object;
  EXPECT_EQ(json::find(o, "i")->as_int64(), -5);
  EXPECT_EQ(json::find(o, "u")->as_uint64(), 18446744073709551615ull);
  EXPECT_EQ(json::find(o, "d")->as_double(), 1.5);
  EXPECT_TRUE(json::find(o, "b")->as_bool());
  EXPECT_TRUE(json::find(o, "n")->is_null());
  EXPECT_EQ(json::dump(*json::find(o, "a")), R"([1,[2,{"x":[]}]])");
  EXPECT_EQ(json::find(o, "dup")->as_int64(), 2);  // the last duplicate wins, like Go
}

TEST(WatchStreamDecoder, ReportsBadLinesWithoutStopping) {
  auto events = decode_stream({"not json\n",
                               R"({"type":"ADDED"})" "\n",
                               R"({"type":"WHATEVER","object":{}})" "\n",
                               R"({"object":{}})" "\n",
                               R"([1,2])" "\n",
                               R"({"type":"ADDED","object":{"ok":1}})" "\n"});
  ASSERT_EQ(events.size(), 6u);
  EXPECT_FALSE(events[0]);
  EXPECT_NE(events[0].error().message.find("not JSON"), std::string::npos);
  EXPECT_FALSE(events[1]);
  EXPECT_NE(events[1].error().message.find("has no object"), std::string::npos);
  EXPECT_FALSE(events[2]);
  EXPECT_NE(events[2].error().message.find("unknown type \"WHATEVER\""), std::string::npos);
  EXPECT_FALSE(events[3]);
  EXPECT_FALSE(events[4]);
  ASSERT_TRUE(events[5]);
}

TEST(WatchEventDecoder, DecodeCopiesUnpaddedInput) {
  WatchEventDecoder decoder;
  const std::string line = R"({"type":"DELETED","object":{"metadata":{"resourceVersion":"7"}}})";
  auto event = decoder.decode(line);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, WatchEventType::Deleted);
  EXPECT_EQ(event->resource_version(), "7");
  EXPECT_EQ(to_string(WatchEventType::Bookmark), "BOOKMARK");
}

TEST(JsonDecoder, DecodesInPlaceWithoutChangingTheTextAndRejectsNonFiniteNumbers) {
  std::string body = R"({"items":[{"a":1}],"s":"x"})";
  const std::string original = body;
  auto v = parse_json_in_place(body);
  ASSERT_TRUE(v);
  EXPECT_EQ(body, original);
  EXPECT_EQ(json::dump(*v), original);
  // Boost.JSON would read this as an infinity and write it back as `Infinity`.
  std::string huge = R"({"n":1e400})";
  EXPECT_FALSE(parse_json_in_place(huge));
  std::string empty;
  EXPECT_FALSE(parse_json_in_place(empty));
  std::string deep(5000, '[');
  EXPECT_FALSE(parse_json_in_place(deep));  // beyond simdjson's depth limit: an error, not a crash
}

TEST(JsonDecode, StripsManagedFieldsOfEveryMetadataOnlyWhenAsked) {
  std::string text =
      R"({"metadata":{"name":"a","managedFields":[{"manager":"m"}]},)"
      R"("spec":{"managedFields":1,"template":{"metadata":{"labels":{"x":"y"},"managedFields":[]}}},)"
      R"("items":[{"metadata":{"name":"i","managedFields":[{"manager":"n"}]}}]})";
  auto kept = parse_json_in_place(text);
  ASSERT_TRUE(kept);
  EXPECT_NE(json::find_path(*kept, {"metadata", "managedFields"}), nullptr);

  auto stripped = parse_json_in_place(text, DecodeOptions{true});
  ASSERT_TRUE(stripped);
  EXPECT_EQ(json::find_path(*stripped, {"metadata", "managedFields"}), nullptr);
  EXPECT_EQ(json::get_string(*json::find(*stripped, "metadata"), "name"), "a");
  // Only a metadata object's: a field of that name elsewhere is data.
  EXPECT_NE(json::find_path(*stripped, {"spec", "managedFields"}), nullptr);
  EXPECT_EQ(json::find_path(*stripped, {"spec", "template", "metadata", "managedFields"}), nullptr);
  EXPECT_NE(json::find_path(*stripped, {"spec", "template", "metadata", "labels"}), nullptr);
  const json::value* items = json::find(*stripped, "items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(json::find_path(items->get_array().at(0), {"metadata", "managedFields"}), nullptr);
}

TEST(WatchEventDecoder, StripsTheObjectsManagedFieldsWhenAsked) {
  const std::string line =
      R"({"type":"MODIFIED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"7","managedFields":[{"manager":"m"}]}}})";
  WatchEventDecoder keep;
  auto kept = keep.decode(line);
  ASSERT_TRUE(kept);
  EXPECT_NE(json::find_path(kept->object, {"metadata", "managedFields"}), nullptr);
  WatchEventDecoder strip(DecodeOptions{true});
  auto stripped = strip.decode(line);
  ASSERT_TRUE(stripped);
  EXPECT_EQ(stripped->resource_version(), "7");
  EXPECT_EQ(json::find_path(stripped->object, {"metadata", "managedFields"}), nullptr);
}

TEST(JsonDecode, MetadataOnlyKeepsTheTypeAndMetadataOfTheTopLevelObject) {
  std::string text =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":"5","managedFields":[{}]},)"
      R"("spec":{"containers":[]},"status":{"phase":"Running"}})";
  auto doc = parse_json_in_place(text, DecodeOptions{true, true});
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->as_object().size(), 3u);
  EXPECT_EQ(json::get_string(*doc, "kind"), "Pod");
  EXPECT_EQ(json::find_path(*doc, {"metadata", "resourceVersion"})->as_string(), "5");
  EXPECT_EQ(json::find_path(*doc, {"metadata", "managedFields"}), nullptr);
  EXPECT_EQ(json::find(*doc, "status"), nullptr);
  // Still a JSON check of the whole text.
  std::string broken = R"({"metadata":{"name":"p"},"spec":{)";
  EXPECT_FALSE(parse_json_in_place(broken, DecodeOptions{false, true}));
}

}  // namespace
}  // namespace kueuepp::kube::client

namespace kueuepp::kube::client {
namespace {

// A watch line of a kind kept packed: the object's metadata comes as a document and the
// whole object as compact text that unpacks to exactly the document the full decode
// builds (types, escapes, managedFields left out of every metadata).
TEST(WatchEventDecoder, APackedObjectIsItsMetadataAsADocumentAndTheWholeAsText) {
  const std::string object =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"n",)"
      R"("resourceVersion":"7","managedFields":[{"manager":"m"}],"labels":{"a":"b"}},)"
      R"("spec":{"n":[1,-2,18446744073709551615,-9223372036854775808,2.5,1e3,2.0,-0.0,1e-7,true,false,null],)"
      R"("s":"q\"b\\s\n\t\r\b\f\u0001\u001f\u00e9/","":{},"e":[],)"
      R"("template":{"metadata":{"managedFields":[1],"x":1}},"managedFields":"data"},"status":{}})";
  const std::string line = R"({"type":"MODIFIED","object":)" + object + "}";
  WatchEventDecoder whole(DecodeOptions{true});
  auto full = whole.decode(line);
  ASSERT_TRUE(full);
  EXPECT_FALSE(full->packed);  // not asked to pack

  WatchEventDecoder packing(DecodeOptions{true, false, true});
  auto event = packing.decode(line);
  ASSERT_TRUE(event) << event.error().message;
  ASSERT_TRUE(event->packed);
  EXPECT_EQ(event->type, WatchEventType::Modified);
  EXPECT_EQ(event->resource_version(), "7");
  EXPECT_EQ(json::dump(event->object),
            R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"n",)"
            R"("resourceVersion":"7","labels":{"a":"b"}}})");
  auto unpacked = event->packed->unpack();
  ASSERT_TRUE(unpacked) << unpacked.error().message << ": " << event->packed->text();
  // Serialized, integers and doubles differ (1000 against 1E3), so this compares types too.
  EXPECT_EQ(json::dump(unpacked->json()), json::dump(full->object)) << event->packed->text();
  EXPECT_EQ(event->packed->text().find("\"managedFields\":["), std::string_view::npos) << event->packed->text();
}

TEST(WatchEventDecoder, ErrorAndBookmarkLinesAreNeverPacked) {
  WatchEventDecoder packing(DecodeOptions{true, false, true});
  auto error = packing.decode(
      R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}})");
  ASSERT_TRUE(error);
  EXPECT_FALSE(error->packed);
  EXPECT_TRUE(error->status_error().is_gone());
  auto bookmark = packing.decode(R"({"type":"BOOKMARK","object":{"kind":"Workload","metadata":{"resourceVersion":"9"}}})");
  ASSERT_TRUE(bookmark);
  EXPECT_FALSE(bookmark->packed);
  EXPECT_EQ(bookmark->resource_version(), "9");
  // A packed line after them packs again, and a bad line in between changes nothing.
  EXPECT_FALSE(packing.decode(R"({"type":"ADDED","object":{)"));
  auto added = packing.decode(R"({"type":"ADDED","object":{"kind":"Job","metadata":{"name":"j"},"spec":{}}})");
  ASSERT_TRUE(added);
  ASSERT_TRUE(added->packed);
  EXPECT_EQ(added->packed->text(), R"({"kind":"Job","metadata":{"name":"j"},"spec":{}})");
}

}  // namespace
}  // namespace kueuepp::kube::client

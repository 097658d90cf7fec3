// The registry: golden renderings of a counter, a gauge and a histogram (client_golang's
// text format: labels and series in byte order, constant labels merged in, cumulative
// buckets with +Inf), escaping, series removal, and the programming errors it refuses.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metrics/metrics_registry.hpp"

namespace kueuepp::metrics {
namespace {

TEST(MetricsRegistry, CounterGolden) {
  Registry registry({{"replica_role", "standalone"}});
  Family& requests = registry.counter("test_requests_total", "Requests served.", {"method", "code"});
  requests.inc({"GET", "500"});
  requests.add({"POST", "200"}, 2);
  requests.inc({"POST", "200"});
  // Labels are written in name order (code, method, replica_role) and the series are
  // ordered by their values in that order: code 200 before code 500.
  EXPECT_EQ(registry.render(),
            "# HELP test_requests_total Requests served.\n"
            "# TYPE test_requests_total counter\n"
            "test_requests_total{code=\"200\",method=\"POST\",replica_role=\"standalone\"} 3\n"
            "test_requests_total{code=\"500\",method=\"GET\",replica_role=\"standalone\"} 1\n");
  EXPECT_EQ(requests.value({"POST", "200"}), 3);
  EXPECT_EQ(requests.value({"GET", "200"}), std::nullopt);
}

TEST(MetricsRegistry, GaugeGolden) {
  Registry registry;
  Family& temperature = registry.gauge("test_temperature_celsius", "Temperature.", {});
  temperature.set({}, 21.5);
  temperature.add({}, -1);
  Family& limit = registry.gauge("test_limit", "Limit.", {"queue"});
  limit.set({"b"}, std::numeric_limits<double>::infinity());
  limit.set({"a"}, 1e6);
  limit.set({"c"}, std::nan(""));
  limit.set({"d"}, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(registry.render(),
            "# HELP test_limit Limit.\n"
            "# TYPE test_limit gauge\n"
            "test_limit{queue=\"a\"} 1e+06\n"
            "test_limit{queue=\"b\"} +Inf\n"
            "test_limit{queue=\"c\"} NaN\n"
            "test_limit{queue=\"d\"} -Inf\n"
            "# HELP test_temperature_celsius Temperature.\n"
            "# TYPE test_temperature_celsius gauge\n"
            "test_temperature_celsius 20.5\n");
}

TEST(MetricsRegistry, HistogramGoldenWithCumulativeBuckets) {
  Registry registry({{"replica_role", "leader"}});
  Family& latency = registry.histogram("test_latency_seconds", "Latency.", {"op"}, {1, 2.5, 5});
  for (double v : {0.5, 1.0, 3.0, 7.0}) latency.observe({"read"}, v);
  latency.observe({"write"}, 2.5);
  EXPECT_EQ(registry.render(),
            "# HELP test_latency_seconds Latency.\n"
            "# TYPE test_latency_seconds histogram\n"
            "test_latency_seconds_bucket{op=\"read\",replica_role=\"leader\",le=\"1\"} 2\n"
            "test_latency_seconds_bucket{op=\"read\",replica_role=\"leader\",le=\"2.5\"} 2\n"
            "test_latency_seconds_bucket{op=\"read\",replica_role=\"leader\",le=\"5\"} 3\n"
            "test_latency_seconds_bucket{op=\"read\",replica_role=\"leader\",le=\"+Inf\"} 4\n"
            "test_latency_seconds_sum{op=\"read\",replica_role=\"leader\"} 11.5\n"
            "test_latency_seconds_count{op=\"read\",replica_role=\"leader\"} 4\n"
            "test_latency_seconds_bucket{op=\"write\",replica_role=\"leader\",le=\"1\"} 0\n"
            "test_latency_seconds_bucket{op=\"write\",replica_role=\"leader\",le=\"2.5\"} 1\n"
            "test_latency_seconds_bucket{op=\"write\",replica_role=\"leader\",le=\"5\"} 1\n"
            "test_latency_seconds_bucket{op=\"write\",replica_role=\"leader\",le=\"+Inf\"} 1\n"
            "test_latency_seconds_sum{op=\"write\",replica_role=\"leader\"} 2.5\n"
            "test_latency_seconds_count{op=\"write\",replica_role=\"leader\"} 1\n");
}

TEST(MetricsRegistry, HistogramWithoutLabels) {
  Registry registry;
  Family& h = registry.histogram("test_h", "H.", {}, {1});
  h.observe({}, 0.25);
  EXPECT_EQ(registry.render(),
            "# HELP test_h H.\n"
            "# TYPE test_h histogram\n"
            "test_h_bucket{le=\"1\"} 1\n"
            "test_h_bucket{le=\"+Inf\"} 1\n"
            "test_h_sum 0.25\n"
            "test_h_count 1\n");
}

TEST(MetricsRegistry, BucketCumulationAndEdges) {
  Registry registry;
  Family& h = registry.histogram("test_h", "H.", {"k"}, {1, 2, 4, std::numeric_limits<double>::infinity()});
  EXPECT_EQ(h.buckets(), (std::vector<double>{1, 2, 4}));  // a trailing +Inf is implied
  h.observe({"x"}, 1);    // on a bound: counted in it
  h.observe({"x"}, 1.5);
  h.observe({"x"}, 2);
  h.observe({"x"}, -3);   // below every bound: first bucket
  h.observe({"x"}, 100);  // above every bound: +Inf only
  auto sample = h.histogram({"x"});
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->cumulative_counts, (std::vector<std::uint64_t>{2, 4, 4, 5}));
  EXPECT_EQ(sample->count, 5u);
  EXPECT_DOUBLE_EQ(sample->sum, 101.5);

  h.observe({"x"}, std::nan(""));  // NaN: +Inf only, sum becomes NaN (client_golang)
  sample = h.histogram({"x"});
  EXPECT_EQ(sample->cumulative_counts, (std::vector<std::uint64_t>{2, 4, 4, 6}));
  EXPECT_TRUE(std::isnan(sample->sum));
}

TEST(MetricsRegistry, DefaultAndExponentialBuckets) {
  Registry registry;
  Family& h = registry.histogram("test_default", "D.", {}, {});
  EXPECT_EQ(h.buckets(), (std::vector<double>{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}));
  EXPECT_EQ(exponential_buckets(2.5, 2, 4), (std::vector<double>{2.5, 5, 10, 20}));
  EXPECT_THROW(exponential_buckets(0, 2, 3), std::invalid_argument);
  EXPECT_THROW(registry.histogram("test_bad", "B.", {}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("test_bad", "B.", {}, {2, 1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("test_bad", "B.", {"le"}, {1}), std::invalid_argument);
}

TEST(MetricsRegistry, EscapingInLabelsAndHelp) {
  Registry registry;
  Family& g = registry.gauge("test_escape", "First line\nsecond \"quoted\" \\ line", {"path"});
  g.set({"C:\\dir\n\"x\""}, 1);
  EXPECT_EQ(registry.render(),
            "# HELP test_escape First line\\nsecond \"quoted\" \\\\ line\n"
            "# TYPE test_escape gauge\n"
            "test_escape{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1\n");
}

TEST(MetricsRegistry, FamiliesInNameOrderAndEmptyFamiliesHidden) {
  Registry registry;
  registry.gauge("zeta", "Z.", {}).set({}, 1);
  registry.counter("alpha_total", "A.", {}).inc({});
  registry.gauge("middle", "never reported", {"x"});
  EXPECT_EQ(registry.render(),
            "# HELP alpha_total A.\n"
            "# TYPE alpha_total counter\n"
            "alpha_total 1\n"
            "# HELP zeta Z.\n"
            "# TYPE zeta gauge\n"
            "zeta 1\n");
  EXPECT_EQ(registry.family_names(), (std::vector<std::string_view>{"alpha_total", "middle", "zeta"}));
}

TEST(MetricsRegistry, SeriesOrderIsByteOrderOfValues) {
  Registry registry;
  Family& g = registry.gauge("test_order", "O.", {"b_second", "a_first"});
  g.set({"1", "cq-b"}, 1);
  g.set({"2", "cq-a"}, 2);
  g.set({"0", "cq-a"}, 3);
  g.set({"0", "Cq"}, 4);  // 'C' < 'c'
  EXPECT_EQ(registry.render(),
            "# HELP test_order O.\n"
            "# TYPE test_order gauge\n"
            "test_order{a_first=\"Cq\",b_second=\"0\"} 4\n"
            "test_order{a_first=\"cq-a\",b_second=\"0\"} 3\n"
            "test_order{a_first=\"cq-a\",b_second=\"2\"} 2\n"
            "test_order{a_first=\"cq-b\",b_second=\"1\"} 1\n");
}

TEST(MetricsRegistry, ConstantLabelsMergeInNameOrderAndCanChange) {
  Registry registry({{"replica_role", "follower"}, {"zone", "z1"}, {"app", "kueue"}});
  registry.gauge("test_g", "G.", {"queue"}).set({"q"}, 1);
  registry.gauge("test_info", "I.", {"version"}, ConstantLabels::Omit).set({"v1"}, 1);
  registry.set_constant_label("replica_role", "leader");
  EXPECT_EQ(registry.render(),
            "# HELP test_g G.\n"
            "# TYPE test_g gauge\n"
            "test_g{app=\"kueue\",queue=\"q\",replica_role=\"leader\",zone=\"z1\"} 1\n"
            "# HELP test_info I.\n"
            "# TYPE test_info gauge\n"
            "test_info{version=\"v1\"} 1\n");
  EXPECT_THROW(registry.set_constant_label("queue", "x"), std::invalid_argument);
  EXPECT_THROW(registry.gauge("test_clash", "C.", {"zone"}), std::invalid_argument);
  EXPECT_NO_THROW(registry.gauge("test_no_clash", "C.", {"zone"}, ConstantLabels::Omit));
}

TEST(MetricsRegistry, RemoveOneSeries) {
  Registry registry;
  Family& g = registry.gauge("test_g", "G.", {"cluster_queue", "status"});
  g.set({"cq-a", "active"}, 1);
  g.set({"cq-a", "inadmissible"}, 2);
  EXPECT_TRUE(g.remove({"cq-a", "active"}));
  EXPECT_FALSE(g.remove({"cq-a", "active"}));
  EXPECT_EQ(g.series_count(), 1u);
  EXPECT_EQ(g.value({"cq-a", "inadmissible"}), 2);
  EXPECT_TRUE(g.remove({"cq-a", "inadmissible"}));
  EXPECT_EQ(registry.render(), "");  // the family disappears with its last series
}

TEST(MetricsRegistry, RemoveMatchingDropsEverySeriesOfOneQueue) {
  Registry registry;
  // cluster_queue is not the first label in name order here ("cohort" sorts before it),
  // and "cq" is a prefix of other names: neither may confuse the match.
  Family& g = registry.gauge("test_quota", "Q.", {"cohort", "cluster_queue", "flavor"});
  g.set({"c1", "cq", "f1"}, 1);
  g.set({"c1", "cq", "f2"}, 2);
  g.set({"c2", "cq-a", "f1"}, 3);
  g.set({"c1", "cq-", "f1"}, 4);
  g.set({"c3", "cq", "f1"}, 5);
  EXPECT_EQ(g.remove_matching("cluster_queue", "cq"), 3u);
  EXPECT_EQ(g.series_count(), 2u);
  EXPECT_EQ(g.value({"c2", "cq-a", "f1"}), 3);
  EXPECT_EQ(g.value({"c1", "cq-", "f1"}), 4);
  EXPECT_EQ(g.remove_matching("no_such_label", "cq-a"), 0u);
  EXPECT_EQ(g.remove_matching("cluster_queue", "absent"), 0u);
  EXPECT_EQ(g.series_count(), 2u);
}

TEST(MetricsRegistry, RemoveMatchingOnTheFirstLabelUsesItsRange) {
  Registry registry;
  Family& g = registry.gauge("test_lq", "L.", {"name", "namespace", "status"});
  for (const char* name : {"a", "b", "b-2", "c"}) {
    for (const char* ns : {"ns1", "ns2"}) g.set({name, ns, "active"}, 1);
  }
  EXPECT_EQ(g.remove_matching({{"name", "b"}, {"namespace", "ns2"}}), 1u);
  EXPECT_EQ(g.series_count(), 7u);
  EXPECT_EQ(g.value({"b", "ns1", "active"}), 1);
  EXPECT_EQ(g.value({"b-2", "ns2", "active"}), 1);
  EXPECT_EQ(g.remove_matching("name", "b"), 1u);
  EXPECT_EQ(g.remove_matching("name", "zzz"), 0u);
  EXPECT_EQ(g.remove_matching("name", "0"), 0u);
  EXPECT_EQ(g.series_count(), 6u);
}

TEST(MetricsRegistry, RemoveMatchingIfKeepsWhatThePredicateSpares) {
  Registry registry;
  Family& g = registry.gauge("test_unadmitted", "U.", {"cluster_queue", "reason"});
  g.set({"cq-a", "Quota"}, 1);
  g.set({"cq-a", "Flavor"}, 2);
  g.set({"cq-b", "Quota"}, 3);
  std::size_t removed = g.remove_matching_if({{"cluster_queue", "cq-a"}}, [](const SeriesLabels& labels) {
    EXPECT_EQ(labels.get("cluster_queue"), "cq-a");
    EXPECT_EQ(labels.get("nope"), std::nullopt);
    return labels[1] != "Quota";
  });
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(g.value({"cq-a", "Quota"}), 1);
  EXPECT_EQ(g.value({"cq-a", "Flavor"}), std::nullopt);
  EXPECT_EQ(g.value({"cq-b", "Quota"}), 3);
}

TEST(MetricsRegistry, HistogramSeriesRemoval) {
  Registry registry;
  Family& h = registry.histogram("test_wait_seconds", "W.", {"cluster_queue"}, {1});
  h.observe({"cq-a"}, 0.5);
  h.observe({"cq-b"}, 0.5);
  EXPECT_EQ(h.remove_matching("cluster_queue", "cq-a"), 1u);
  EXPECT_FALSE(h.histogram({"cq-a"}));
  EXPECT_EQ(registry.render().find("cq-a"), std::string::npos);
  h.observe({"cq-a"}, 3);  // a new series starts from zero
  EXPECT_EQ(h.histogram({"cq-a"})->cumulative_counts, (std::vector<std::uint64_t>{0, 1}));
}

TEST(MetricsRegistry, ReRegistrationReturnsTheSameFamilyOrThrows) {
  Registry registry;
  Family& a = registry.counter("test_total", "T.", {"x"});
  EXPECT_EQ(&registry.counter("test_total", "T.", {"x"}), &a);
  EXPECT_EQ(registry.find("test_total"), &a);
  EXPECT_EQ(registry.find("absent"), nullptr);
  EXPECT_THROW(registry.gauge("test_total", "T.", {"x"}), std::invalid_argument);
  EXPECT_THROW(registry.counter("test_total", "Other help.", {"x"}), std::invalid_argument);
  EXPECT_THROW(registry.counter("test_total", "T.", {"y"}), std::invalid_argument);
  Family& h = registry.histogram("test_h", "H.", {}, {1, 2});
  EXPECT_EQ(&registry.histogram("test_h", "H.", {}, {1, 2}), &h);
  EXPECT_THROW(registry.histogram("test_h", "H.", {}, {1, 3}), std::invalid_argument);
}

TEST(MetricsRegistry, ProgrammingErrorsThrow) {
  Registry registry;
  Family& c = registry.counter("test_total", "T.", {"a", "b"});
  Family& g = registry.gauge("test_g", "G.", {"a"});
  Family& h = registry.histogram("test_h", "H.", {"a"}, {1});
  EXPECT_THROW(c.inc({"only-one"}), std::invalid_argument);
  EXPECT_THROW(c.inc({"1", "2", "3"}), std::invalid_argument);
  EXPECT_THROW(c.add({"1", "2"}, -1), std::invalid_argument);
  EXPECT_THROW(c.set({"1", "2"}, 1), std::invalid_argument);
  EXPECT_THROW(c.observe({"1", "2"}, 1), std::invalid_argument);
  EXPECT_THROW(g.observe({"1"}, 1), std::invalid_argument);
  EXPECT_THROW(h.set({"1"}, 1), std::invalid_argument);
  EXPECT_THROW(h.add({"1"}, 1), std::invalid_argument);
  EXPECT_THROW(registry.gauge("bad-name", "B.", {}), std::invalid_argument);
  EXPECT_THROW(registry.gauge("test_bad", "B.", {"__x"}), std::invalid_argument);
  EXPECT_THROW(registry.gauge("test_bad", "B.", {"x", "x"}), std::invalid_argument);
  std::vector<std::string> too_many;
  for (std::size_t i = 0; i <= kMaxLabels; ++i) too_many.push_back("l" + std::to_string(i));
  EXPECT_THROW(registry.gauge("test_bad", "B.", too_many), std::invalid_argument);
  EXPECT_EQ(c.series_count() + g.series_count() + h.series_count(), 0u);
}

TEST(MetricsRegistry, GaugeAddCreatesAtZeroAndGoesNegative) {
  Registry registry;
  Family& g = registry.gauge("test_g", "G.", {"a"});
  g.add({"x"}, -2);
  g.add({"x"}, 0.5);
  EXPECT_EQ(g.value({"x"}), -1.5);
}

}  // namespace
}  // namespace kueuepp::metrics

#pragma once

// A small Prometheus metrics registry: counter, gauge and histogram families with fixed
// label names, series addressed by label values, rendered in the text exposition format
// 0.0.4 exactly as client_golang (Kueue's library) renders it.
//
// Single-threaded by design: one actor owns the registry, so nothing here locks.
//
// Rendering (Registry::render), matching client_golang's registry + expfmt:
// - families in byte order of their names; a family without series is not rendered at
//   all (client_golang drops empty families, so a metric appears with its first series);
// - "# HELP <name> <help>" (\\ and \n escaped), "# TYPE <name> counter|gauge|histogram";
// - within a series the labels are written in byte order of their names, the registry's
//   constant labels (replica_role) merged in; series in byte order of their label values
//   taken in that same order;
// - a histogram series writes <name>_bucket{...,le="<bound>"} per bound with cumulative
//   counts, then le="+Inf" (= count), then <name>_sum and <name>_count;
// - numbers as text_format.hpp describes (Go's shortest 'g' formatting, +Inf/-Inf/NaN).
//
// Cost model:
// - add/set/observe on an existing series: no allocation. The label values are permuted
//   into a stack array (at most kMaxLabels) and looked up in an ordered map with a
//   transparent comparator: O(log S) comparisons of string_views, S = series in the family.
//   A histogram observation adds a binary search over its bounds.
// - the first sample of a new series allocates its map node and its copy of the label
//   values (one vector, plus one string per value longer than the SSO buffer); a
//   histogram series also allocates its bucket array.
// - remove: O(log S). remove_matching / remove_matching_if: O(S), or only the matching
//   range when the first label in name order is constrained (e.g. cluster_queue in the
//   ClusterQueue families, name in the LocalQueue families, cohort in the Cohort ones).
// - render: O(total series x labels), one output string grown geometrically.
//
// Programming errors (wrong number of label values, a sample of the wrong kind, a
// negative counter increment, re-registering a name with another schema, invalid names)
// throw std::invalid_argument, as client_golang panics on them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::metrics {

enum class MetricType { Counter, Gauge, Histogram };

/// "counter", "gauge" or "histogram" (the TYPE line's spelling).
std::string_view type_name(MetricType type);

/// One value per label name of the family, in the family's declared label order.
using LabelValues = std::span<const std::string_view>;

/// A constraint for remove_matching: the series' value of label `name` equals `value`.
struct LabelMatch {
  std::string_view name;
  std::string_view value;
};

/// Whether the registry's constant labels (replica_role) are added to a family's series.
/// Kueue adds replica_role to every metric but kueue_build_info.
enum class ConstantLabels { Apply, Omit };

/// Most label names a family may have (the lookup buffer lives on the stack).
inline constexpr std::size_t kMaxLabels = 16;

/// client_golang's DefBuckets: .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10.
std::vector<double> default_buckets();
/// `count` bounds: start, start*factor, ... (computed by repeated multiplication, as
/// client_golang's ExponentialBuckets does).
std::vector<double> exponential_buckets(double start, double factor, std::size_t count);

/// A histogram series as read back (tests, introspection).
struct HistogramSample {
  std::vector<double> upper_bounds;               ///< finite bounds, ascending
  std::vector<std::uint64_t> cumulative_counts;   ///< one per bound, then +Inf (== count)
  double sum = 0;
  std::uint64_t count = 0;
};

class Family;

/// The label values of one stored series, handed to remove_matching_if predicates.
class SeriesLabels {
 public:
  /// The value of the label declared at `declared_index`.
  std::string_view operator[](std::size_t declared_index) const;
  /// The value of the label named `name`, if the family has that label.
  std::optional<std::string_view> get(std::string_view name) const;

 private:
  friend class Family;
  SeriesLabels(const Family& family, const std::vector<std::string>& key) : family_(&family), key_(&key) {}
  const Family* family_;
  const std::vector<std::string>* key_;  // values in label-name order
};

class Family {
 public:
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  /// In declared order (the order label values are passed in).
  const std::vector<std::string>& label_names() const { return label_names_; }
  /// Finite upper bounds of a histogram (empty for counters and gauges).
  const std::vector<double>& buckets() const { return buckets_; }
  ConstantLabels constant_labels() const { return constant_labels_; }
  bool has_label(std::string_view label_name) const { return sorted_position(label_name).has_value(); }

  // -- samples ------------------------------------------------------------------------

  /// Counter: adds delta >= 0. Gauge: adds any delta. Creates the series at 0 first.
  void add(LabelValues values, double delta);
  void add(std::initializer_list<std::string_view> values, double delta) { add(as_span(values), delta); }
  void inc(LabelValues values) { add(values, 1); }
  void inc(std::initializer_list<std::string_view> values) { add(as_span(values), 1); }
  /// Gauge only.
  void set(LabelValues values, double value);
  void set(std::initializer_list<std::string_view> values, double value) { set(as_span(values), value); }
  /// Histogram only: counts `value` in the first bucket whose bound is >= value (NaN and
  /// values above every bound only in +Inf), adds it to the sum.
  void observe(LabelValues values, double value);
  void observe(std::initializer_list<std::string_view> values, double value) { observe(as_span(values), value); }

  // -- removal ------------------------------------------------------------------------

  /// Removes one series; false when it did not exist.
  bool remove(LabelValues values);
  bool remove(std::initializer_list<std::string_view> values) { return remove(as_span(values)); }
  /// Removes every series whose labels match all `matches` (a name the family does not
  /// have matches nothing); returns how many were removed.
  std::size_t remove_matching(std::span<const LabelMatch> matches);
  std::size_t remove_matching(std::initializer_list<LabelMatch> matches) {
    return remove_matching(std::span<const LabelMatch>(matches.begin(), matches.size()));
  }
  std::size_t remove_matching(std::string_view label_name, std::string_view value) {
    LabelMatch match{label_name, value};
    return remove_matching(std::span<const LabelMatch>(&match, 1));
  }
  /// Removes the series matching all `matches` for which pred(const SeriesLabels&) holds.
  template <class Pred>
  std::size_t remove_matching_if(std::span<const LabelMatch> matches, Pred&& pred);
  template <class Pred>
  std::size_t remove_matching_if(std::initializer_list<LabelMatch> matches, Pred&& pred) {
    return remove_matching_if(std::span<const LabelMatch>(matches.begin(), matches.size()), pred);
  }
  void clear() { series_.clear(); }

  // -- reading back -------------------------------------------------------------------

  std::size_t series_count() const { return series_.size(); }
  /// Counter or gauge value; nullopt when the series does not exist (or for histograms).
  std::optional<double> value(LabelValues values) const;
  std::optional<double> value(std::initializer_list<std::string_view> values) const { return value(as_span(values)); }
  std::optional<HistogramSample> histogram(LabelValues values) const;
  std::optional<HistogramSample> histogram(std::initializer_list<std::string_view> values) const {
    return histogram(as_span(values));
  }

  /// Appends HELP, TYPE and every series (nothing when the family has no series).
  /// `constant_labels` must be sorted by name (Registry keeps them so).
  void render(std::string& out, std::span<const std::pair<std::string, std::string>> constant_labels) const;

 private:
  friend class Registry;
  friend class SeriesLabels;

  Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
         std::vector<double> buckets, ConstantLabels constant_labels);

  struct Series {
    double value = 0;                    // counter, gauge
    std::vector<std::uint64_t> buckets;  // histogram: per-bucket (not cumulative) counts
    double sum = 0;
    std::uint64_t count = 0;
  };
  using Key = std::vector<std::string>;  // label values in label-name order
  using KeyView = std::span<const std::string_view>;
  struct KeyLess {
    using is_transparent = void;
    bool operator()(const Key& a, const Key& b) const { return a < b; }
    bool operator()(const Key& a, KeyView b) const;
    bool operator()(KeyView a, const Key& b) const;
  };
  using SeriesMap = std::map<Key, Series, KeyLess>;
  using KeyBuffer = std::array<std::string_view, kMaxLabels>;

  static LabelValues as_span(std::initializer_list<std::string_view> values) {
    return LabelValues(values.begin(), values.size());
  }
  /// Permutes declared-order values into label-name order; throws on a wrong count.
  KeyView sorted_key(LabelValues values, KeyBuffer& buffer) const;
  Series& series_for(LabelValues values);
  const Series* find(LabelValues values) const;
  std::optional<std::size_t> sorted_position(std::string_view label_name) const;
  /// Resolves matches to (position, value); false when a name is not a label here.
  bool resolve(std::span<const LabelMatch> matches, std::array<std::pair<std::size_t, std::string_view>, kMaxLabels>& out,
               std::size_t& count) const;
  /// The range of series that can match: narrowed when position 0 is constrained.
  std::pair<SeriesMap::iterator, SeriesMap::iterator> candidate_range(
      std::span<const std::pair<std::size_t, std::string_view>> resolved);
  void check_type(MetricType expected, const char* operation) const;

  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;           // declared order
  std::vector<std::string> sorted_names_;          // byte order
  std::vector<std::uint8_t> sorted_to_declared_;   // sorted position -> declared index
  std::vector<std::uint8_t> declared_to_sorted_;   // declared index -> sorted position
  std::vector<double> buckets_;
  ConstantLabels constant_labels_;
  SeriesMap series_;
};

template <class Pred>
std::size_t Family::remove_matching_if(std::span<const LabelMatch> matches, Pred&& pred) {
  std::array<std::pair<std::size_t, std::string_view>, kMaxLabels> resolved;
  std::size_t count = 0;
  if (!resolve(matches, resolved, count)) return 0;
  std::span<const std::pair<std::size_t, std::string_view>> constraints(resolved.data(), count);
  auto [it, end] = candidate_range(constraints);
  std::size_t removed = 0;
  while (it != end) {
    bool match = true;
    for (const auto& [position, value] : constraints) {
      if (it->first[position] != value) {
        match = false;
        break;
      }
    }
    if (match && pred(SeriesLabels(*this, it->first))) {
      it = series_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

class Registry {
 public:
  /// The Content-Type of render()'s output.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  Registry() = default;
  /// With constant labels, e.g. Registry registry({{"replica_role", "leader"}}).
  explicit Registry(std::initializer_list<std::pair<std::string, std::string>> constant_labels);
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// Registers a family, or returns the existing one when `name` is already registered
  /// with the same type, help, labels, buckets and constant-label mode (else throws).
  Family& counter(std::string name, std::string help, std::vector<std::string> label_names,
                  ConstantLabels constant_labels = ConstantLabels::Apply);
  Family& gauge(std::string name, std::string help, std::vector<std::string> label_names,
                ConstantLabels constant_labels = ConstantLabels::Apply);
  /// `buckets`: finite, strictly increasing upper bounds (a trailing +Inf is dropped);
  /// empty means default_buckets(), as in client_golang.
  Family& histogram(std::string name, std::string help, std::vector<std::string> label_names,
                    std::vector<double> buckets, ConstantLabels constant_labels = ConstantLabels::Apply);

  /// Adds or changes a label written on every series of the families that apply
  /// constant labels (replica_role). Throws when a family already has a label so named.
  void set_constant_label(std::string name, std::string value);
  /// Sorted by name.
  const std::vector<std::pair<std::string, std::string>>& constant_labels() const { return constant_labels_; }

  Family* find(std::string_view name);
  const Family* find(std::string_view name) const;
  /// Registered family names in byte order.
  std::vector<std::string_view> family_names() const;
  template <class F>
  void for_each_family(F&& f) {
    for (auto& [name, family] : families_) f(*family);
  }

  /// The whole exposition (see the top of this file).
  std::string render() const;
  void render(std::string& out) const;

 private:
  Family& add_family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
                     std::vector<double> buckets, ConstantLabels constant_labels);

  std::vector<std::pair<std::string, std::string>> constant_labels_;
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;
};

}  // namespace kueuepp::metrics

#include "core/metrics/metrics_registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/metrics/text_format.hpp"

namespace kueuepp::metrics {

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Histogram: return "histogram";
  }
  return "untyped";
}

std::vector<double> default_buckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> exponential_buckets(double start, double factor, std::size_t count) {
  if (count == 0 || !(start > 0) || !(factor > 1)) {
    throw std::invalid_argument("exponential_buckets needs count > 0, start > 0 and factor > 1");
  }
  std::vector<double> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(start);
    start *= factor;
  }
  return out;
}

// -- SeriesLabels ---------------------------------------------------------------------

std::string_view SeriesLabels::operator[](std::size_t declared_index) const {
  return (*key_)[family_->declared_to_sorted_.at(declared_index)];
}

std::optional<std::string_view> SeriesLabels::get(std::string_view name) const {
  auto position = family_->sorted_position(name);
  if (!position) return std::nullopt;
  return std::string_view((*key_)[*position]);
}

// -- Family -----------------------------------------------------------------------------

bool Family::KeyLess::operator()(const Key& a, KeyView b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](std::string_view x, std::string_view y) { return x < y; });
}

bool Family::KeyLess::operator()(KeyView a, const Key& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](std::string_view x, std::string_view y) { return x < y; });
}

Family::Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
               std::vector<double> buckets, ConstantLabels constant_labels)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)),
      constant_labels_(constant_labels) {
  std::vector<std::uint8_t> order(label_names_.size());
  std::iota(order.begin(), order.end(), std::uint8_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::uint8_t a, std::uint8_t b) { return label_names_[a] < label_names_[b]; });
  sorted_to_declared_ = order;
  declared_to_sorted_.resize(order.size());
  sorted_names_.reserve(order.size());
  for (std::size_t position = 0; position < order.size(); ++position) {
    declared_to_sorted_[order[position]] = static_cast<std::uint8_t>(position);
    sorted_names_.push_back(label_names_[order[position]]);
  }
}

void Family::check_type(MetricType expected, const char* operation) const {
  if (type_ != expected) {
    throw std::invalid_argument(std::string(operation) + " on " + std::string(type_name(type_)) + " " + name_);
  }
}

Family::KeyView Family::sorted_key(LabelValues values, KeyBuffer& buffer) const {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + ": expected " + std::to_string(label_names_.size()) + " label values, got " +
                                std::to_string(values.size()));
  }
  for (std::size_t position = 0; position < values.size(); ++position) {
    buffer[position] = values[sorted_to_declared_[position]];
  }
  return KeyView(buffer.data(), values.size());
}

Family::Series& Family::series_for(LabelValues values) {
  KeyBuffer buffer;
  KeyView key = sorted_key(values, buffer);
  auto it = series_.lower_bound(key);
  if (it != series_.end() && !KeyLess{}(key, it->first)) return it->second;
  Series series;
  if (type_ == MetricType::Histogram) series.buckets.assign(buckets_.size(), 0);
  return series_.emplace_hint(it, Key(key.begin(), key.end()), std::move(series))->second;
}

const Family::Series* Family::find(LabelValues values) const {
  KeyBuffer buffer;
  KeyView key = sorted_key(values, buffer);
  auto it = series_.find(key);
  return it == series_.end() ? nullptr : &it->second;
}

void Family::add(LabelValues values, double delta) {
  if (type_ == MetricType::Histogram) check_type(MetricType::Counter, "add");
  if (type_ == MetricType::Counter && !(delta >= 0)) {
    throw std::invalid_argument(name_ + ": a counter cannot be decreased");
  }
  series_for(values).value += delta;
}

void Family::set(LabelValues values, double value) {
  check_type(MetricType::Gauge, "set");
  series_for(values).value = value;
}

void Family::observe(LabelValues values, double value) {
  check_type(MetricType::Histogram, "observe");
  Series& series = series_for(values);
  // The first bound >= value; NaN compares false with everything, so it lands past the
  // end (only +Inf), as in client_golang (sort.SearchFloat64s).
  auto bound = std::partition_point(buckets_.begin(), buckets_.end(), [&](double b) { return !(b >= value); });
  if (bound != buckets_.end()) ++series.buckets[static_cast<std::size_t>(bound - buckets_.begin())];
  ++series.count;
  series.sum += value;
}

bool Family::remove(LabelValues values) {
  KeyBuffer buffer;
  KeyView key = sorted_key(values, buffer);
  auto it = series_.find(key);
  if (it == series_.end()) return false;
  series_.erase(it);
  return true;
}

std::size_t Family::remove_matching(std::span<const LabelMatch> matches) {
  return remove_matching_if(matches, [](const SeriesLabels&) { return true; });
}

std::optional<std::size_t> Family::sorted_position(std::string_view label_name) const {
  auto it = std::lower_bound(sorted_names_.begin(), sorted_names_.end(), label_name,
                             [](const std::string& a, std::string_view b) { return a < b; });
  if (it == sorted_names_.end() || *it != label_name) return std::nullopt;
  return static_cast<std::size_t>(it - sorted_names_.begin());
}

bool Family::resolve(std::span<const LabelMatch> matches,
                     std::array<std::pair<std::size_t, std::string_view>, kMaxLabels>& out, std::size_t& count) const {
  count = 0;
  for (const LabelMatch& match : matches) {
    auto position = sorted_position(match.name);
    if (!position) return false;
    if (count == out.size()) throw std::invalid_argument(name_ + ": too many label matches");
    out[count++] = {*position, match.value};
  }
  return true;
}

std::pair<Family::SeriesMap::iterator, Family::SeriesMap::iterator> Family::candidate_range(
    std::span<const std::pair<std::size_t, std::string_view>> resolved) {
  for (const auto& [position, value] : resolved) {
    if (position != 0) continue;
    // Keys are ordered by their first value: the series with key[0] == value are the
    // contiguous run starting at lower_bound([value]).
    std::string_view prefix[1] = {value};
    auto first = series_.lower_bound(KeyView(prefix, 1));
    auto last = first;
    while (last != series_.end() && last->first[0] == value) ++last;
    return {first, last};
  }
  return {series_.begin(), series_.end()};
}

std::optional<double> Family::value(LabelValues values) const {
  if (type_ == MetricType::Histogram) return std::nullopt;
  const Series* series = find(values);
  if (series == nullptr) return std::nullopt;
  return series->value;
}

std::optional<HistogramSample> Family::histogram(LabelValues values) const {
  if (type_ != MetricType::Histogram) return std::nullopt;
  const Series* series = find(values);
  if (series == nullptr) return std::nullopt;
  HistogramSample sample;
  sample.upper_bounds = buckets_;
  std::uint64_t cumulative = 0;
  for (std::uint64_t n : series->buckets) {
    cumulative += n;
    sample.cumulative_counts.push_back(cumulative);
  }
  sample.cumulative_counts.push_back(series->count);
  sample.sum = series->sum;
  sample.count = series->count;
  return sample;
}

namespace {

void append_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                   double value) {
  out += name;
  out += suffix;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  append_number(out, value);
  out += '\n';
}

void append_bucket(std::string& out, std::string_view name, std::string_view labels, double bound, double count) {
  out += name;
  out += "_bucket{";
  if (!labels.empty()) {
    out += labels;
    out += ',';
  }
  out += "le=\"";
  append_number(out, bound);
  out += "\"} ";
  append_number(out, count);
  out += '\n';
}

}  // namespace

void Family::render(std::string& out, std::span<const std::pair<std::string, std::string>> constants) const {
  if (series_.empty()) return;
  out += "# HELP ";
  out += name_;
  out += ' ';
  append_help_text(out, help_);
  out += "\n# TYPE ";
  out += name_;
  out += ' ';
  out += type_name(type_);
  out += '\n';

  // The label order of every line: the family's labels and the constant labels, merged
  // by name. A part refers to a key position, or (key_position < 0) to a constant.
  struct Part {
    std::string_view name;
    int key_position;
    std::string_view constant_value;
  };
  std::vector<Part> parts;
  parts.reserve(sorted_names_.size() + constants.size());
  for (std::size_t i = 0; i < sorted_names_.size(); ++i) parts.push_back({sorted_names_[i], static_cast<int>(i), {}});
  if (constant_labels_ == ConstantLabels::Apply) {
    for (const auto& [label, value] : constants) parts.push_back({label, -1, value});
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.name < b.name; });

  std::string labels;
  for (const auto& [key, series] : series_) {
    labels.clear();
    for (const Part& part : parts) {
      if (!labels.empty()) labels += ',';
      labels += part.name;
      labels += "=\"";
      append_label_value(labels, part.key_position < 0 ? part.constant_value
                                                       : std::string_view(key[static_cast<std::size_t>(part.key_position)]));
      labels += '"';
    }
    if (type_ != MetricType::Histogram) {
      append_sample(out, name_, "", labels, series.value);
      continue;
    }
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      cumulative += series.buckets[i];
      append_bucket(out, name_, labels, buckets_[i], static_cast<double>(cumulative));
    }
    append_bucket(out, name_, labels, std::numeric_limits<double>::infinity(), static_cast<double>(series.count));
    append_sample(out, name_, "_sum", labels, series.sum);
    append_sample(out, name_, "_count", labels, static_cast<double>(series.count));
  }
}

// -- Registry ---------------------------------------------------------------------------

Registry::Registry(std::initializer_list<std::pair<std::string, std::string>> constant_labels) {
  for (const auto& [name, value] : constant_labels) set_constant_label(name, value);
}

Family& Registry::counter(std::string name, std::string help, std::vector<std::string> label_names,
                          ConstantLabels constant_labels) {
  return add_family(std::move(name), std::move(help), MetricType::Counter, std::move(label_names), {},
                    constant_labels);
}

Family& Registry::gauge(std::string name, std::string help, std::vector<std::string> label_names,
                        ConstantLabels constant_labels) {
  return add_family(std::move(name), std::move(help), MetricType::Gauge, std::move(label_names), {}, constant_labels);
}

Family& Registry::histogram(std::string name, std::string help, std::vector<std::string> label_names,
                            std::vector<double> buckets, ConstantLabels constant_labels) {
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  if (buckets.empty()) buckets = default_buckets();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (!std::isfinite(buckets[i]) || (i > 0 && !(buckets[i - 1] < buckets[i]))) {
      throw std::invalid_argument(name + ": histogram buckets must be finite and strictly increasing");
    }
  }
  return add_family(std::move(name), std::move(help), MetricType::Histogram, std::move(label_names),
                    std::move(buckets), constant_labels);
}

Family& Registry::add_family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
                             std::vector<double> buckets, ConstantLabels constant_labels) {
  if (!is_valid_metric_name(name)) throw std::invalid_argument("invalid metric name: " + name);
  if (label_names.size() > kMaxLabels) throw std::invalid_argument(name + ": too many labels");
  for (std::size_t i = 0; i < label_names.size(); ++i) {
    const std::string& label = label_names[i];
    if (!is_valid_label_name(label)) throw std::invalid_argument(name + ": invalid label name: " + label);
    if (type == MetricType::Histogram && label == "le") throw std::invalid_argument(name + ": label le is reserved");
    if (std::find(label_names.begin(), label_names.begin() + static_cast<std::ptrdiff_t>(i), label) !=
        label_names.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument(name + ": duplicate label name: " + label);
    }
    if (constant_labels == ConstantLabels::Apply) {
      for (const auto& constant : constant_labels_) {
        if (constant.first == label) throw std::invalid_argument(name + ": label " + label + " is a constant label");
      }
    }
  }
  if (auto it = families_.find(name); it != families_.end()) {
    const Family& existing = *it->second;
    if (existing.type() != type || existing.help() != help || existing.label_names() != label_names ||
        existing.buckets() != buckets || existing.constant_labels() != constant_labels) {
      throw std::invalid_argument("metric " + name + " is already registered with a different schema");
    }
    return *it->second;
  }
  std::string key = name;
  auto family = std::unique_ptr<Family>(new Family(std::move(name), std::move(help), type, std::move(label_names),
                                                   std::move(buckets), constant_labels));
  return *families_.emplace(std::move(key), std::move(family)).first->second;
}

void Registry::set_constant_label(std::string name, std::string value) {
  if (!is_valid_label_name(name)) throw std::invalid_argument("invalid constant label name: " + name);
  for (const auto& [family_name, family] : families_) {
    if (family->constant_labels() == ConstantLabels::Apply && family->has_label(name)) {
      throw std::invalid_argument("constant label " + name + " clashes with a label of " + family_name);
    }
  }
  auto it = std::lower_bound(constant_labels_.begin(), constant_labels_.end(), name,
                             [](const auto& label, const std::string& n) { return label.first < n; });
  if (it != constant_labels_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    constant_labels_.emplace(it, std::move(name), std::move(value));
  }
}

Family* Registry::find(std::string_view name) {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

const Family* Registry::find(std::string_view name) const {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

std::vector<std::string_view> Registry::family_names() const {
  std::vector<std::string_view> names;
  names.reserve(families_.size());
  for (const auto& [name, family] : families_) names.push_back(name);
  return names;
}

std::string Registry::render() const {
  std::string out;
  render(out);
  return out;
}

void Registry::render(std::string& out) const {
  for (const auto& [name, family] : families_) family->render(out, constant_labels_);
}

}  // namespace kueuepp::metrics

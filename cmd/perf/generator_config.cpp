#include "cmd/perf/generator_config.hpp"

#include <fstream>
#include <limits>
#include <sstream>

#include "cmd/perf/config_fields.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd::perf {

namespace {

/// Class names end up in object names (and ClusterQueue names in namespace names), so
/// they must be DNS-1123 label material: lowercase letters, digits and '-'.
Status check_class_name(const std::string& name, std::string_view path) {
  bool ok = !name.empty() && name.size() <= 40 && name.front() != '-' && name.back() != '-';
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (!ok) {
    return fail(std::string(path) + ": \"" + name +
                "\" is not a valid class name (lowercase letters, digits and '-', at most 40 characters)");
  }
  return {};
}

Expected<std::int64_t> read_count(const json::object& obj, std::string_view path, std::string_view key,
                                  bool required) {
  const json::value* v = member(obj, key);
  if (v == nullptr) {
    if (required) return fail(field_path(path, key) + ": required");
    return 0;
  }
  auto n = read_integer(*v, field_path(path, key));
  if (!n) return n;
  if (*n < 0) return fail(field_path(path, key) + ": must not be negative");
  return n;
}

Expected<std::string> read_policy(const json::object& obj, std::string_view path, std::string_view key,
                                  std::initializer_list<std::string_view> allowed) {
  const json::value* v = member(obj, key);
  if (v == nullptr) return std::string();
  auto s = read_string(*v, field_path(path, key));
  if (!s) return s;
  for (std::string_view a : allowed) {
    if (a == *s) return s;
  }
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  return fail(field_path(path, key) + ": \"" + *s + "\" is not one of " + list);
}

Expected<WorkloadTemplate> parse_template(const json::value& v, const std::string& path) {
  auto obj = read_object(v, path);
  if (!obj) return fail(obj.error().message);
  const json::object& o = **obj;
  if (auto st = check_fields(o, path, {"className", "runtimeMs", "priority", "request"},
                             {"podCount", "tasConstraint", "tasLevel", "sliceSize", "devices"});
      !st) {
    return fail(st.error().message);
  }
  WorkloadTemplate t;
  const json::value* name = member(o, "className");
  if (name == nullptr) return fail(field_path(path, "className") + ": required");
  auto n = read_string(*name, field_path(path, "className"));
  if (!n) return fail(n.error().message);
  t.class_name = *n;
  if (auto st = check_class_name(t.class_name, field_path(path, "className")); !st) return fail(st.error().message);

  auto runtime = read_count(o, path, "runtimeMs", false);
  if (!runtime) return fail(runtime.error().message);
  t.runtime_ms = *runtime;

  if (const json::value* p = member(o, "priority")) {
    auto prio = read_integer(*p, field_path(path, "priority"));
    if (!prio) return fail(prio.error().message);
    if (*prio < std::numeric_limits<std::int32_t>::min() || *prio > std::numeric_limits<std::int32_t>::max()) {
      return fail(field_path(path, "priority") + ": out of the int32 range");
    }
    t.priority = static_cast<std::int32_t>(*prio);
  }

  const json::value* req = member(o, "request");
  if (req == nullptr) return fail(field_path(path, "request") + ": required (cpu per pod)");
  auto q = read_quantity(*req, field_path(path, "request"));
  if (!q) return fail(q.error().message);
  if (q->milli() <= 0) return fail(field_path(path, "request") + ": must be positive");
  t.request = *q;
  return t;
}

Expected<WorkloadsSet> parse_workloads_set(const json::value& v, const std::string& path) {
  auto obj = read_object(v, path);
  if (!obj) return fail(obj.error().message);
  const json::object& o = **obj;
  if (auto st = check_fields(o, path, {"count", "creationIntervalMs", "workloads"}); !st) return fail(st.error().message);
  WorkloadsSet s;
  auto count = read_count(o, path, "count", true);
  if (!count) return fail(count.error().message);
  s.count = *count;
  auto interval = read_count(o, path, "creationIntervalMs", false);
  if (!interval) return fail(interval.error().message);
  s.creation_interval_ms = *interval;
  const json::value* wls = member(o, "workloads");
  if (wls == nullptr) return fail(field_path(path, "workloads") + ": required");
  auto arr = read_array(*wls, field_path(path, "workloads"));
  if (!arr) return fail(arr.error().message);
  if ((*arr)->empty()) return fail(field_path(path, "workloads") + ": needs at least one workload template");
  for (std::size_t i = 0; i < (*arr)->size(); ++i) {
    auto t = parse_template((**arr)[i], field_path(field_path(path, "workloads"), i));
    if (!t) return fail(t.error().message);
    s.workloads.push_back(std::move(*t));
  }
  return s;
}

Expected<QueuesSet> parse_queues_set(const json::value& v, const std::string& path) {
  auto obj = read_object(v, path);
  if (!obj) return fail(obj.error().message);
  const json::object& o = **obj;
  if (auto st = check_fields(o, path,
                             {"className", "count", "nominalQuota", "borrowingLimit", "reclaimWithinCohort",
                              "withinClusterQueue", "workloadsSets"},
                             {"deviceNominalQuota", "deviceBorrowingLimit"});
      !st) {
    return fail(st.error().message);
  }
  QueuesSet q;
  const json::value* name = member(o, "className");
  if (name == nullptr) return fail(field_path(path, "className") + ": required");
  auto n = read_string(*name, field_path(path, "className"));
  if (!n) return fail(n.error().message);
  q.class_name = *n;
  if (auto st = check_class_name(q.class_name, field_path(path, "className")); !st) return fail(st.error().message);
  auto count = read_count(o, path, "count", true);
  if (!count) return fail(count.error().message);
  q.count = *count;

  const json::value* nominal = member(o, "nominalQuota");
  if (nominal == nullptr) return fail(field_path(path, "nominalQuota") + ": required");
  auto nq = read_quantity(*nominal, field_path(path, "nominalQuota"));
  if (!nq) return fail(nq.error().message);
  if (nq->milli() < 0) return fail(field_path(path, "nominalQuota") + ": must not be negative");
  q.nominal_quota = *nq;
  if (const json::value* bl = member(o, "borrowingLimit")) {
    auto b = read_quantity(*bl, field_path(path, "borrowingLimit"));
    if (!b) return fail(b.error().message);
    if (b->milli() < 0) return fail(field_path(path, "borrowingLimit") + ": must not be negative");
    q.borrowing_limit = *b;
  }
  auto reclaim = read_policy(o, path, "reclaimWithinCohort", {"Never", "LowerPriority", "Any"});
  if (!reclaim) return fail(reclaim.error().message);
  q.reclaim_within_cohort = *reclaim;
  auto within = read_policy(o, path, "withinClusterQueue", {"Never", "LowerPriority", "LowerOrNewerEqualPriority"});
  if (!within) return fail(within.error().message);
  q.within_cluster_queue = *within;

  if (const json::value* sets = member(o, "workloadsSets")) {
    auto arr = read_array(*sets, field_path(path, "workloadsSets"));
    if (!arr) return fail(arr.error().message);
    for (std::size_t i = 0; i < (*arr)->size(); ++i) {
      auto s = parse_workloads_set((**arr)[i], field_path(field_path(path, "workloadsSets"), i));
      if (!s) return fail(s.error().message);
      q.workloads_sets.push_back(std::move(*s));
    }
  }
  return q;
}

Expected<CohortSet> parse_cohort_set(const json::value& v, const std::string& path) {
  auto obj = read_object(v, path);
  if (!obj) return fail(obj.error().message);
  const json::object& o = **obj;
  if (auto st = check_fields(o, path, {"className", "count", "queuesSets"}); !st) return fail(st.error().message);
  CohortSet c;
  const json::value* name = member(o, "className");
  if (name == nullptr) return fail(field_path(path, "className") + ": required");
  auto n = read_string(*name, field_path(path, "className"));
  if (!n) return fail(n.error().message);
  c.class_name = *n;
  if (auto st = check_class_name(c.class_name, field_path(path, "className")); !st) return fail(st.error().message);
  auto count = read_count(o, path, "count", true);
  if (!count) return fail(count.error().message);
  c.count = *count;
  if (const json::value* sets = member(o, "queuesSets")) {
    auto arr = read_array(*sets, field_path(path, "queuesSets"));
    if (!arr) return fail(arr.error().message);
    for (std::size_t i = 0; i < (*arr)->size(); ++i) {
      auto q = parse_queues_set((**arr)[i], field_path(field_path(path, "queuesSets"), i));
      if (!q) return fail(q.error().message);
      c.queues_sets.push_back(std::move(*q));
    }
  }
  return c;
}

}  // namespace

std::int64_t QueuesSet::workloads_per_queue() const {
  std::int64_t n = 0;
  for (const auto& s : workloads_sets) n += s.count * static_cast<std::int64_t>(s.workloads.size());
  return n;
}

std::int64_t GeneratorConfig::total_cluster_queues() const {
  std::int64_t n = 0;
  for (const auto& c : cohorts) {
    for (const auto& q : c.queues_sets) n += c.count * q.count;
  }
  return n;
}

std::int64_t GeneratorConfig::total_workloads() const {
  std::int64_t n = 0;
  for (const auto& c : cohorts) {
    for (const auto& q : c.queues_sets) n += c.count * q.count * q.workloads_per_queue();
  }
  return n;
}

Expected<GeneratorConfig> parse_generator_config(std::string_view yaml, std::string_view source) {
  auto doc = json::parse_yaml(yaml);
  if (!doc) return fail(std::string(source) + ": " + doc.error().message);
  auto wrap = [&](const Error& e) { return fail(std::string(source) + ": " + e.message); };
  auto obj = read_object(*doc, "");
  if (!obj) return wrap(obj.error());
  const json::object& o = **obj;
  if (auto st = check_fields(o, "", {"cohorts", "resourceFlavor"}, {"topology", "dra"}); !st) return wrap(st.error());

  GeneratorConfig cfg;
  if (const json::value* rf = member(o, "resourceFlavor")) {
    auto rfo = read_object(*rf, "resourceFlavor");
    if (!rfo) return wrap(rfo.error());
    if (auto st = check_fields(**rfo, "resourceFlavor", {"name"}, {"nodeLabel", "topologyName"}); !st) {
      return wrap(st.error());
    }
    if (const json::value* name = member(**rfo, "name")) {
      auto n = read_string(*name, "resourceFlavor.name");
      if (!n) return wrap(n.error());
      if (auto st = check_class_name(*n, "resourceFlavor.name"); !st) return wrap(st.error());
      cfg.resource_flavor = *n;
    }
  }
  const json::value* cohorts = member(o, "cohorts");
  if (cohorts == nullptr) return fail(std::string(source) + ": config must contain at least one cohort (cohorts: [...])");
  auto arr = read_array(*cohorts, "cohorts");
  if (!arr) return wrap(arr.error());
  if ((*arr)->empty()) return fail(std::string(source) + ": config must contain at least one cohort");
  for (std::size_t i = 0; i < (*arr)->size(); ++i) {
    auto c = parse_cohort_set((**arr)[i], field_path("cohorts", i));
    if (!c) return wrap(c.error());
    cfg.cohorts.push_back(std::move(*c));
  }
  // ClusterQueue names (`<class>-<set>-<index>-<cohort>`) are also namespace names:
  // DNS-1123 labels of at most 63 characters.
  for (std::size_t ci = 0; ci < cfg.cohorts.size(); ++ci) {
    const auto& c = cfg.cohorts[ci];
    std::string longest_cohort = c.class_name + "-" + std::to_string(c.count > 0 ? c.count - 1 : 0);
    for (std::size_t qi = 0; qi < c.queues_sets.size(); ++qi) {
      const auto& q = c.queues_sets[qi];
      std::string longest = q.class_name + "-" + std::to_string(qi) + "-" +
                            std::to_string(q.count > 0 ? q.count - 1 : 0) + "-" + longest_cohort;
      if (longest.size() > 63) {
        return fail(std::string(source) + ": cohorts[" + std::to_string(ci) + "].queuesSets[" + std::to_string(qi) +
                    "]: ClusterQueue names such as \"" + longest +
                    "\" exceed 63 characters (they are also namespace names); shorten the class names");
      }
    }
  }
  if (cfg.total_workloads() > 10'000'000) {
    return fail(std::string(source) + ": " + std::to_string(cfg.total_workloads()) + " workloads is more than this runner supports");
  }
  return cfg;
}

Expected<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return fail("cannot read " + path);
  return text.str();
}

Expected<GeneratorConfig> load_generator_config(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return fail(text.error().message);
  return parse_generator_config(*text, path);
}

}  // namespace kueuepp::cmd::perf

#include "kube/apiserver/server/strategy/list_table.hpp"

#include <algorithm>
#include <optional>

namespace kueuepp::kube::server {

namespace {

std::vector<std::string> split_path(std::string_view dotted) {
  std::vector<std::string> out;
  while (!dotted.empty()) {
    std::size_t dot = dotted.find('.');
    out.emplace_back(dotted.substr(0, dot));
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return out;
}

patch::ListStrategy to_strategy(const ListMerge& m) {
  patch::ListStrategy s;
  switch (m.kind) {
    case ListMerge::Kind::Atomic:
      return s;
    case ListMerge::Kind::Set:
      s.kind = patch::ListStrategy::Kind::Set;
      return s;
    case ListMerge::Kind::Map:
      s.kind = patch::ListStrategy::Kind::Map;
      s.keys.emplace_back(m.key1);
      if (!m.key2.empty()) s.keys.emplace_back(m.key2);
      if (!m.key2_default.empty()) s.key_defaults[m.key2] = m.key2_default;
      return s;
  }
  return s;
}

bool same_path(const std::vector<std::string>& a, patch::FieldPath b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool has_prefix(patch::FieldPath path, const std::vector<std::string>& prefix) {
  return !prefix.empty() && path.size() > prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

}  // namespace

struct ListTable::Data {
  struct Entry {
    std::vector<std::string> path;
    patch::ListStrategy strategic;
    patch::ListStrategy apply;
    bool atomic_object = false;
  };
  std::vector<Entry> entries;
  std::vector<std::string> pod_template;
  // A PodTemplateSpec is {metadata, spec} as a Pod is; metadata alone is every object's.
  patch::ListStrategyResolver pod_strategic = patch::builtin_list_strategies("", "Pod");
  patch::ListStrategyResolver pod_apply = patch::builtin_apply_list_strategies("", "Pod");
  patch::AtomicObjectResolver pod_atomic = patch::builtin_atomic_objects("", "Pod");
  patch::ListStrategyResolver any_strategic = patch::builtin_list_strategies("", "");
  patch::ListStrategyResolver any_apply = patch::builtin_apply_list_strategies("", "");
  patch::AtomicObjectResolver any_atomic = patch::builtin_atomic_objects("", "");

  const Entry* find(patch::FieldPath path) const {
    for (const auto& e : entries) {
      if (same_path(e.path, path)) return &e;
    }
    return nullptr;
  }
  /// The path below the pod template, when `path` is inside it.
  std::optional<patch::FieldPath> in_template(patch::FieldPath path) const {
    if (!has_prefix(path, pod_template)) return std::nullopt;
    return path.subspan(pod_template.size());
  }
};

ListTable::ListTable(const std::vector<ListRule>& rules, std::string_view pod_template) {
  auto data = std::make_shared<Data>();
  for (const auto& r : rules) {
    data->entries.push_back({split_path(r.path), to_strategy(r.strategic), to_strategy(r.apply), r.atomic_object});
  }
  data->pod_template = split_path(pod_template);
  data_ = std::move(data);
}

patch::ListStrategyResolver ListTable::strategic() const {
  return [data = data_](patch::FieldPath path) {
    if (const auto* e = data->find(path)) return e->strategic;
    if (auto rest = data->in_template(path)) return data->pod_strategic(*rest);
    return data->any_strategic(path);
  };
}

patch::ListStrategyResolver ListTable::apply() const {
  return [data = data_](patch::FieldPath path) {
    if (const auto* e = data->find(path)) return e->apply;
    if (auto rest = data->in_template(path)) return data->pod_apply(*rest);
    return data->any_apply(path);
  };
}

patch::AtomicObjectResolver ListTable::atomic_objects() const {
  return [data = data_](patch::FieldPath path) {
    if (const auto* e = data->find(path)) return e->atomic_object;
    if (auto rest = data->in_template(path)) return data->pod_atomic(*rest);
    return data->any_atomic(path);
  };
}

}  // namespace kueuepp::kube::server

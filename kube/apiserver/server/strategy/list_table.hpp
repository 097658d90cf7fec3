#pragma once

// The list merge strategies of the built-in kinds that kube/apiserver/patch's tables do not
// describe (apps Deployment, policy PodDisruptionBudget, rbac, core Service and Secret).
// Each kind lists its own lists and atomic objects (facts from the Go types' tags:
// patchStrategy/patchMergeKey for strategic merge patch, +listType/+listMapKey and
// +structType=atomic/+mapType=atomic for server-side apply); an embedded
// PodTemplateSpec resolves as kube/apiserver/patch resolves a Pod (its metadata and spec are a
// Pod's), and metadata as every object's.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::server {

/// How one list merges in one mechanism.
struct ListMerge {
  enum class Kind { Atomic, Map, Set };
  Kind kind = Kind::Atomic;
  std::string_view key1 = {};
  std::string_view key2 = {};
  /// The schema default of key2 (a port's protocol is "TCP" when omitted).
  std::string_view key2_default = {};
};

/// One list or atomic object of a kind.
struct ListRule {
  std::string_view path;       ///< dotted, from the object root: "spec.ports"
  ListMerge strategic = {};    ///< strategic merge patch
  ListMerge apply = {};        ///< server-side apply
  bool atomic_object = false;  ///< replaced whole by server-side apply
};

/// A list merged by `key` in both mechanisms.
constexpr ListRule keyed_list(std::string_view path, std::string_view key) {
  return ListRule{path, ListMerge{ListMerge::Kind::Map, key}, ListMerge{ListMerge::Kind::Map, key}};
}
/// An object server-side apply owns and replaces whole (a LabelSelector, a RoleRef).
constexpr ListRule atomic_object(std::string_view path) { return ListRule{path, {}, {}, true}; }

class ListTable {
 public:
  /// `rules` of one kind; `pod_template` is the dotted path of an embedded
  /// PodTemplateSpec ("spec.template"), empty when the kind has none.
  explicit ListTable(const std::vector<ListRule>& rules, std::string_view pod_template = {});

  patch::ListStrategyResolver strategic() const;
  patch::ListStrategyResolver apply() const;
  patch::AtomicObjectResolver atomic_objects() const;

 private:
  struct Data;
  std::shared_ptr<const Data> data_;
};

}  // namespace kueuepp::kube::server

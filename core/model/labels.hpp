#pragma once

// Labels and label selectors (metav1.LabelSelector), as namespaceSelector uses them.

#include <map>
#include <string>
#include <vector>

namespace kueuepp::core {

using Labels = std::map<std::string, std::string, std::less<>>;

struct LabelSelectorRequirement {
  enum class Op { In, NotIn, Exists, DoesNotExist };
  std::string key;
  Op op = Op::In;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

/// An empty selector matches everything. (A ClusterQueue without a namespaceSelector is
/// represented by the absence of a selector, which matches nothing.)
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool matches(const Labels& labels) const;
  bool operator==(const LabelSelector&) const = default;
};

}  // namespace kueuepp::core

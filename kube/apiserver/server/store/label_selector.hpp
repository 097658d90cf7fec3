#pragma once

// Label selectors in the query-string syntax of k8s.io/apimachinery/pkg/labels:
// `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`,
// joined by commas (all must hold). `!=` and `notin` also match objects without the key.

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

class LabelSelector {
 public:
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
  struct Requirement {
    std::string key;
    Op op = Op::Exists;
    std::vector<std::string> values;
  };

  /// Parses the text of `labelSelector=`; the error reads like kube-apiserver's
  /// ("unable to parse requirement: ...").
  static Expected<LabelSelector> parse(std::string_view text);

  bool empty() const { return requirements_.empty(); }
  /// True when the labels (metadata.labels, an object or null) satisfy every requirement.
  bool matches(const json::value* labels) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace kueuepp::kube::server

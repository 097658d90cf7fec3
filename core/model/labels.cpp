#include "core/model/labels.hpp"

#include <algorithm>

namespace kueuepp::core {

bool LabelSelector::matches(const Labels& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& req : match_expressions) {
    auto it = labels.find(req.key);
    bool has = it != labels.end();
    auto in_values = [&] {
      return has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    };
    switch (req.op) {
      case LabelSelectorRequirement::Op::In:
        if (!in_values()) return false;
        break;
      case LabelSelectorRequirement::Op::NotIn:
        if (in_values()) return false;
        break;
      case LabelSelectorRequirement::Op::Exists:
        if (!has) return false;
        break;
      case LabelSelectorRequirement::Op::DoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace kueuepp::core

#include "kube/client/kinds/job.hpp"

namespace kueuepp::kube::client {

bool Job::suspended() const { return bool_at({"spec", "suspend"}).value_or(false); }
void Job::set_suspend(bool suspend) { ensure({"spec", "suspend"}) = suspend; }
std::optional<std::int64_t> Job::parallelism() const { return int_at({"spec", "parallelism"}); }
void Job::set_parallelism(std::int64_t parallelism) {
  ensure({"spec", "parallelism"}) = parallelism;
}
std::optional<std::int64_t> Job::completions() const { return int_at({"spec", "completions"}); }

const json::value* Job::pod_template() const { return find({"spec", "template"}); }

StringMap Job::node_selector() const {
  return string_map_at({"spec", "template", "spec", "nodeSelector"});
}
void Job::set_node_selector(const StringMap& selector) {
  set_string_map({"spec", "template", "spec", "nodeSelector"}, selector);
}

std::vector<Toleration> Job::tolerations() const {
  return read_tolerations(find({"spec", "template", "spec", "tolerations"}));
}
void Job::set_tolerations(const std::vector<Toleration>& tolerations) {
  if (tolerations.empty()) {
    erase({"spec", "template", "spec", "tolerations"});
    return;
  }
  ensure({"spec", "template", "spec", "tolerations"}) = tolerations_to_json(tolerations);
}

}  // namespace kueuepp::kube::client

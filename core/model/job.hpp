#pragma once

// batch/v1 Job: the parts the Job integration reads.

#include <optional>
#include <string>

#include "core/model/labels.hpp"
#include "core/model/time.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::core {

struct BatchJob {
  std::string ns;
  std::string name;
  std::string uid;
  Time creation{};
  Labels labels;
  Labels annotations;
  std::int32_t parallelism = 1;
  std::optional<std::int32_t> completions;
  bool suspend = false;
  /// The pod template as one pod set (count and min_count are filled by the integration).
  PodSet pod_template;
};

}  // namespace kueuepp::core

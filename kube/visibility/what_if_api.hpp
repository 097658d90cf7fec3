#pragma once

// "What if I submit this?" on the wire: a create on the LocalQueue's `whatif`
// subresource of visibility.kueue.x-k8s.io,
//   POST /apis/visibility.kueue.x-k8s.io/{v1beta2|v1beta1}/namespaces/{ns}/localqueues/{name}/whatif
// whose body is the Workload or batch/v1 Job to ask about, and whose answer is a
// WhatIfResult: the engine's answer (core/engine/what_if.hpp) as JSON. Nothing is written
// to the cluster. Pure: no I/O.

#include <string>
#include <string_view>

#include "core/engine/what_if.hpp"
#include "core/model/time.hpp"

namespace kueuepp::kube::visibility {

/// The question: the object as sent (JSON), for the LocalQueue of the path.
struct WhatIfQuery {
  std::string version;  ///< v1beta2 or v1beta1
  std::string ns;
  std::string local_queue;
  std::string body;
};

struct WhatIfResult {
  enum class Kind {
    Answered,
    LocalQueueNotFound,
    /// The body is not a Workload or Job this LocalQueue can take: `message` says why.
    Invalid,
  };
  Kind kind = Kind::Answered;
  std::string message;
  core::WhatIfAnswer answer;
  core::Time asked_at{};
};

/// The WhatIfResult document of an answered question.
std::string encode_what_if_result(std::string_view version, const WhatIfResult& result);

}  // namespace kueuepp::kube::visibility

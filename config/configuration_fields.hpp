#pragma once

// Every field of Kueue's Configuration (v1beta2, and v1beta1's own spellings) and what
// kueuepp does with it: read (and honoured), a section whose fields are listed in turn,
// refused as not implemented, or accepted as having no effect in kueuepp (tuning of
// Kueue's own reconcilers, which kueuepp's actors do not have). A field in none of these
// is unknown, as in Kueue, which reads its configuration strictly.

#include <string>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::config {

/// A field kueuepp does not honour, and why.
struct UnsupportedField {
  std::string field;
  std::string why;
};

struct ConfigurationFieldReport {
  std::vector<std::string> unknown;
  std::vector<UnsupportedField> unsupported;
  std::vector<UnsupportedField> without_effect;
};

/// Looks at every field of the document (values are the decoder's to read).
ConfigurationFieldReport classify_configuration_fields(const json::value& doc, bool v1beta1);

}  // namespace kueuepp::config

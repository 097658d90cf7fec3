#pragma once

// Shared by the conversion tests: a case file of tests/kube/conversion/cases/ (the
// v1beta1 manifest, then the v1beta2 one Kueue's conversion makes of it), and the
// object without kueuepp's stash annotation.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "kube/conversion/conversion_stash.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::kube::conversion::testing {

inline std::pair<json::value, json::value> load_case(const std::string& file) {
  std::ifstream in(std::string(KUEUEPP_SOURCE_DIR) + "/tests/kube/conversion/cases/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  EXPECT_TRUE(docs.has_value()) << file << ": " << (docs ? "" : docs.error().message);
  if (!docs || docs->size() != 2) {
    ADD_FAILURE() << file << " does not hold two documents";
    return {};
  }
  return {(*docs)[0], (*docs)[1]};
}

inline json::value without_stash(json::value object) {
  if (auto* metadata = json::find(object, "metadata")) {
    if (auto* annotations = json::find(*metadata, "annotations"); annotations != nullptr && annotations->is_object()) {
      annotations->as_object().erase(kStashAnnotation);
      if (annotations->as_object().empty()) metadata->as_object().erase("annotations");
    }
  }
  return object;
}

inline bool has_stash(const json::value& object) {
  const auto* annotations = json::find_path(object, {"metadata", "annotations"});
  return annotations != nullptr && json::find(*annotations, kStashAnnotation) != nullptr;
}

}  // namespace kueuepp::kube::conversion::testing

#pragma once

// Shared by the webhook tests: cluster facts from a table, requests from YAML, and a
// response's patch applied to the object it was computed for.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/base64.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/yaml.hpp"
#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/cluster_facts.hpp"

namespace kueuepp::kube::webhook::testing {

struct TableFacts : ClusterFacts {
  std::set<std::string, std::less<>> namespaces_with_default_queue;
  bool default_priority_class = false;
  std::map<std::string, core::Labels, std::less<>> namespace_labels_by_name;

  bool default_local_queue_exists(std::string_view ns) const override {
    return namespaces_with_default_queue.contains(ns);
  }
  bool default_priority_class_exists() const override { return default_priority_class; }
  const core::Labels* namespace_labels(std::string_view ns) const override {
    auto it = namespace_labels_by_name.find(ns);
    return it == namespace_labels_by_name.end() ? nullptr : &it->second;
  }
};

inline json::value yaml(std::string_view text) {
  auto doc = json::parse_yaml(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : json::value();
}

inline AdmissionRequest request(Operation op, std::string_view object_yaml, std::string_view old_yaml = {},
                                std::string ns = "team") {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.operation = op;
  r.ns = std::move(ns);
  r.object = yaml(object_yaml);
  if (!old_yaml.empty()) r.old_object = yaml(old_yaml);
  return r;
}

/// The object after the response's patch, as kube-apiserver would apply it.
inline json::value patched(const AdmissionRequest& r, const AdmissionResponse& response) {
  if (response.patch.empty()) return r.object;
  auto out = patch::json_patch(r.object, json::value(response.patch));
  EXPECT_TRUE(out) << "the patch does not apply: " << json::dump(json::value(response.patch));
  return out ? std::move(*out) : json::value();
}

}  // namespace kueuepp::kube::webhook::testing

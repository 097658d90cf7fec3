#pragma once

// One webhook of a stored MutatingWebhookConfiguration or ValidatingWebhookConfiguration,
// read once per configuration change into the form the admission path matches and calls
// with. The configurations were defaulted and validated when stored
// (strategy/webhook_configuration_strategy.cpp); what does not read is left empty and
// never matches.

#include <cstdint>
#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/outbound/client_config.hpp"

namespace kueuepp::kube::server {

struct WebhookRule {
  std::vector<std::string> operations;  ///< CREATE, UPDATE, DELETE, CONNECT or *
  std::vector<std::string> groups;
  std::vector<std::string> versions;
  std::vector<std::string> resources;   ///< "jobs", "jobs/status", "*", "*/status", "*/*"
  std::string scope = "*";              ///< *, Cluster or Namespaced
};

struct Webhook {
  std::string configuration;  ///< the configuration's metadata.name
  std::string name;
  bool mutating = false;
  std::vector<WebhookRule> rules;
  bool fail_closed = true;    ///< failurePolicy Fail (else Ignore)
  bool exact = false;         ///< matchPolicy Exact (else Equivalent)
  json::value namespace_selector;  ///< a metav1.LabelSelector ({} selects everything)
  json::value object_selector;
  std::string side_effects;   ///< None, NoneOnDryRun, Some, Unknown
  int timeout_seconds = 10;
  std::string review_version;  ///< the AdmissionReview version sent: v1 (preferred) or v1beta1

  WebhookClientConfig client;
};

/// The webhooks of a configuration, in list order.
std::vector<Webhook> read_webhooks(const json::object& configuration, bool mutating);

}  // namespace kueuepp::kube::server

#pragma once

// Which webhooks a request reaches, as kube-apiserver decides (its webhook plugin's
// ShouldCallHook): the namespaceSelector against the labels of the request's namespace
// (a Namespace's own labels when the request creates or updates one; never a filter for
// other cluster-scoped objects), the objectSelector against the new or the old object,
// then the rules — operation, group, version, resource with "*" and "res/sub" forms,
// scope — first on the resource as requested, then, under matchPolicy Equivalent, on
// the other versions serving the same storage (the webhook then sees the object in
// that version).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/admission/webhook.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

/// What the rules look at.
struct RequestResource {
  std::string_view group;
  std::string_view version;
  std::string_view resource;     ///< plural
  std::string_view subresource;  ///< "" for the main resource
  std::string_view operation;    ///< CREATE, UPDATE, DELETE, CONNECT
  std::string_view ns;           ///< "" for cluster-scoped objects
};

/// One rule against one resource.
bool rule_matches(const WebhookRule& rule, const RequestResource& request);

/// Whether a namespaceSelector admits the request; nullopt when the namespace is needed
/// and does not exist (kube-apiserver answers 404 for it). `namespace_labels` looks up
/// the labels of a stored namespace (nullptr: no such namespace); `object_labels`, the
/// request's new object's labels (nullptr: none).
std::optional<bool> namespace_selector_matches(
    const json::value& selector, const RequestResource& request, const json::value* object_labels,
    const std::function<std::optional<const json::value*>(std::string_view)>& namespace_labels);

/// Whether an objectSelector admits the request: it matches the labels of the new or of
/// the old object (nullptr: the request has none).
bool object_selector_matches(const json::value& selector, const json::value* new_object,
                             const json::value* old_object);

/// The resource a webhook is called for: the requested one, or under matchPolicy
/// Equivalent another version of it (null when no rule matches).
ResourceTypePtr matching_resource(const Webhook& hook, const RequestResource& request, const ResourceTypePtr& requested,
                                  const std::vector<ResourceTypePtr>& equivalents);

}  // namespace kueuepp::kube::server

#pragma once

// Conversion of a CRD's objects between its versions, as kube-apiserver's
// pkg/apiserver/conversion does:
//
// - strategy None: the apiVersion is rewritten, nothing else;
// - strategy Webhook: the objects not already in the desired version are sent in one
//   ConversionReview (the first of conversionReviewVersions this server speaks: v1 or
//   v1beta1) to spec.conversion.webhook.clientConfig over HTTPS, with client-go's 30 s
//   timeout, and the answer is checked (conversion_review.hpp); a failure names the kind
//   and version converted from, as kube-apiserver's "conversion webhook for
//   <group>/<version>, Kind=<Kind> failed: ..." does.
//
// What a webhook answers is pruned by the desired version's schema (fields it does not
// know are dropped), as kube-apiserver prunes every conversion's result.
//
// One object is converted with kube-apiserver's messages for one object; several (a
// list) with its messages for a list ("... at index N"), and fail together.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/schema/schema.hpp"
#include "kube/apiserver/server/outbound/client_config.hpp"
#include "kube/apiserver/server/outbound/webhook_transport.hpp"

namespace kueuepp::kube::server {

/// What a CustomResourceDefinition says about converting its objects.
struct CrdConversion {
  std::string crd_name;
  std::string group;
  std::string kind;
  std::vector<std::string> versions;  ///< every spec.versions name (served or not)
  bool webhook = false;               ///< strategy Webhook (else None)
  WebhookClientConfig client;
  std::vector<std::string> review_versions;  ///< conversionReviewVersions, in order
  /// The compiled schema of each version that has one: what a webhook's answer is
  /// pruned by, as kube-apiserver's schemaCoercingConverter prunes it.
  std::map<std::string, schema::SchemaPtr> schemas;
};

/// Reads spec.conversion of a CRD (validated when stored).
CrdConversion read_crd_conversion(const json::object& crd);

/// Where and how a conversion webhook is called (the server's wiring).
struct ConversionCalls {
  WebhookTransport* transport = nullptr;
  ServiceLookup services;
  std::string service_host = "127.0.0.1";
  std::chrono::milliseconds timeout = std::chrono::seconds(30);  ///< client-go's webhook client timeout
};

class CrdConverter {
 public:
  using Done = std::function<void(Expected<std::vector<json::value>>)>;

  CrdConverter(CrdConversion conversion, ConversionCalls calls);

  const CrdConversion& conversion() const { return conversion_; }
  /// Whether converting may call a webhook (else convert() answers before returning).
  bool calls_webhook() const { return conversion_.webhook; }

  /// Converts `objects` to `version` of the CRD's group; objects already in it are kept
  /// as they are. `done` runs exactly once: at once when no webhook is called, else from
  /// the transport's callback.
  void convert(std::vector<json::value> objects, const std::string& version, Done done) const;

 private:
  void call_webhook(std::shared_ptr<std::vector<json::value>> objects, std::vector<std::size_t> pending,
                    const std::string& desired, Done done) const;

  CrdConversion conversion_;
  ConversionCalls calls_;
};

using CrdConverterPtr = std::shared_ptr<const CrdConverter>;

}  // namespace kueuepp::kube::server

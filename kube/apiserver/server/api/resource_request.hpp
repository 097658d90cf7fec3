#pragma once

// One request for a resource (/api/... or /apis/... naming a served resource), with what
// every handler needs: the parsed URL, the resolved resource type (the view the client
// asked through), the negotiated representation, and how to answer.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api/request_user.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/http/http_types.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

struct ResourceRequest {
  ServerContext& ctx;
  const HttpRequest& http;
  RequestInfo info;
  Query query;
  ResourceTypePtr type;
  BucketId bucket = 0;
  Representation rep = Representation::Json;
  ResponderPtr responder;
  /// How often the request was handled again because its object changed while its
  /// admission webhooks were called (admission_steps.hpp).
  int admission_retries = 0;
  /// Who asked (authenticated, or impersonated): what admission webhooks are told.
  RequestUser user;

  const ResourceType& view() const { return *type; }
  /// The store key of the named object.
  std::string key() const;
  /// Error subject for the named object (or `name`).
  ErrorSubject subject(std::string_view name) const;
  ErrorSubject subject() const { return subject(info.name); }
  /// The fieldManager of a write: the query parameter, else the User-Agent's product.
  std::string field_manager() const;
  /// True when dryRun=All was asked.
  bool dry_run() const;
};

/// Handlers keep the request alive across the commit pipeline (answers are sent once
/// the write is durable).
using RequestPtr = std::shared_ptr<ResourceRequest>;

/// `299 - "text"` Warning headers.
http::Headers warning_headers(const std::vector<std::string>& warnings);

/// Sends an error as a Status (in YAML when the client asked for YAML).
void respond_error(Responder& responder, const ApiError& error, Representation rep = Representation::Json);
/// Sends a JSON document in the negotiated representation.
void respond_value(const ResourceRequest& r, int status, const json::value& body,
                   const std::vector<std::string>& warnings = {});
/// Sends a stored object as the view presents it (its serialization itself when it can,
/// shared with the answer rather than copied).
void respond_object(const ResourceRequest& r, int status, const ObjectPtr& object,
                    const std::vector<std::string>& warnings = {});

}  // namespace kueuepp::kube::server

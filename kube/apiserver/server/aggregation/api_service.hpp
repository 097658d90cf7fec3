#pragma once

// One stored APIService read into what the aggregator routes and probes with. The object
// was defaulted and validated when stored (strategy/api_service_strategy.cpp).

#include <optional>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

struct ApiServiceSpec {
  std::string name;  ///< <version>.<group>
  std::string group;
  std::string version;
  /// No service: the group is this server's own.
  bool local = true;
  std::string service_namespace;
  std::string service_name;
  int service_port = 443;
  std::string ca_pem;  ///< caBundle decoded
  bool insecure_skip_verify = false;
  int group_priority_minimum = 0;
  int version_priority = 0;

  bool operator==(const ApiServiceSpec&) const = default;
  /// <service>.<namespace>.svc: the name the backend's certificate must hold.
  std::string server_name() const { return service_name + "." + service_namespace + ".svc"; }
};

ApiServiceSpec read_api_service(const json::value& doc);

/// Whether the object's Available condition is True.
bool api_service_available(const json::value& doc);

/// The object with its Available condition set (lastTransitionTime `now` when the status
/// changes, kept otherwise); nullopt when it already says exactly that.
std::optional<json::value> with_available_condition(const json::value& doc, std::string_view status,
                                                    std::string_view reason, std::string_view message,
                                                    std::string_view now);

}  // namespace kueuepp::kube::server

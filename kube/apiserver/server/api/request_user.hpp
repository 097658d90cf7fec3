#pragma once

// Who made a request, as admission webhooks (AdmissionReview userInfo) and aggregated API
// servers (the front proxy's X-Remote-* headers) are told it: the authenticated (or
// impersonated) user of the request.

#include <map>
#include <string>
#include <vector>

namespace kueuepp::kube::server {

struct RequestUser {
  std::string name;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
  std::string uid;
};

}  // namespace kueuepp::kube::server

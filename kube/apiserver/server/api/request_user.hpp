#pragma once

// Who made a request, as an aggregated API server is told it (the front proxy's
// X-Remote-User, X-Remote-Group and X-Remote-Extra-* headers): the authenticated (or
// impersonated) user of the request.

#include <map>
#include <string>
#include <vector>

namespace kueuepp::kube::server {

struct RequestUser {
  std::string name;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

}  // namespace kueuepp::kube::server

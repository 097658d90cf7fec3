#pragma once

// Who made a request, as kube-apiserver's authenticators name users (user.Info): what
// admission reviews and aggregated API servers are told. Every authenticated request is
// the one identity the bearer token stands for today (admission/admission_review.cpp
// sends the same); an authenticator that tells users apart replaces request_user().

#include <map>
#include <string>
#include <vector>

#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

struct RequestUser {
  std::string name;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

/// The user `request` was authenticated as.
RequestUser request_user(const HttpRequest& request);

}  // namespace kueuepp::kube::server

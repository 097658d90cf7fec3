#pragma once

// Who is asking: the user an authenticator found for a request, as kube-apiserver's
// user.Info (name, uid, groups).

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::kube::server::auth {

inline constexpr std::string_view kMastersGroup = "system:masters";
inline constexpr std::string_view kAuthenticatedGroup = "system:authenticated";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;

  bool in_group(std::string_view group) const {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
  }
  /// system:masters may do anything, whatever RBAC says (kube-apiserver's
  /// privileged-group authorizer runs before RBAC).
  bool is_master() const { return in_group(kMastersGroup); }
};

}  // namespace kueuepp::kube::server::auth

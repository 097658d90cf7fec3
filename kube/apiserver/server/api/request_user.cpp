#include "kube/apiserver/server/api/request_user.hpp"

namespace kueuepp::kube::server {

RequestUser request_user(const HttpRequest&) { return {"kueuepp", {"system:masters", "system:authenticated"}, {}}; }

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

std::string_view HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return {};
}

}  // namespace kueuepp::kube::server

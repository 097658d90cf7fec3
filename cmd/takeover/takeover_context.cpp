#include "cmd/takeover/takeover_context.hpp"

namespace kueuepp::cmd::takeover {

const kube::client::ResourceDescriptor kDeployment{"apps", "v1", "deployments", "Deployment", true};

kube::client::ResourceDescriptor kueue_resource(const kube::takeover::KueueKind& kind, std::string_view version) {
  return {"kueue.x-k8s.io", version == "v1beta1" ? "v1beta1" : "v1beta2", kind.plural, kind.kind, kind.namespaced};
}

Error api_failure(std::string_view what, const kube::client::ApiError& error) {
  return Error{std::string(what) + ": " + error.describe()};
}

}  // namespace kueuepp::cmd::takeover

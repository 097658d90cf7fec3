#include "kube/apiserver/server/registry/resource_type.hpp"

#include <algorithm>
#include <charconv>

namespace kueuepp::kube::server {

bool ResourceType::has_verb(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

std::vector<std::string> builtin_verbs(bool deletecollection) {
  if (deletecollection) {
    return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  }
  return {"create", "delete", "get", "list", "patch", "update", "watch"};
}

std::vector<std::string> custom_resource_verbs() {
  return {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
}

namespace {

/// A parsed "v<major>[(alpha|beta)<minor>]"; stability 3 = GA, 2 = beta, 1 = alpha,
/// 0 = not a Kubernetes version.
struct KubeVersion {
  int stability = 0;
  int major = 0;
  int minor = 0;
};

KubeVersion parse_version(std::string_view v) {
  KubeVersion out;
  if (v.size() < 2 || v[0] != 'v') return out;
  const char* p = v.data() + 1;
  const char* end = v.data() + v.size();
  auto [q, ec] = std::from_chars(p, end, out.major);
  if (ec != std::errc() || out.major <= 0) return {};
  std::string_view rest(q, static_cast<std::size_t>(end - q));
  if (rest.empty()) {
    out.stability = 3;
    return out;
  }
  std::string_view tag;
  if (rest.substr(0, 4) == "beta") {
    out.stability = 2;
    tag = rest.substr(4);
  } else if (rest.substr(0, 5) == "alpha") {
    out.stability = 1;
    tag = rest.substr(5);
  } else {
    return {};
  }
  auto [r, ec2] = std::from_chars(tag.data(), tag.data() + tag.size(), out.minor);
  if (ec2 != std::errc() || r != tag.data() + tag.size()) return {};
  return out;
}

}  // namespace

bool version_preferred(std::string_view a, std::string_view b) {
  KubeVersion va = parse_version(a);
  KubeVersion vb = parse_version(b);
  if (va.stability != vb.stability) return va.stability > vb.stability;
  if (va.stability == 0) return a < b;
  if (va.major != vb.major) return va.major > vb.major;
  return va.minor > vb.minor;
}

}  // namespace kueuepp::kube::server

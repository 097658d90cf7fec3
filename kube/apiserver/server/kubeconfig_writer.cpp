#include "kube/apiserver/server/kubeconfig_writer.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <sys/stat.h>

#include "core/base64.hpp"

namespace kueuepp::kube::server {

std::string render_kubeconfig(const KubeconfigContent& c) {
  std::string cluster = fmt::format("    server: {}\n", c.server);
  if (!c.ca_pem.empty()) cluster += fmt::format("    certificate-authority-data: {}\n", core::base64_encode(c.ca_pem));
  std::string user = c.bearer_token.empty() ? "  user: {}\n" : fmt::format("  user:\n    token: {}\n", c.bearer_token);
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: kueuepp\n"
      "  cluster:\n"
      "{}"
      "contexts:\n"
      "- name: kueuepp\n"
      "  context:\n"
      "    cluster: kueuepp\n"
      "    user: kueuepp\n"
      "    namespace: default\n"
      "current-context: kueuepp\n"
      "preferences: {{}}\n"
      "users:\n"
      "- name: kueuepp\n"
      "{}",
      cluster, user);
}

Status write_kubeconfig_file(const std::string& path, const KubeconfigContent& content) {
  namespace fs = std::filesystem;
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(fmt::format("cannot write kubeconfig {}: {}", tmp, std::strerror(errno)));
    out << render_kubeconfig(content);
    if (!out) return fail(fmt::format("cannot write kubeconfig {}: {}", tmp, std::strerror(errno)));
  }
  ::chmod(tmp.c_str(), 0600);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return fail(fmt::format("cannot write kubeconfig {}: {}", path, ec.message()));
  return {};
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/service_account_keys.hpp"

#include <fcntl.h>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/persist/files.hpp"

namespace kueuepp::kube::server {

namespace {

Expected<auth::JwsKey> signing_key_of(const std::string& path) {
  auto keys = auth::JwsKey::from_file(path);
  if (!keys) return unexpected(keys.error());
  for (auto& key : *keys) {
    if (key.can_sign()) return std::move(key);
  }
  return fail(path + ": holds no private key; --service-account-signing-key-file needs one (PEM)");
}

/// Written whole under a temporary name, then renamed: a crash leaves the old key or the
/// new one, never half of one.
Status write_private_file(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(fmt::format("cannot write {}: {}", temp, std::strerror(errno)));
  Status written = write_all(fd, content, temp);
  bool synced = written && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) return written;
  if (!synced) return fail(fmt::format("cannot sync {}: {}", temp, std::strerror(errno)));
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) return fail(fmt::format("cannot rename {} to {}: {}", temp, path, ec.message()));
  return sync_directory(std::filesystem::path(path).parent_path().string());
}

/// The data directory's key, made and kept there when missing.
Expected<auth::JwsKey> data_dir_key(const std::string& data_dir) {
  std::string dir = data_dir + "/pki";
  std::string path = dir + "/service-account.key";
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return signing_key_of(path);
  auto key = auth::JwsKey::generate();
  if (!key) return key;
  auto pem = key->private_pem();
  if (!pem) return unexpected(pem.error());
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(fmt::format("cannot create {}: {}", dir, ec.message()));
  if (auto st = write_private_file(path, *pem); !st) return unexpected(st.error());
  spdlog::info("made the ServiceAccount token signing key {}", path);
  return key;
}

}  // namespace

Expected<ServiceAccountKeys> load_service_account_keys(const std::string& signing_key_file,
                                                       const std::vector<std::string>& key_files,
                                                       const std::string& data_dir) {
  Expected<auth::JwsKey> signing = !signing_key_file.empty() ? signing_key_of(signing_key_file)
                                   : !data_dir.empty()       ? data_dir_key(data_dir)
                                                             : auth::JwsKey::generate();
  if (!signing) return unexpected(signing.error());
  ServiceAccountKeys keys{std::move(*signing), {}};
  for (const auto& file : key_files) {
    auto more = auth::JwsKey::from_file(file);
    if (!more) return unexpected(more.error());
    for (auto& key : *more) keys.verification_keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace kueuepp::kube::server

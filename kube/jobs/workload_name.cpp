#include "kube/jobs/workload_name.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace kueuepp::kube::jobs {

namespace {

std::string sha1_hex(std::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * SHA_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 0xf]);
  }
  return hex;
}

}  // namespace

std::string workload_name_for_owner(const OwnerIdentity& owner, std::size_t max_length, std::string_view extra) {
  // Room for "-" and the hash; Go truncates bytes, and so do we.
  const std::size_t max_prefix = max_length - 1 - kWorkloadNameHashLength;
  std::string prefix(owner.kind);
  std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  prefix += '-';
  prefix += owner.name;
  if (prefix.size() > max_prefix) prefix.resize(max_prefix);

  std::string hashed;
  hashed.reserve(owner.kind.size() + owner.group.size() + owner.name.size() + owner.uid.size() + extra.size() + 4);
  hashed.append(owner.kind).append("\n").append(owner.group).append("\n");
  hashed.append(owner.name).append("\n").append(owner.uid);
  if (!extra.empty()) hashed.append("\n").append(extra);
  return prefix + "-" + sha1_hex(hashed).substr(0, kWorkloadNameHashLength);
}

std::string workload_name_for_job(std::string_view job_name, std::string_view job_uid, std::size_t max_length) {
  return workload_name_for_owner(OwnerIdentity{job_name, job_uid, "batch", "Job"}, max_length);
}

}  // namespace kueuepp::kube::jobs

#include "kube/client/detail/files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kueuepp::kube::client::detail {

Expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read \"" + path + "\": " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return fail("cannot read \"" + path + "\": read error");
  return content.str();
}

}  // namespace kueuepp::kube::client::detail

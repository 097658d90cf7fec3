#include <cstdio>

#include "cmd/commands.hpp"

namespace kueuepp::cmd {

int run_apiserver(Args) {
  std::fprintf(stderr, "kueuepp apiserver: not available in this build yet\n");
  return 2;
}

}  // namespace kueuepp::cmd

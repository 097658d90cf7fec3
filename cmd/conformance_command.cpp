#include <cstdio>

#include "cmd/commands.hpp"

namespace kueuepp::cmd {

int run_conformance(Args) {
  std::fprintf(stderr, "kueuepp conformance: not available in this build yet\n");
  return 2;
}

}  // namespace kueuepp::cmd

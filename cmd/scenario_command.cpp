#include <cstdio>

#include "cmd/commands.hpp"

namespace kueuepp::cmd {

int run_scenario(Args) {
  std::fprintf(stderr, "kueuepp scenario: not available in this build yet\n");
  return 2;
}

}  // namespace kueuepp::cmd

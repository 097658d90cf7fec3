#pragma once

// The checkout's files, for tests that read what the repository ships (deploy/, the
// CRDs, the sample configuration). kueuepp_add_test defines KUEUEPP_SOURCE_DIR and
// ctest sets the variable of that name; the variable wins, so that a test binary run by
// hand from another checkout reads that checkout.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kueuepp::test_support {

inline std::string source_dir() {
  if (const char* env = std::getenv("KUEUEPP_SOURCE_DIR"); env != nullptr && *env != '\0') return env;
  return KUEUEPP_SOURCE_DIR;
}

/// The whole file, byte for byte; "" when it cannot be read (the test's checks then say
/// what is missing).
inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kueuepp::test_support

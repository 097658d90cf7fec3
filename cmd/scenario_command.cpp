// `kueuepp scenario FILE|DIR...`: replays admission scenarios and reports PASS/FAIL.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/commands.hpp"
#include "cmd/scenario/scenario_runner.hpp"

namespace kueuepp::cmd {
namespace {

namespace fs = std::filesystem;

bool is_scenario_file(const fs::path& p) {
  auto ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

int run_scenario(Args args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fprintf(args.empty() ? stderr : stdout,
                 "usage: kueuepp scenario FILE|DIR...\n\n"
                 "Replays admission scenarios (Kueue objects plus Expect/Finish/Delete documents)\n"
                 "through the admission engine. Prints PASS or FAIL per file, then a summary;\n"
                 "exits 1 when a scenario fails or cannot be read.\n");
    return args.empty() ? 2 : 0;
  }
  std::vector<fs::path> files;
  std::vector<std::string> unreadable;
  for (auto arg : args) {
    fs::path p{std::string(arg)};
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_regular_file() && is_scenario_file(it->path())) found.push_back(it->path());
      }
      if (ec) unreadable.push_back(p.string() + ": " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      unreadable.push_back(p.string() + ": no such file or directory");
    }
  }
  int passed = 0;
  int failed = 0;
  for (const auto& u : unreadable) {
    std::printf("FAIL %s\n", u.c_str());
    ++failed;
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::printf("FAIL %s: cannot open the file\n", f.string().c_str());
      ++failed;
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    scenario::Result r = scenario::run_scenario(f.string(), text.str());
    if (r.passed) {
      std::printf("PASS %s\n", f.string().c_str());
      ++passed;
    } else {
      std::printf("FAIL %s: %s\n", f.string().c_str(), r.failure.c_str());
      ++failed;
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  std::fflush(stdout);
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace kueuepp::cmd

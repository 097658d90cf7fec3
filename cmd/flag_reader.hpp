#pragma once

// How the kueuepp commands read their arguments: each flag in turn, and the value that
// follows a flag that takes one. What a flag means, and what its value may be, stays
// with its command.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cmd/commands.hpp"
#include "core/expected.hpp"

namespace kueuepp::cmd {

class FlagReader {
 public:
  explicit FlagReader(Args args) : args_(args) {}

  /// The next argument (a flag, or an operand), nullopt after the last.
  std::optional<std::string_view> next();

  /// Takes the argument after the flag just read into `into`; fails with "FLAG needs
  /// WHAT" (taking nothing) when that flag is the last argument.
  Status value(std::string& into, std::string_view what = "a value");

 private:
  Args args_;
  std::size_t next_ = 0;
  std::string_view flag_;
};

}  // namespace kueuepp::cmd

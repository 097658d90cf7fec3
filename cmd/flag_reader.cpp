#include "cmd/flag_reader.hpp"

namespace kueuepp::cmd {

std::optional<std::string_view> FlagReader::next() {
  if (next_ >= args_.size()) return std::nullopt;
  flag_ = args_[next_++];
  return flag_;
}

Status FlagReader::value(std::string& into, std::string_view what) {
  if (next_ >= args_.size()) return fail(std::string(flag_) + " needs " + std::string(what));
  into = std::string(args_[next_++]);
  return {};
}

}  // namespace kueuepp::cmd

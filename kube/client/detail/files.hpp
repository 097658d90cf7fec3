#pragma once

#include <string>

#include "core/expected.hpp"

namespace kueuepp::kube::client::detail {

/// The whole content of a file; the error names the file and the OS reason.
Expected<std::string> read_file(const std::string& path);

}  // namespace kueuepp::kube::client::detail

#pragma once

// CRC-32C (Castagnoli), the checksum of every write-ahead log and snapshot record.

#include <cstdint>
#include <string_view>

namespace kueuepp::kube::server {

std::uint32_t crc32c(std::string_view data);

}  // namespace kueuepp::kube::server

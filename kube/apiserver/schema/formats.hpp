#pragma once

// OpenAPI string formats as kube-apiserver checks them (go-openapi's strfmt registry,
// after apiextensions strips the formats it does not support, e.g. int32, int64, double).

#include <cstdint>
#include <string_view>

namespace kueuepp::kube::schema {

enum class Format : std::uint8_t {
  None,       ///< no format, or one kube-apiserver strips (int32, int64, float, ...)
  DateTime,   ///< RFC 3339 date-time, go-openapi's lenient IsDateTime
  Date,       ///< RFC 3339 full-date
  Byte,       ///< standard base64
  Uuid,
  Uuid3,
  Uuid4,
  Uuid5,
  Ipv4,
  Password,   ///< anything
  Unchecked,  ///< supported upstream (uri, email, hostname, ipv6, cidr, mac, duration, ...) but not checked here
};

/// The format kube-apiserver validates for a schema's `format`, `None` when stripped.
Format parse_format(std::string_view name);

/// Whether `s` is a valid value of `format` (always true for None/Password/Unchecked).
bool format_valid(Format format, std::string_view s);

}  // namespace kueuepp::kube::schema

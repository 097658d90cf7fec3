#pragma once

// Base64 (RFC 4648), the one implementation in kueuepp, in the dialects Kubernetes uses:
// the standard alphabet with padding (Go's base64.StdEncoding: []byte fields such as
// Secret data and kubeconfig certificates), the URL alphabet without padding
// (base64.RawURLEncoding: list continue tokens), and a forgiving reader for kubeconfig
// `*-data` fields. Trailing bits of a final quantum are not checked (as Go does not).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::core {

/// Standard alphabet, padded with '='.
std::string base64_encode(std::string_view data);

/// URL alphabet ('-', '_'), no padding.
std::string base64url_encode(std::string_view data);

/// Standard alphabet, padded, whole quanta of four ('=' only in the last two places of
/// the text). nullopt on anything else; `bad_at` receives the offset Go's decoder names
/// ("illegal base64 data at input byte N").
std::optional<std::string> base64_decode(std::string_view text, std::size_t* bad_at = nullptr);

/// Where base64_decode gives up on `text`, nullopt when it decodes (without decoding).
std::optional<std::size_t> base64_error_at(std::string_view text);

/// The byte count a text base64_decode accepts decodes to (without decoding).
std::size_t base64_decoded_size(std::string_view valid_text);

/// URL alphabet, no padding: nullopt on any character outside the alphabet or an
/// impossible length; `bad_at` receives the offset of the first offending byte.
std::optional<std::string> base64url_decode(std::string_view text, std::size_t* bad_at = nullptr);

/// Forgiving: either alphabet, padding optional, ASCII whitespace ignored. nullopt on
/// any other character, a character after padding, or an impossible length.
std::optional<std::string> base64_decode_lenient(std::string_view text);

}  // namespace kueuepp::core

#pragma once

// Decoding what the API server sends (response bodies, watch lines) with simdjson into
// Boost.JSON documents. One decoder for all server input: simdjson rejects numbers
// that do not fit a double (Boost.JSON would turn 1e400 into an infinity and later
// serialize it as the invalid `Infinity`, corrupting an update).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

/// simdjson reads this many bytes past the end of its input (SIMDJSON_PADDING).
inline constexpr std::size_t kJsonPadding = 64;

/// What decoding leaves out.
struct DecodeOptions {
  /// Drop `managedFields` from every `metadata` object: field ownership is bookkeeping
  /// for server-side apply that a controller caching objects never reads, and it is a
  /// large part of every object (Kueue strips it from its informer cache too).
  bool strip_managed_fields = false;
  /// Keep only `apiVersion`, `kind` and `metadata` of the top-level object: for a write
  /// whose caller reads nothing else of the answer (its new resourceVersion). The rest is
  /// still checked to be JSON, but not converted (the conversion is the cost).
  bool metadata_only = false;
  /// For watch lines of kinds a cache keeps packed: the top-level member `object` (unless
  /// the line's `type` is ERROR or BOOKMARK) is converted with only `apiVersion`, `kind`
  /// and `metadata`, and written whole as compact JSON text (managedFields left out as
  /// above), which packed_text() returns. The rest of the object is read from that text
  /// in place (json::JsonText) instead of being built as a document.
  bool pack_object_member = false;
  /// The body is not read at all: a successful answer decodes to `{}` (for writes whose
  /// caller reads nothing of the answer; an error answer is still decoded for its Status).
  bool unread = false;
};

/// Keeps one simdjson parser (and its buffers) across calls. Not thread-safe.
class JsonDecoder {
 public:
  JsonDecoder();
  ~JsonDecoder();
  JsonDecoder(JsonDecoder&&) noexcept;
  JsonDecoder& operator=(JsonDecoder&&) noexcept;

  /// `text` must be followed by kJsonPadding readable bytes.
  Expected<json::value> decode_padded(std::string_view text, DecodeOptions options = {});
  /// Pads `text` in place (temporarily) instead of copying it.
  Expected<json::value> decode(std::string& text, DecodeOptions options = {});

  /// With DecodeOptions::pack_object_member: the compact text of the last decode's
  /// `object` member, valid until the next decode; empty when that decode packed none.
  std::string_view packed_text() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// decode_padded / decode with a per-thread decoder.
Expected<json::value> parse_json_padded(std::string_view text, DecodeOptions options = {});
Expected<json::value> parse_json_in_place(std::string& text, DecodeOptions options = {});

}  // namespace kueuepp::kube::client

#pragma once

// Watch events: `{"type": "ADDED|MODIFIED|DELETED|BOOKMARK|ERROR", "object": {...}}`,
// one per line of a watch body, decoded with simdjson into Boost.JSON documents.

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "core/expected.hpp"
#include "kube/client/api_error.hpp"
#include "kube/client/json_decode.hpp"
#include "kube/client/line_splitter.hpp"
#include "kube/client/packed_object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

std::string_view to_string(WatchEventType type);

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  /// The object (a Status for ERROR; only metadata.resourceVersion for BOOKMARK). With
  /// DecodeOptions::pack_object_member, only its apiVersion, kind and metadata: the
  /// whole is `packed`.
  json::value object;
  /// The whole object as compact text, when the decoder packed it; else null.
  std::shared_ptr<const PackedObject> packed;

  /// metadata.resourceVersion of the object ("" when absent).
  std::string_view resource_version() const;
  /// For ERROR events: the decoded Status (410 Expired → is_gone()).
  ApiError status_error(std::string operation = {}) const;
};

/// Decodes single lines; keeps one simdjson parser (and its buffers) across calls.
/// Not thread-safe; use one per stream.
class WatchEventDecoder {
 public:
  explicit WatchEventDecoder(DecodeOptions options = {});
  ~WatchEventDecoder();
  WatchEventDecoder(WatchEventDecoder&&) noexcept;
  WatchEventDecoder& operator=(WatchEventDecoder&&) noexcept;

  /// `line` must be followed by at least LineSplitter::kPadding readable bytes (the
  /// lines LineSplitter hands out are).
  Expected<WatchEvent> decode_padded(std::string_view line);
  /// Any line: copied into a padded buffer first.
  Expected<WatchEvent> decode(std::string_view line);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Chunks in, events out: LineSplitter + WatchEventDecoder.
class WatchStreamDecoder {
 public:
  /// Called once per line: the event, or why that line could not be decoded.
  using EventSink = std::function<void(Expected<WatchEvent>)>;

  explicit WatchStreamDecoder(std::size_t max_line_bytes = std::size_t{64} << 20, DecodeOptions options = {});

  /// Emits the events the chunk completes. A line longer than the limit is reported as
  /// one error and dropped.
  void feed(std::string_view chunk, const EventSink& sink);
  /// End of stream: decodes an unterminated last line, if any.
  void finish(const EventSink& sink);

 private:
  LineSplitter lines_;
  WatchEventDecoder decoder_;
};

}  // namespace kueuepp::kube::client

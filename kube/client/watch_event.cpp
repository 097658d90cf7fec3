#include "kube/client/watch_event.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace kueuepp::kube::client {

static_assert(LineSplitter::kPadding >= kJsonPadding, "LineSplitter must pad lines for simdjson");

namespace {

std::optional<WatchEventType> parse_type(std::string_view type) {
  if (type == "ADDED") return WatchEventType::Added;
  if (type == "MODIFIED") return WatchEventType::Modified;
  if (type == "DELETED") return WatchEventType::Deleted;
  if (type == "BOOKMARK") return WatchEventType::Bookmark;
  if (type == "ERROR") return WatchEventType::Error;
  return std::nullopt;
}

std::string excerpt(std::string_view line) {
  return std::string(line.substr(0, 120)) + (line.size() > 120 ? "..." : "");
}

}  // namespace

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    case WatchEventType::Bookmark: return "BOOKMARK";
    case WatchEventType::Error: return "ERROR";
  }
  return "UNKNOWN";
}

std::string_view WatchEvent::resource_version() const {
  const json::value* metadata = json::find(object, "metadata");
  return metadata ? json::get_string(*metadata, "resourceVersion") : std::string_view{};
}

ApiError WatchEvent::status_error(std::string operation) const {
  return decode_status_object(object, std::move(operation));
}

struct WatchEventDecoder::State {
  JsonDecoder json;
  DecodeOptions options;
  std::vector<char> copy;  // padded copy for decode()
};

WatchEventDecoder::WatchEventDecoder(DecodeOptions options) : state_(std::make_unique<State>()) {
  state_->options = options;
}
WatchEventDecoder::~WatchEventDecoder() = default;
WatchEventDecoder::WatchEventDecoder(WatchEventDecoder&&) noexcept = default;
WatchEventDecoder& WatchEventDecoder::operator=(WatchEventDecoder&&) noexcept = default;

Expected<WatchEvent> WatchEventDecoder::decode_padded(std::string_view line) {
  auto doc = state_->json.decode_padded(line, state_->options);
  if (!doc) {
    return fail("watch event is not JSON (" + doc.error().message + "): " + excerpt(line));
  }
  json::object* obj = doc->if_object();
  if (obj == nullptr) return fail("watch event is not a JSON object: " + excerpt(line));
  const json::value* type_value = obj->if_contains("type");
  if (type_value == nullptr || !type_value->is_string()) {
    return fail("watch event has no \"type\": " + excerpt(line));
  }
  const auto type = parse_type(type_value->get_string());
  if (!type) {
    return fail("watch event has an unknown type \"" + std::string(type_value->get_string()) +
                "\"");
  }
  json::value* object = obj->if_contains("object");
  if (object == nullptr || !object->is_object()) {
    return fail("watch event " + std::string(to_string(*type)) + " has no object");
  }
  WatchEvent event{*type, std::move(*object), nullptr};
  if (const std::string_view text = state_->json.packed_text(); !text.empty()) {
    event.packed = std::make_shared<const PackedObject>(PackedObject::from_text(text));
  }
  return event;
}

Expected<WatchEvent> WatchEventDecoder::decode(std::string_view line) {
  std::vector<char>& copy = state_->copy;
  copy.assign(line.size() + LineSplitter::kPadding, '\0');
  if (!line.empty()) std::memcpy(copy.data(), line.data(), line.size());
  return decode_padded(std::string_view(copy.data(), line.size()));
}

WatchStreamDecoder::WatchStreamDecoder(std::size_t max_line_bytes, DecodeOptions options)
    : lines_(max_line_bytes), decoder_(options) {}

void WatchStreamDecoder::feed(std::string_view chunk, const EventSink& sink) {
  Status s = lines_.feed(chunk, [&](std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    sink(decoder_.decode_padded(line));
  });
  if (!s) sink(unexpected(s.error()));
}

void WatchStreamDecoder::finish(const EventSink& sink) {
  lines_.finish([&](std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    sink(decoder_.decode_padded(line));
  });
}

}  // namespace kueuepp::kube::client

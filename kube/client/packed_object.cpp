#include "kube/client/packed_object.hpp"

#include <boost/json/serializer.hpp>

#include <cstring>
#include <string>

#include "kube/client/json_decode.hpp"

namespace kueuepp::kube::client {

PackedObject PackedObject::pack(const Object& object) {
  // Serialized into a reused per-thread buffer, then copied once into an exact allocation.
  thread_local std::string buffer(4096, '\0');
  boost::json::serializer serializer;
  serializer.reset(&object.json());
  std::size_t used = 0;
  while (!serializer.done()) {
    if (used == buffer.size()) buffer.resize(buffer.size() * 2);
    used += serializer.read(buffer.data() + used, buffer.size() - used).size();
  }
  auto text = std::make_unique_for_overwrite<char[]>(used);
  std::memcpy(text.get(), buffer.data(), used);
  return PackedObject(std::move(text), used);
}

PackedObject PackedObject::from_text(std::string_view text) {
  auto copy = std::make_unique_for_overwrite<char[]>(text.size());
  if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
  return PackedObject(std::move(copy), text.size());
}

Expected<Object> PackedObject::unpack() const {
  // simdjson reads past the end of its input: parse from a padded per-thread copy.
  thread_local std::string padded;
  padded.assign(text());
  padded.append(kJsonPadding, '\0');
  auto doc = parse_json_padded(std::string_view(padded.data(), size_));
  if (!doc) return fail("packed object does not parse (" + doc.error().message + ")");
  return Object::from_json(std::move(*doc));
}

}  // namespace kueuepp::kube::client

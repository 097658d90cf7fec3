#include "kube/client/json_decode.hpp"

#include <simdjson.h>

namespace kueuepp::kube::client {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "padding too small for simdjson");

namespace {

// `in_metadata`: `element` is a `metadata` object whose managedFields are left out.
json::value to_boost(simdjson::dom::element element, const DecodeOptions& options, bool in_metadata = false) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::ARRAY: {
      json::array out;
      // Keep the array in a local: iterating the temporary result would dangle.
      const simdjson::dom::array array = element.get_array().value_unsafe();
      out.reserve(array.size());
      for (simdjson::dom::element child : array) out.push_back(to_boost(child, options));
      return out;
    }
    case element_type::OBJECT: {
      const simdjson::dom::object object = element.get_object().value_unsafe();
      // Sized once: growing by insertion rehashes into tables up to twice the size
      // needed, and the watch caches keep every decoded object for its lifetime (this
      // was most of the controller's heap).
      json::object out(object.size());
      for (simdjson::dom::key_value_pair field : object) {
        if (in_metadata && field.key == "managedFields") continue;
        const bool metadata = options.strip_managed_fields && field.key == "metadata";
        out[field.key] = to_boost(field.value, options, metadata);  // duplicate keys: the last wins, like Go
      }
      return out;
    }
    case element_type::INT64: return element.get_int64().value_unsafe();
    case element_type::UINT64: return element.get_uint64().value_unsafe();
    case element_type::DOUBLE: return element.get_double().value_unsafe();
    case element_type::STRING: return json::string(element.get_string().value_unsafe());
    case element_type::BOOL: return element.get_bool().value_unsafe();
    case element_type::NULL_VALUE: return nullptr;
  }
  return nullptr;
}

}  // namespace

struct JsonDecoder::State {
  simdjson::dom::parser parser;
};

JsonDecoder::JsonDecoder() : state_(std::make_unique<State>()) {}
JsonDecoder::~JsonDecoder() = default;
JsonDecoder::JsonDecoder(JsonDecoder&&) noexcept = default;
JsonDecoder& JsonDecoder::operator=(JsonDecoder&&) noexcept = default;

Expected<json::value> JsonDecoder::decode_padded(std::string_view text, DecodeOptions options) {
  simdjson::dom::element root;
  const auto error = state_->parser.parse(text.data(), text.size(), false).get(root);
  if (error) return fail(std::string("invalid JSON: ") + simdjson::error_message(error));
  if (options.metadata_only && root.type() == simdjson::dom::element_type::OBJECT) {
    json::object out;
    const simdjson::dom::object object = root.get_object().value_unsafe();  // a local: see to_boost
    for (simdjson::dom::key_value_pair field : object) {
      if (field.key == "apiVersion" || field.key == "kind" || field.key == "metadata") {
        out[field.key] = to_boost(field.value, options, options.strip_managed_fields && field.key == "metadata");
      }
    }
    return out;
  }
  return to_boost(root, options);
}

Expected<json::value> JsonDecoder::decode(std::string& text, DecodeOptions options) {
  const std::size_t size = text.size();
  text.append(kJsonPadding, '\0');  // amortized: no copy of the body
  auto result = decode_padded(std::string_view(text.data(), size), options);
  text.resize(size);
  return result;
}

Expected<json::value> parse_json_padded(std::string_view text, DecodeOptions options) {
  thread_local JsonDecoder decoder;
  return decoder.decode_padded(text, options);
}

Expected<json::value> parse_json_in_place(std::string& text, DecodeOptions options) {
  thread_local JsonDecoder decoder;
  return decoder.decode(text, options);
}

}  // namespace kueuepp::kube::client

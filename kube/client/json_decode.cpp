#include "kube/client/json_decode.hpp"

#include <boost/json/value_stack.hpp>
#include <simdjson.h>

namespace kueuepp::kube::client {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "padding too small for simdjson");

namespace {

// Pushes `element` onto `stack` (Boost.JSON's own parser builds its documents this way:
// an object is allocated once at its final size, with its members moved in, instead of
// growing by lookups and assignments, which was most of the decoding time).
// `in_metadata`: `element` is a `metadata` object whose managedFields are left out.
void push(simdjson::dom::element element, boost::json::value_stack& stack, const DecodeOptions& options,
          bool in_metadata = false) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::ARRAY: {
      // Keep the array in a local: iterating the temporary result would dangle.
      const simdjson::dom::array array = element.get_array().value_unsafe();
      std::size_t n = 0;
      for (simdjson::dom::element child : array) {
        push(child, stack, options);
        ++n;
      }
      stack.push_array(n);
      return;
    }
    case element_type::OBJECT: {
      const simdjson::dom::object object = element.get_object().value_unsafe();
      std::size_t n = 0;
      for (simdjson::dom::key_value_pair field : object) {
        if (in_metadata && field.key == "managedFields") continue;
        stack.push_key(field.key);
        push(field.value, stack, options, options.strip_managed_fields && field.key == "metadata");
        ++n;
      }
      // Duplicate keys: the last value wins, in the first one's place, like Go.
      stack.push_object(n);
      return;
    }
    case element_type::INT64: stack.push_int64(element.get_int64().value_unsafe()); return;
    case element_type::UINT64: stack.push_uint64(element.get_uint64().value_unsafe()); return;
    case element_type::DOUBLE: stack.push_double(element.get_double().value_unsafe()); return;
    case element_type::STRING: stack.push_string(element.get_string().value_unsafe()); return;
    case element_type::BOOL: stack.push_bool(element.get_bool().value_unsafe()); return;
    case element_type::NULL_VALUE: stack.push_null(); return;
  }
  stack.push_null();
}

}  // namespace

struct JsonDecoder::State {
  simdjson::dom::parser parser;
  boost::json::value_stack stack;  ///< reused: its scratch space stays allocated
};

JsonDecoder::JsonDecoder() : state_(std::make_unique<State>()) {}
JsonDecoder::~JsonDecoder() = default;
JsonDecoder::JsonDecoder(JsonDecoder&&) noexcept = default;
JsonDecoder& JsonDecoder::operator=(JsonDecoder&&) noexcept = default;

Expected<json::value> JsonDecoder::decode_padded(std::string_view text, DecodeOptions options) {
  simdjson::dom::element root;
  const auto error = state_->parser.parse(text.data(), text.size(), false).get(root);
  if (error) return fail(std::string("invalid JSON: ") + simdjson::error_message(error));
  boost::json::value_stack& stack = state_->stack;
  stack.reset();
  if (options.metadata_only && root.type() == simdjson::dom::element_type::OBJECT) {
    const simdjson::dom::object object = root.get_object().value_unsafe();  // a local: see push
    std::size_t n = 0;
    for (simdjson::dom::key_value_pair field : object) {
      if (field.key == "apiVersion" || field.key == "kind" || field.key == "metadata") {
        stack.push_key(field.key);
        push(field.value, stack, options, options.strip_managed_fields && field.key == "metadata");
        ++n;
      }
    }
    stack.push_object(n);
    return stack.release();
  }
  push(root, stack, options);
  return stack.release();
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

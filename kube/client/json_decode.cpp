#include "kube/client/json_decode.hpp"

#include <boost/json/value_stack.hpp>
#include <simdjson.h>

#include <charconv>

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

/// Pushes an object of only `apiVersion`, `kind` and `metadata`.
void push_metadata_only(const simdjson::dom::object& object, boost::json::value_stack& stack,
                        const DecodeOptions& options) {
  std::size_t n = 0;
  for (simdjson::dom::key_value_pair field : object) {
    if (field.key == "apiVersion" || field.key == "kind" || field.key == "metadata") {
      stack.push_key(field.key);
      push(field.value, stack, options, options.strip_managed_fields && field.key == "metadata");
      ++n;
    }
  }
  stack.push_object(n);
}

template <class Number>
void append_number(std::string& out, Number n) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, ec == std::errc() ? end : buf);
}

/// Compact JSON for `element`, as push() would convert it (managedFields left out of
/// `metadata` objects when stripping). Numbers keep their type: a double is always
/// written with a fraction or exponent, so it reads back as a double.
void append_compact(std::string& out, simdjson::dom::element element, const DecodeOptions& options,
                    bool in_metadata = false) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::ARRAY: {
      const simdjson::dom::array array = element.get_array().value_unsafe();
      out += '[';
      bool first = true;
      for (simdjson::dom::element child : array) {
        if (!first) out += ',';
        first = false;
        append_compact(out, child, options);
      }
      out += ']';
      return;
    }
    case element_type::OBJECT: {
      const simdjson::dom::object object = element.get_object().value_unsafe();
      out += '{';
      bool first = true;
      for (simdjson::dom::key_value_pair field : object) {
        if (in_metadata && field.key == "managedFields") continue;
        if (!first) out += ',';
        first = false;
        json::append_quoted(out, field.key);
        out += ':';
        append_compact(out, field.value, options, options.strip_managed_fields && field.key == "metadata");
      }
      out += '}';
      return;
    }
    case element_type::INT64: append_number(out, element.get_int64().value_unsafe()); return;
    case element_type::UINT64: append_number(out, element.get_uint64().value_unsafe()); return;
    case element_type::DOUBLE: {
      const std::size_t start = out.size();
      append_number(out, element.get_double().value_unsafe());
      if (out.find_first_of(".eE", start) == std::string::npos) out += ".0";
      return;
    }
    case element_type::STRING: json::append_quoted(out, element.get_string().value_unsafe()); return;
    case element_type::BOOL: out += element.get_bool().value_unsafe() ? "true" : "false"; return;
    case element_type::NULL_VALUE: out += "null"; return;
  }
  out += "null";
}

/// A watch line's type, when it has one that is a string.
std::string_view line_type(const simdjson::dom::object& line) {
  simdjson::dom::element type;
  std::string_view out;
  if (line.at_key("type").get(type) || type.get_string().get(out)) return {};
  return out;
}

}  // namespace

struct JsonDecoder::State {
  simdjson::dom::parser parser;
  boost::json::value_stack stack;  ///< reused: its scratch space stays allocated
  std::string packed;              ///< the last decode's packed `object` member; reused
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
  state_->packed.clear();
  if (options.metadata_only && root.type() == simdjson::dom::element_type::OBJECT) {
    push_metadata_only(root.get_object().value_unsafe(), stack, options);  // a local: see push
    return stack.release();
  }
  if (options.pack_object_member && root.type() == simdjson::dom::element_type::OBJECT) {
    const simdjson::dom::object line = root.get_object().value_unsafe();
    const std::string_view type = line_type(line);
    const bool pack = type != "ERROR" && type != "BOOKMARK";
    std::size_t n = 0;
    for (simdjson::dom::key_value_pair field : line) {
      stack.push_key(field.key);
      if (pack && field.key == "object" && field.value.type() == simdjson::dom::element_type::OBJECT) {
        state_->packed.clear();
        append_compact(state_->packed, field.value, options);
        push_metadata_only(field.value.get_object().value_unsafe(), stack, options);
      } else {
        push(field.value, stack, options, options.strip_managed_fields && field.key == "metadata");
      }
      ++n;
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

std::string_view JsonDecoder::packed_text() const { return state_->packed; }

Expected<json::value> parse_json_padded(std::string_view text, DecodeOptions options) {
  thread_local JsonDecoder decoder;
  return decoder.decode_padded(text, options);
}

Expected<json::value> parse_json_in_place(std::string& text, DecodeOptions options) {
  thread_local JsonDecoder decoder;
  return decoder.decode(text, options);
}

}  // namespace kueuepp::kube::client

#include "kube/json/json_node.hpp"

#include <simdjson.h>

#include <cstring>
#include <string>
#include <type_traits>

namespace kueuepp::json {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

static_assert(std::is_trivially_copyable_v<element>, "JsonNode keeps simdjson elements as bytes");
static_assert(sizeof(element) == 16, "JsonNode's simd_ holds exactly one simdjson element");
static_assert(sizeof(JsonNode) <= 32, "a node is copied by value (json_node.hpp)");

element simd_of(const unsigned char* bytes) {
  element e;
  std::memcpy(static_cast<void*>(&e), bytes, sizeof e);
  return e;
}

NodeType type_of(const value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return NodeType::Null;
    case boost::json::kind::bool_: return NodeType::Bool;
    case boost::json::kind::int64: return NodeType::Int64;
    case boost::json::kind::uint64: return NodeType::Uint64;
    case boost::json::kind::double_: return NodeType::Double;
    case boost::json::kind::string: return NodeType::String;
    case boost::json::kind::array: return NodeType::Array;
    case boost::json::kind::object: return NodeType::Object;
  }
  return NodeType::Null;
}

NodeType type_of(element e) {
  switch (e.type()) {
    case element_type::NULL_VALUE: return NodeType::Null;
    case element_type::BOOL: return NodeType::Bool;
    case element_type::INT64: return NodeType::Int64;
    case element_type::UINT64: return NodeType::Uint64;
    case element_type::DOUBLE: return NodeType::Double;
    case element_type::STRING: return NodeType::String;
    case element_type::ARRAY: return NodeType::Array;
    case element_type::OBJECT: return NodeType::Object;
  }
  return NodeType::Null;
}

}  // namespace

/// A node for a simdjson element (the friend that may fill simd_).
class JsonNodeOf {
 public:
  static JsonNode simd(element e) {
    JsonNode n;
    n.backing_ = JsonNode::Backing::Simd;
    std::memcpy(n.simd_, static_cast<const void*>(&e), sizeof e);
    return n;
  }
};

NodeType JsonNode::type() const {
  switch (backing_) {
    case Backing::None: return NodeType::Null;
    case Backing::Boost: return type_of(*boost_);
    case Backing::Simd: return type_of(simd_of(simd_));
  }
  return NodeType::Null;
}

std::string_view JsonNode::get_string() const {
  if (backing_ == Backing::Boost && boost_->is_string()) {
    const auto& s = boost_->get_string();
    return {s.data(), s.size()};
  }
  if (backing_ == Backing::Simd) {
    std::string_view out;
    if (!simd_of(simd_).get_string().get(out)) return out;
  }
  return {};
}

std::int64_t JsonNode::get_int64() const {
  if (backing_ == Backing::Boost && boost_->is_int64()) return boost_->get_int64();
  if (backing_ == Backing::Simd) {
    std::int64_t out = 0;
    if (!simd_of(simd_).get_int64().get(out)) return out;
  }
  return 0;
}

std::uint64_t JsonNode::get_uint64() const {
  if (backing_ == Backing::Boost && boost_->is_uint64()) return boost_->get_uint64();
  if (backing_ == Backing::Simd) {
    std::uint64_t out = 0;
    if (!simd_of(simd_).get_uint64().get(out)) return out;
  }
  return 0;
}

double JsonNode::get_double() const {
  if (backing_ == Backing::Boost && boost_->is_double()) return boost_->get_double();
  if (backing_ == Backing::Simd) {
    const element e = simd_of(simd_);
    if (e.type() == element_type::DOUBLE) {
      double out = 0;
      if (!e.get_double().get(out)) return out;
    }
  }
  return 0;
}

bool JsonNode::get_bool() const {
  if (backing_ == Backing::Boost && boost_->is_bool()) return boost_->get_bool();
  if (backing_ == Backing::Simd) {
    bool out = false;
    if (!simd_of(simd_).get_bool().get(out)) return out;
  }
  return false;
}

JsonNode JsonNode::find(std::string_view key) const {
  if (backing_ == Backing::Boost) return JsonNode(json::find(*boost_, key));
  if (backing_ == Backing::Simd) {
    simdjson::dom::object object;
    if (simd_of(simd_).get_object().get(object)) return {};
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (it.key_equals(key)) return JsonNodeOf::simd(it.value());
    }
  }
  return {};
}

std::size_t JsonNode::size() const {
  if (backing_ == Backing::Boost) {
    if (boost_->is_array()) return boost_->get_array().size();
    if (boost_->is_object()) return boost_->get_object().size();
    return 0;
  }
  if (backing_ == Backing::Simd) {
    const element e = simd_of(simd_);
    simdjson::dom::array array;
    if (!e.get_array().get(array)) return array.size();
    simdjson::dom::object object;
    if (!e.get_object().get(object)) return object.size();
  }
  return 0;
}

void JsonNode::visit_elements(void* ctx, void (*fn)(void*, std::size_t, JsonNode)) const {
  if (backing_ == Backing::Boost && boost_->is_array()) {
    std::size_t i = 0;
    for (const value& v : boost_->get_array()) fn(ctx, i++, JsonNode(&v));
    return;
  }
  if (backing_ == Backing::Simd) {
    simdjson::dom::array array;
    if (simd_of(simd_).get_array().get(array)) return;
    std::size_t i = 0;
    for (element e : array) fn(ctx, i++, JsonNodeOf::simd(e));
  }
}

void JsonNode::visit_members(void* ctx, void (*fn)(void*, std::string_view, JsonNode)) const {
  if (backing_ == Backing::Boost && boost_->is_object()) {
    for (const auto& kv : boost_->get_object()) fn(ctx, kv.key(), JsonNode(&kv.value()));
    return;
  }
  if (backing_ == Backing::Simd) {
    simdjson::dom::object object;
    if (simd_of(simd_).get_object().get(object)) return;
    for (simdjson::dom::key_value_pair field : object) fn(ctx, field.key, JsonNodeOf::simd(field.value));
  }
}

struct JsonText::State {
  simdjson::dom::parser parser;
  std::string padded;  ///< the text and simdjson's padding; reused
};

JsonText::JsonText() : state_(std::make_unique<State>()) {}
JsonText::~JsonText() = default;

Expected<JsonNode> JsonText::parse(std::string_view text) {
  std::string& padded = state_->padded;
  padded.assign(text);
  padded.append(simdjson::SIMDJSON_PADDING, '\0');
  element root;
  const auto error = state_->parser.parse(padded.data(), text.size(), false).get(root);
  if (error) return fail(std::string("invalid JSON: ") + simdjson::error_message(error));
  return JsonNodeOf::simd(root);
}

}  // namespace kueuepp::json

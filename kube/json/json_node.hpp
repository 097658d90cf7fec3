#pragma once

// A read-only view of one JSON value, backed either by a Boost.JSON document or by a
// simdjson document (JsonText). The decoders in kube/objects read through it, so one
// decoder serves the documents the controller builds and edits (Boost.JSON) and compact
// text it only needs to read once (a packed Workload), which simdjson walks in place
// without building a tree of allocations first.
//
// A node does not own its document: it is valid as long as the Boost.JSON value, or the
// JsonText's last parse, it came from. A node is 32 bytes, copied by value.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::json {

enum class NodeType { Null, Bool, Int64, Uint64, Double, String, Array, Object };

class JsonNodeOf;

class JsonNode {
 public:
  /// Absent (no value at all: a missing member).
  JsonNode() = default;
  /// A Boost.JSON value; absent when `v` is null. Implicit: a decoder that takes nodes
  /// takes Boost.JSON pointers as before.
  JsonNode(const value* v) : backing_(v != nullptr ? Backing::Boost : Backing::None), boost_(v) {}  // NOLINT

  /// Present (possibly JSON null).
  explicit operator bool() const { return backing_ != Backing::None; }
  /// The value's type; Null for an absent node too.
  NodeType type() const;
  bool is_null() const { return type() == NodeType::Null; }
  bool is_object() const { return type() == NodeType::Object; }
  bool is_array() const { return type() == NodeType::Array; }
  bool is_string() const { return type() == NodeType::String; }

  // Typed reads: the caller checked the type (anything else is a bug; it reads as empty
  // or zero).
  std::string_view get_string() const;
  std::int64_t get_int64() const;
  std::uint64_t get_uint64() const;
  double get_double() const;
  bool get_bool() const;

  /// The member `key` of an object (the first, should a document repeat a key); absent
  /// when this is not an object or has no such member. JSON null is returned as a
  /// present Null node.
  JsonNode find(std::string_view key) const;
  /// Elements of an array or members of an object; 0 for anything else.
  std::size_t size() const;

  /// Calls f(index, element) for each element of an array, in order.
  template <class F>
  void for_each_element(F&& f) const {
    visit_elements(&f, [](void* ctx, std::size_t i, JsonNode v) { (*static_cast<std::remove_reference_t<F>*>(ctx))(i, v); });
  }
  /// Calls f(key, value) for each member of an object, in order.
  template <class F>
  void for_each_member(F&& f) const {
    visit_members(&f, [](void* ctx, std::string_view k, JsonNode v) { (*static_cast<std::remove_reference_t<F>*>(ctx))(k, v); });
  }

 private:
  friend class JsonNodeOf;  // makes simdjson-backed nodes (json_node.cpp)
  enum class Backing : std::uint8_t { None, Boost, Simd };

  void visit_elements(void* ctx, void (*fn)(void*, std::size_t, JsonNode)) const;
  void visit_members(void* ctx, void (*fn)(void*, std::string_view, JsonNode)) const;

  Backing backing_ = Backing::None;
  const value* boost_ = nullptr;
  /// A simdjson::dom::element, copied byte for byte (it is trivially copyable; keeping
  /// its bytes keeps simdjson's header out of this one).
  alignas(8) unsigned char simd_[16] = {};
};

/// Parses JSON text with simdjson for reading through JsonNode. One parse at a time:
/// the nodes of a parse are valid until the next parse or the JsonText's end. Not
/// thread-safe; keep one per thread.
class JsonText {
 public:
  JsonText();
  ~JsonText();
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;

  /// The root of `text` (copied into a padded buffer first; simdjson reads ahead).
  Expected<JsonNode> parse(std::string_view text);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kueuepp::json

#pragma once

// An object kept as its compact JSON text, for caches that hold every object of a kind
// but read few of them again. A Workload takes about 1.3 KB this way against 4.8 KB
// decoded (Boost.JSON gives every member a 40-byte slot, every object a table and every
// key its own allocation): at tens of thousands of Workloads the decoded documents were
// most of the controller's memory. Unpacking parses the text again (a few microseconds
// for a Workload), which the caches do only when they write or reconcile the object.

#include <cstddef>
#include <memory>
#include <string_view>

#include "core/expected.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::kube::client {

class PackedObject {
 public:
  /// The object's document as compact JSON.
  static PackedObject pack(const Object& object);
  /// An object's compact JSON text as it is (the watch decoder writes it straight from
  /// the event: DecodeOptions::pack_object_member).
  static PackedObject from_text(std::string_view text);

  /// The document again, equal to the one packed (numbers keep their type: integers
  /// stay integers, doubles round-trip exactly). Fails only on text that `pack` or the
  /// watch decoder did not write, which would be a bug.
  Expected<Object> unpack() const;

  std::string_view text() const { return {text_.get(), size_}; }

 private:
  PackedObject(std::unique_ptr<char[]> text, std::size_t size) : text_(std::move(text)), size_(size) {}

  std::unique_ptr<char[]> text_;  ///< exactly sized: a std::string would keep its growth slack
  std::size_t size_ = 0;
};

}  // namespace kueuepp::kube::client

#pragma once

// One version of a watched object, as the controller's messages carry it and its caches
// keep it. Its metadata is always decoded. The rest depends on the kind
// (kind_traits(kind).packed): most kinds travel as a decoded document, but Workloads and
// Jobs, kept by the ten thousand, travel as compact text (kube::client::PackedObject)
// with only their metadata decoded, and are unpacked when someone needs the whole.
// Receivers ask the handle, not the kind, which form they hold.

#include <memory>
#include <utility>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/client/packed_object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::messages {

using ObjectPtr = std::shared_ptr<const kube::client::Object>;
using PackedPtr = std::shared_ptr<const kube::client::PackedObject>;

inline PackedPtr pack(const kube::client::Object& object) {
  return std::make_shared<const kube::client::PackedObject>(kube::client::PackedObject::pack(object));
}

/// An object's apiVersion, kind and metadata, as a document of their own.
inline ObjectPtr metadata_of(const kube::client::Object& whole) {
  json::object meta;
  if (whole.json().is_object()) {
    const json::object& root = whole.json().as_object();
    for (const char* key : {"apiVersion", "kind", "metadata"}) {
      if (const json::value* v = root.if_contains(key)) meta[key] = *v;
    }
  }
  return std::make_shared<const kube::client::Object>(json::value(std::move(meta)));
}

class CachedObject {
 public:
  CachedObject() = default;
  /// A decoded document (implicit: most kinds travel so, and tests build them so).
  CachedObject(ObjectPtr document) : decoded_(std::move(document)) {}  // NOLINT(google-explicit-constructor)
  /// A packed object: `metadata` holds its apiVersion, kind and metadata, `text` all of it.
  CachedObject(ObjectPtr metadata, PackedPtr text) : decoded_(std::move(metadata)), text_(std::move(text)) {}
  /// `document` packed now, for a kind that travels packed but was made elsewhere (a
  /// relist, an answer, a test): only its metadata stays decoded, as the watch decoder
  /// leaves it, so that a cache of packed objects holds no whole documents.
  static CachedObject packed_from(const ObjectPtr& document) {
    if (!document) return {};
    return CachedObject(metadata_of(*document), pack(*document));
  }

  explicit operator bool() const { return decoded_ != nullptr; }
  /// The metadata, always; the whole document when it is not packed.
  const kube::client::Object& operator*() const { return *decoded_; }
  const kube::client::Object* operator->() const { return decoded_.get(); }
  /// What is decoded: the whole document, or only its metadata when packed.
  const ObjectPtr& decoded() const { return decoded_; }

  bool is_packed() const { return text_ != nullptr; }
  /// The compact text (packed objects only; null otherwise).
  const PackedPtr& text() const { return text_; }
  /// The compact text, packing the decoded document when it travels decoded.
  PackedPtr packed_text() const { return text_ ? text_ : (decoded_ ? pack(*decoded_) : nullptr); }
  /// The whole document: as decoded, or unpacked now (an error only for text that the
  /// watch decoder or pack did not write, which would be a bug).
  Expected<ObjectPtr> document() const {
    if (!text_) return decoded_;
    auto whole = text_->unpack();
    if (!whole) return fail(whole.error().message);
    return std::make_shared<const kube::client::Object>(std::move(*whole));
  }
  /// This version packed, when its kind travels packed and it does not yet.
  CachedObject packed_if(bool should_pack) const {
    if (!should_pack || text_ || !decoded_) return *this;
    return packed_from(decoded_);
  }

 private:
  ObjectPtr decoded_;
  PackedPtr text_;
};

}  // namespace kueuepp::messages

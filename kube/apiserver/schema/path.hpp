#pragma once

// The path of the value being visited, kept as a stack of segments and rendered only
// when an error needs it. kube-apiserver prints two dialects:
//  - OpenAPI validation (go-openapi): `spec.nodeLabels.kueue.x-k8s.io/x`, `a[0].b`: map
//    keys are `.key`;
//  - field.Path (CEL rules, list-type duplicates, pruning warnings): map keys are `[key]`,
//    and the empty path is `<nil>`.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::kube::schema {

class PathStack {
 public:
  enum class Kind : unsigned char { Field, Key, Index };
  struct Segment {
    Kind kind;
    std::string_view name;  // Field/Key: points into the document or schema
    std::size_t index;
  };

  PathStack() { segments_.reserve(32); }

  void push_field(std::string_view name) { segments_.push_back({Kind::Field, name, 0}); }
  void push_key(std::string_view key) { segments_.push_back({Kind::Key, key, 0}); }
  void push_index(std::size_t i) { segments_.push_back({Kind::Index, {}, i}); }
  void pop() { segments_.pop_back(); }
  bool empty() const { return segments_.empty(); }

  /// go-openapi's dialect (map keys as fields).
  std::string openapi() const;
  /// field.Path's dialect; `<nil>` when empty.
  std::string field_path() const;
  /// field.Path's dialect with `child` (a normalized rule fieldPath) appended.
  std::string field_path(std::string_view child) const;

 private:
  std::vector<Segment> segments_;
};

/// Pushes a segment for the lifetime of a scope.
class PathScope {
 public:
  PathScope(PathStack& p, PathStack::Kind kind, std::string_view name, std::size_t index = 0) : p_(p) {
    switch (kind) {
      case PathStack::Kind::Field: p.push_field(name); break;
      case PathStack::Kind::Key: p.push_key(name); break;
      case PathStack::Kind::Index: p.push_index(index); break;
    }
  }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;
  ~PathScope() { p_.pop(); }

 private:
  PathStack& p_;
};

}  // namespace kueuepp::kube::schema

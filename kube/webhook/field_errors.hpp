#pragma once

// Validation errors as apimachinery's field.Error writes them, so a refusal reads as
// Kueue's does: "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid
// value: \"-1\": must be greater than or equal to 0". A webhook's refusal message is the
// aggregate of its errors (one error alone, or "[a, b]"), as controller-runtime's
// validators answer with ToAggregate().Error().

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::kube::webhook {

/// A field path: "metadata.labels[kueue.x-k8s.io/queue-name]", "spec.resourceGroups[0]".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : text_(root) {}
  FieldPath child(std::string_view name) const;
  FieldPath index(std::size_t i) const;
  FieldPath key(std::string_view k) const;
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

struct FieldError {
  enum class Type : std::uint8_t { Invalid, Forbidden, Duplicate, NotSupported, Required, TooMany };
  Type type = Type::Invalid;
  std::string field;
  /// The bad value as Go's %q or %v prints it (already quoted for strings); empty for the
  /// types that print none (Forbidden, Required).
  std::string value;
  std::string detail;

  /// "<field>: <type>[: <value>][: <detail>]"
  std::string message() const;
};

using FieldErrors = std::vector<FieldError>;

/// Go's %q of a string (the quoting Kubernetes uses for bad values).
std::string go_quote(std::string_view s);

FieldError invalid(const FieldPath& path, std::string quoted_value, std::string detail);
FieldError invalid_string(const FieldPath& path, std::string_view value, std::string detail);
FieldError invalid_int(const FieldPath& path, std::int64_t value, std::string detail);
FieldError forbidden(const FieldPath& path, std::string detail);
FieldError duplicate(const FieldPath& path, std::string quoted_value);
FieldError not_supported(const FieldPath& path, std::string_view value, const std::vector<std::string>& supported);
/// apimachinery's ValidateImmutableField: nothing when equal, else "field is immutable".
void check_immutable(std::string_view new_value, std::string_view old_value, const FieldPath& path, FieldErrors& out);

/// utilerrors.Aggregate's Error(): the message alone, or "[m1, m2]" (duplicates once).
std::string aggregate(const FieldErrors& errors);

}  // namespace kueuepp::kube::webhook

#pragma once

// Field selectors (k8s.io/apimachinery/pkg/fields): `field=value`, `field==value`,
// `field!=value`, joined by commas. Which fields a kind supports is up to its strategy;
// the selector only parses and evaluates.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

class FieldSelector {
 public:
  struct Term {
    std::string field;
    bool equals = true;  ///< false for !=
    std::string value;
  };

  static Expected<FieldSelector> parse(std::string_view text);

  bool empty() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

  /// The value of a field of the object being matched; nullopt when the kind has no such
  /// field (callers check the field names beforehand).
  using Lookup = std::function<std::optional<std::string>(std::string_view field)>;
  bool matches(const Lookup& lookup) const;

  /// The value a term requires for `field` with `=` (used to narrow watches and lists to
  /// one namespace or name).
  std::optional<std::string_view> required_value(std::string_view field) const;

 private:
  std::vector<Term> terms_;
};

}  // namespace kueuepp::kube::server

#pragma once

// Kueue's feature gates (the Configuration's featureGates) and what kueuepp does with
// each. A gate is honoured (both values change kueuepp's behaviour), fixed at Kueue's
// default (kueuepp behaves as Kueue does by default and refuses the other value), not
// implemented (kueuepp lacks the gated behaviour, so turning it on is refused), or
// without effect in kueuepp (it only tunes Kueue's implementation, or matters only with
// a feature that kueuepp refuses elsewhere). Nothing is accepted and then ignored.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kueuepp::config {

enum class GateSupport {
  Honoured,        ///< both values honoured
  KueueDefault,    ///< kueuepp behaves as Kueue's default; the other value is refused
  NotImplemented,  ///< kueuepp lacks the behaviour; `true` is refused
  NoEffect,        ///< either value accepted: nothing in kueuepp depends on it
};

struct FeatureGate {
  std::string_view name;
  bool kueue_default = false;
  GateSupport support = GateSupport::KueueDefault;
  /// Why (for KueueDefault, NotImplemented and NoEffect): said in errors and logs.
  std::string_view note;
};

/// Every gate Kueue knows, by name.
std::span<const FeatureGate> kueue_feature_gates();
const FeatureGate* find_feature_gate(std::string_view name);

/// The gates' values: explicit settings over Kueue's defaults.
class FeatureGates {
 public:
  /// Unknown names are the caller's to refuse (Kueue refuses them too).
  void set(std::string_view name, bool value) { explicit_[std::string(name)] = value; }
  bool enabled(std::string_view name) const;
  const std::map<std::string, bool, std::less<>>& explicit_values() const { return explicit_; }

 private:
  std::map<std::string, bool, std::less<>> explicit_;
};

/// Why setting `gate` to `value` cannot be honoured, or nothing when it can.
std::optional<std::string> unsupported_gate_value(const FeatureGate& gate, bool value);

}  // namespace kueuepp::config

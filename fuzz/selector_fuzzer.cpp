// Fuzzes the API server's parsers of the labelSelector and fieldSelector query
// parameters (kube/apiserver/server/store) and their matching: the same text is read as
// both, and a selector that parses is matched against labels built from its own
// requirements (so that every operator gets to compare values), against no labels, and
// against fields of an imaginary object.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kube/apiserver/server/store/field_selector.hpp"
#include "kube/apiserver/server/store/label_selector.hpp"

namespace {

namespace json = kueuepp::json;
using kueuepp::kube::server::FieldSelector;
using kueuepp::kube::server::LabelSelector;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void exercise_labels(std::string_view text) {
  auto selector = LabelSelector::parse(text);
  if (!selector) return;
  (void)selector->matches(nullptr);
  json::value none = nullptr;
  (void)selector->matches(&none);
  json::value labels = json::object{};
  json::value other = json::object{};
  for (const LabelSelector::Requirement& r : selector->requirements()) {
    check(!r.key.empty());
    labels.get_object()[r.key] = r.values.empty() ? std::string() : r.values.front();
    other.get_object()[r.key] = r.values.empty() ? std::string("x") : r.values.back() + "0";
  }
  (void)selector->matches(&labels);
  (void)selector->matches(&other);
  // An empty selector matches everything.
  if (selector->empty()) check(selector->matches(&labels) && selector->matches(nullptr));
}

void exercise_fields(std::string_view text) {
  auto selector = FieldSelector::parse(text);
  if (!selector) return;
  const FieldSelector::Lookup lookup = [](std::string_view field) -> std::optional<std::string> {
    if (field == "metadata.name") return std::string("a");
    if (field == "metadata.namespace") return std::string("default");
    if (field == "status.phase") return std::string();
    return std::nullopt;
  };
  (void)selector->matches(lookup);
  for (const FieldSelector::Term& term : selector->terms()) {
    const FieldSelector::Lookup echo = [&](std::string_view field) -> std::optional<std::string> {
      if (field == term.field) return term.value;
      return std::string();
    };
    (void)selector->matches(echo);
    if (auto required = selector->required_value(term.field)) (void)required->size();
  }
  (void)selector->required_value("metadata.namespace");
  (void)selector->required_value("metadata.name");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  exercise_labels(text);
  exercise_fields(text);
  return 0;
}

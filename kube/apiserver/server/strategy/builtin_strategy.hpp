#pragma once

// The base of the built-in kinds' strategies: strategic merge patch and server-side
// apply know their list types from kube/apiserver/patch's tables of the built-in types, or from
// the kind's own ListTable (list_table.hpp) for the kinds those tables do not describe.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kube/apiserver/server/strategy/field_types.hpp"
#include "kube/apiserver/server/strategy/list_table.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

class BuiltinStrategy : public Strategy {
 public:
  BuiltinStrategy(std::string group, std::string kind) : group_(std::move(group)), kind_(std::move(kind)) {}
  BuiltinStrategy(std::string group, std::string kind, ListTable lists)
      : group_(std::move(group)), kind_(std::move(kind)), lists_(std::move(lists)) {}

  patch::ListStrategyResolver strategic_lists() const override;
  patch::ListStrategyResolver apply_lists() const override;
  patch::AtomicObjectResolver apply_atomic_objects() const override;

 protected:
  /// 400, as kube-apiserver's decoder answers, when one of `fields` (paths below the
  /// dotted path `base`) has the wrong JSON type in a request body (field_types.hpp).
  ApiStatus check_field_types(const json::object& body, const WriteContext& ctx, std::string_view base,
                              std::span<const TypedField> fields) const;

  std::string group_;
  std::string kind_;
  std::optional<ListTable> lists_;
};

/// Marks a MicroTime field that is not exactly "YYYY-MM-DDTHH:MM:SS.ffffffZ" as the
/// decoding error kube-apiserver reports (400).
ApiStatus check_micro_time(const json::value* v, std::string_view kind, std::string_view version);

/// A nested member (nullptr when any step is missing).
const json::value* at(const json::object& obj, std::initializer_list<std::string_view> path);
/// Integer member value (nullopt when absent or not an integer).
std::optional<std::int64_t> int_at(const json::object& obj, std::initializer_list<std::string_view> path);
/// obj[key] as an object, created when missing.
json::object& object_member(json::object& obj, std::string_view key);
/// A nested string member ("" when absent or not a string).
std::string_view string_at(const json::object& obj, std::initializer_list<std::string_view> path);
/// Whether a member is absent or null (Go's zero value for pointers, maps and slices).
bool unset(const json::object& obj, std::string_view key);
/// Sets obj[key] to `value` when it is absent or null (kube-apiserver's defaulting).
void set_default(json::object& obj, std::string_view key, json::value value);
/// The same for a string field, which Go also defaults when it is "".
void default_string(json::object& obj, std::string_view key, std::string_view value);
/// Puts the members named in `order` first, in that order (the Go struct's field order,
/// so answers read like kube-apiserver's); the others follow as they were.
void order_members(json::object& obj, std::span<const std::string_view> order);

}  // namespace kueuepp::kube::server

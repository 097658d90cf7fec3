#include "kube/apiserver/conformance/asserts.hpp"

#include "kube/apiserver/conformance/subset_match.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::conformance {

namespace {

bool is_empty(const json::value* v) {
  if (v == nullptr || v->is_null()) return true;
  if (const json::string* s = v->if_string()) return s->empty();
  if (const json::array* a = v->if_array()) return a->empty();
  if (const json::object* o = v->if_object()) return o->empty();
  return false;
}

}  // namespace

std::optional<std::string> check_assertion(const Assertion& assertion, const json::value& actual,
                                           const Captures& captures) {
  const json::value* found = lookup(actual, assertion.path);
  const std::string& path = assertion.path_text.empty() ? std::string("(whole body)") : assertion.path_text;
  switch (assertion.op) {
    case Assertion::Op::Absent:
      if (found == nullptr) return std::nullopt;
      return "assert " + path + " absent: actual " + excerpt(*found);
    case Assertion::Op::Present:
      if (found != nullptr) return std::nullopt;
      return "assert " + path + " present: nothing there";
    case Assertion::Op::Empty:
      if (is_empty(found)) return std::nullopt;
      return "assert " + path + " empty: actual " + excerpt(*found);
    case Assertion::Op::Eq:
    case Assertion::Op::Ne: {
      const bool eq = assertion.op == Assertion::Op::Eq;
      auto expected = substitute_in_json(assertion.value, captures);
      if (!expected) return "assert " + path + ": " + expected.error().message;
      if (found == nullptr) {
        return "assert " + path + (eq ? " eq " : " ne ") + excerpt(*expected) + ": nothing there";
      }
      if (json::json_equal(*found, *expected) == eq) return std::nullopt;
      return "assert " + path + (eq ? " eq " : " ne ") + excerpt(*expected) + ": actual " + excerpt(*found);
    }
  }
  return std::nullopt;
}

}  // namespace kueuepp::kube::conformance

#pragma once

// Helpers for the kube/apiserver/patch tests: JSON literals and readable comparisons.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::testing {

/// Parses a JSON literal; a typo in a test is a test failure, not a crash.
inline json::value J(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value()) << "bad JSON in test: " << text;
  return v ? *v : json::value();
}

/// Object member order is not significant, array order is (Boost.JSON's operator==).
inline ::testing::AssertionResult JsonEq(const json::value& actual, const json::value& expected) {
  if (actual == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n  actual:   " << json::dump(actual)
                                       << "\n  expected: " << json::dump(expected);
}

/// The value at a path of object keys; a missing path fails the test (and yields null)
/// instead of crashing it.
inline const json::value& At(const json::value& v, std::initializer_list<std::string_view> path) {
  static const json::value missing;
  const json::value* found = json::find_path(v, path);
  if (found == nullptr) {
    std::string where;
    for (auto p : path) where += "." + std::string(p);
    ADD_FAILURE() << "no " << where << " in " << json::dump(v);
    return missing;
  }
  return *found;
}

template <class T>
::testing::AssertionResult Ok(const Expected<T, PatchError>& r) {
  if (r) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "unexpected error: " << r.error().message;
}

/// The result must be `expected`.
inline ::testing::AssertionResult Yields(const Expected<json::value, PatchError>& r, std::string_view expected) {
  if (!r) return ::testing::AssertionFailure() << "unexpected error: " << r.error().message;
  return JsonEq(*r, J(expected));
}

/// The result must be an error of this kind and cause.
inline ::testing::AssertionResult Fails(const Expected<json::value, PatchError>& r, PatchError::Kind kind,
                                        PatchError::Cause cause) {
  if (r) return ::testing::AssertionFailure() << "expected an error, got " << json::dump(*r);
  if (r.error().kind != kind || r.error().cause != cause) {
    return ::testing::AssertionFailure() << "wrong error kind/cause (" << static_cast<int>(r.error().kind) << "/"
                                         << static_cast<int>(r.error().cause) << "): " << r.error().message;
  }
  if (r.error().message.empty()) return ::testing::AssertionFailure() << "error without a message";
  return ::testing::AssertionSuccess();
}

}  // namespace kueuepp::kube::patch::testing

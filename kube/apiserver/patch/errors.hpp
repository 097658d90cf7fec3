#pragma once

// Small constructors for PatchError so that every failure site states its kind, cause,
// location and message in one line. Internal to kube/apiserver/patch.

#include <string>
#include <utility>

#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {

inline Unexpected<PatchError> patch_error(PatchError::Kind kind, PatchError::Cause cause,
                                   std::string path, std::string message) {
  PatchError e;
  e.kind = kind;
  e.cause = cause;
  e.path = std::move(path);
  e.message = std::move(message);
  return {std::move(e)};
}

/// The patch document (or applied configuration) is malformed: 400.
inline Unexpected<PatchError> bad_request(std::string path, std::string message,
                                          PatchError::Cause cause = PatchError::Cause::Malformed) {
  return patch_error(PatchError::Kind::BadRequest, cause, std::move(path), std::move(message));
}

/// The patch is well-formed but cannot be applied to this document: 422.
inline Unexpected<PatchError> invalid(std::string path, std::string message, PatchError::Cause cause) {
  return patch_error(PatchError::Kind::Invalid, cause, std::move(path), std::move(message));
}

/// Refuses documents nested deeper than kMaxDepth instead of exhausting the stack.
inline Unexpected<PatchError> too_deep(std::string path) {
  return patch_error(PatchError::Kind::BadRequest, PatchError::Cause::TooDeep, path,
              "document nested deeper than " + std::to_string(kMaxDepth) + " levels at " +
                  (path.empty() ? std::string("the root") : path));
}

}  // namespace kueuepp::kube::patch::detail

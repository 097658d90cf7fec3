#pragma once

// Bearer-token authentication as kube-apiserver's: the server's own token (system:masters,
// what kubectl and every test hold) and static tokens from a --token-auth-file CSV
// (token,user,uid,"group1,group2"). Every authenticated user is also in
// system:authenticated.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/expected.hpp"
#include "kube/apiserver/server/auth/user_info.hpp"

namespace kueuepp::kube::server::auth {

class TokenAuthenticator {
 public:
  /// `masters_token` (may be empty: none) authenticates as user "kueuepp" in system:masters.
  explicit TokenAuthenticator(std::string masters_token = {});

  /// Adds the tokens of a token-auth file's text. The error names the line and what is
  /// wrong with it (too few columns, an empty token or user, a token given twice).
  Status add_token_file(std::string_view csv);
  /// Reads and adds a token-auth file.
  Status load_token_file(const std::string& path);

  /// The user a bearer token names, or nullopt.
  std::optional<UserInfo> authenticate_token(std::string_view token) const;
  /// The user of an Authorization header value ("Bearer <token>"), or nullopt.
  std::optional<UserInfo> authenticate_header(std::string_view authorization) const;

  bool empty() const { return tokens_.empty(); }

 private:
  std::unordered_map<std::string, UserInfo> tokens_;
};

/// The fields of one CSV line (RFC 4180 quoting, as Go's encoding/csv reads them).
/// nullopt when a quote is not closed.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

}  // namespace kueuepp::kube::server::auth

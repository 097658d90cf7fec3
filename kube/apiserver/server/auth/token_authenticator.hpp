#pragma once

// Bearer-token authentication as kube-apiserver's: the server's own token (system:masters,
// what kubectl and every test hold) and static tokens from a --token-auth-file CSV
// (token,user,uid,"group1,group2"), then the ServiceAccount tokens the server issued
// (service_account_tokens.hpp). Every authenticated user is also in system:authenticated.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/expected.hpp"
#include "kube/apiserver/server/auth/service_account_tokens.hpp"
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

  /// ServiceAccount tokens authenticate too, after the static tokens.
  void set_service_account_tokens(std::shared_ptr<const ServiceAccountTokens> tokens) {
    service_accounts_ = std::move(tokens);
  }

  /// What a bearer token is: a static token's user (for any audience), or a
  /// ServiceAccount token's outcome for `audiences` (empty: the API audiences).
  TokenCheck check_token(std::string_view token, const std::vector<std::string>& audiences = {}) const;
  /// check_token of an Authorization header value ("Bearer <token>"); NotOurs when it
  /// holds no bearer token.
  TokenCheck check_header(std::string_view authorization) const;
  /// The user a bearer token names, or nullopt.
  std::optional<UserInfo> authenticate_token(std::string_view token) const;
  /// The user of an Authorization header value, or nullopt.
  std::optional<UserInfo> authenticate_header(std::string_view authorization) const;

  bool empty() const { return tokens_.empty(); }

 private:
  std::unordered_map<std::string, UserInfo> tokens_;
  std::shared_ptr<const ServiceAccountTokens> service_accounts_;
};

/// The fields of one CSV line (RFC 4180 quoting, as Go's encoding/csv reads them).
/// nullopt when a quote is not closed.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

}  // namespace kueuepp::kube::server::auth

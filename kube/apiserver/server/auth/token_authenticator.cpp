#include "kube/apiserver/server/auth/token_authenticator.hpp"

#include <fstream>
#include <sstream>

namespace kueuepp::kube::server::auth {

namespace {

std::vector<std::string> split_groups(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view g = list.substr(0, comma);
    if (!g.empty()) out.emplace_back(g);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

void add_authenticated(UserInfo& user) {
  if (!user.in_group(kAuthenticatedGroup)) user.groups.emplace_back(kAuthenticatedGroup);
}

}  // namespace

std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

TokenAuthenticator::TokenAuthenticator(std::string masters_token) {
  if (masters_token.empty()) return;
  UserInfo masters{"kueuepp", "", {std::string(kMastersGroup)}};
  add_authenticated(masters);
  tokens_.emplace(std::move(masters_token), std::move(masters));
}

Status TokenAuthenticator::add_token_file(std::string_view csv) {
  std::size_t line_no = 0;
  while (!csv.empty()) {
    std::size_t nl = csv.find('\n');
    std::string_view line = csv.substr(0, nl);
    csv = nl == std::string_view::npos ? std::string_view() : csv.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto fields = split_csv_line(line);
    std::string where = "token auth file, line " + std::to_string(line_no);
    if (!fields) return fail(where + ": a quoted field is not closed");
    if (fields->size() < 3) {
      return fail(where + ": needs at least 3 columns (token,user,uid[,\"group1,group2\"]), has " +
                  std::to_string(fields->size()));
    }
    const std::string& token = (*fields)[0];
    if (token.empty() || (*fields)[1].empty()) return fail(where + ": the token and the user may not be empty");
    UserInfo user{(*fields)[1], (*fields)[2], {}};
    if (fields->size() > 3) user.groups = split_groups((*fields)[3]);
    add_authenticated(user);
    if (!tokens_.emplace(token, std::move(user)).second) return fail(where + ": the token is given twice");
  }
  return {};
}

Status TokenAuthenticator::load_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read the token auth file " + path);
  std::stringstream text;
  text << in.rdbuf();
  Status s = add_token_file(text.str());
  if (!s) return fail(path + ": " + s.error().message);
  return {};
}

TokenCheck TokenAuthenticator::check_token(std::string_view token, const std::vector<std::string>& audiences) const {
  if (auto it = tokens_.find(std::string(token)); it != tokens_.end()) {
    TokenCheck check;
    check.outcome = TokenCheck::Outcome::Authenticated;
    check.user = it->second;
    return check;
  }
  if (service_accounts_ && !token.empty()) return service_accounts_->authenticate(token, audiences);
  return {};
}

std::optional<UserInfo> TokenAuthenticator::authenticate_token(std::string_view token) const {
  TokenCheck check = check_token(token);
  if (check.outcome != TokenCheck::Outcome::Authenticated) return std::nullopt;
  return std::move(check.user);
}

std::optional<UserInfo> TokenAuthenticator::authenticate_header(std::string_view authorization) const {
  TokenCheck check = check_header(authorization);
  if (check.outcome != TokenCheck::Outcome::Authenticated) return std::nullopt;
  return std::move(check.user);
}

// As kube-apiserver's bearer-token authenticator reads the header: trimmed, split on
// single spaces, the scheme "bearer" in any case, the token the second part (so
// "Bearer  t", with two spaces, has an empty token).
TokenCheck TokenAuthenticator::check_header(std::string_view authorization) const {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!authorization.empty() && space(authorization.front())) authorization.remove_prefix(1);
  while (!authorization.empty() && space(authorization.back())) authorization.remove_suffix(1);
  std::size_t first = authorization.find(' ');
  if (first == std::string_view::npos) return {};
  std::string scheme(authorization.substr(0, first));
  for (char& c : scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (scheme != "bearer") return {};
  std::string_view rest = authorization.substr(first + 1);
  std::string_view token = rest.substr(0, rest.find(' '));
  if (token.empty()) return {};
  return check_token(token);
}

}  // namespace kueuepp::kube::server::auth

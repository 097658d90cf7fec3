#include "kube/auth/non_resource_filter.hpp"

#include <spdlog/spdlog.h>

#include "kube/json/json.hpp"
#include "kube/tls/client_certificate.hpp"

namespace kueuepp::kube::auth {

namespace {

/// A refusal as kube-apiserver words its own: a metav1 Status.
GateDecision refused(int status, std::string_view reason, std::string message) {
  json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object{};
  o["status"] = "Failure";
  o["message"] = message;
  o["reason"] = reason;
  o["code"] = status;
  GateDecision d;
  d.status = status;
  d.body = json::dump(o) + "\n";
  return d;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string describe(const UserInfo& user) {
  std::string out = "user \"" + user.name + "\"";
  if (!user.groups.empty()) {
    out += " (groups";
    for (const auto& g : user.groups) out += " \"" + g + "\"";
    out += ")";
  }
  return out;
}

}  // namespace

std::string gate_path(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  return path.empty() ? std::string("/") : std::string(path);
}

NonResourceGate::NonResourceGate(std::shared_ptr<TokenAuthenticator> tokens, std::shared_ptr<Authorizer> authorizer,
                                 std::string client_ca_pem)
    : tokens_(std::move(tokens)), authorizer_(std::move(authorizer)), client_ca_pem_(std::move(client_ca_pem)) {}

void NonResourceGate::check(const GateRequest& request, Callback done) const {
  // A certificate first, as kube-apiserver's union authenticator: a client that presents
  // one the CA does not sign may still authenticate with a token.
  if (!request.peer_chain_der.empty() && !client_ca_pem_.empty()) {
    auto subject = tls::verify_client_certificate(request.peer_chain_der, client_ca_pem_, "the client CA");
    if (subject) {
      UserInfo user{subject->common_name, "", subject->organizations, {}};
      user.groups.push_back("system:authenticated");
      authorize(request, std::move(user), std::move(done));
      return;
    }
    spdlog::debug("{}: client certificate not accepted: {}", gate_path(request.target), subject.error().message);
  }
  auto token = bearer_token(request.headers);
  if (!token) {
    done(refused(401, "Unauthorized",
                 "Unauthorized: " + gate_path(request.target) +
                     " needs credentials: a bearer token the cluster accepts (Authorization: Bearer TOKEN, e.g. from "
                     "`kubectl create token SERVICEACCOUNT`)" +
                     (client_ca_pem_.empty() ? std::string() : " or a client certificate signed by the client CA")));
    return;
  }
  if (!tokens_) {
    done(refused(401, "Unauthorized", "Unauthorized: this server checks no bearer tokens"));
    return;
  }
  tokens_->authenticate(*token, [this, request, done = std::move(done)](Expected<std::optional<UserInfo>> user) {
    if (!user) {
      spdlog::warn("{}: TokenReview failed: {}", gate_path(request.target), user.error().message);
      done(refused(401, "Unauthorized", "Unauthorized: the bearer token could not be reviewed: " + user.error().message));
      return;
    }
    if (!*user) {
      done(refused(401, "Unauthorized", "Unauthorized: the cluster does not accept the bearer token (TokenReview)"));
      return;
    }
    authorize(request, std::move(**user), done);
  });
}

void NonResourceGate::authorize(const GateRequest& request, UserInfo user, Callback done) const {
  ResourceAttributes a;
  a.user = std::move(user);
  a.verb = lower(request.method);
  a.path = gate_path(request.target);
  authorizer_->authorize(a, [a, done = std::move(done)](Expected<AuthorizationDecision> d) {
    if (!d) {
      spdlog::warn("{}: SubjectAccessReview for {} failed: {}", a.path, describe(a.user), d.error().message);
      done(refused(500, "InternalError",
                   "authorization of " + describe(a.user) + " to " + a.verb + " " + a.path + " failed: " +
                       d.error().message));
      return;
    }
    if (!d->allowed) {
      std::string message = describe(a.user) + " cannot " + a.verb + " path \"" + a.path +
                            "\" (the non-resource URL needs a ClusterRole rule with nonResourceURLs [\"" + a.path +
                            "\"] and verbs [\"" + a.verb + "\"])";
      if (!d->reason.empty()) message += ": " + d->reason;
      GateDecision refusal = refused(403, "Forbidden", std::move(message));
      refusal.user = a.user;
      done(std::move(refusal));
      return;
    }
    GateDecision allowed;
    allowed.allowed = true;
    allowed.user = a.user;
    done(std::move(allowed));
  });
}

}  // namespace kueuepp::kube::auth

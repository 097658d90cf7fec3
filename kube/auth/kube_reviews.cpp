#include "kube/auth/kube_reviews.hpp"

#include <string>

namespace kueuepp::kube::auth {

namespace {

client::HttpRequest post(std::string target, std::string body) {
  client::HttpRequest req;
  req.method = "POST";
  req.target = std::move(target);
  req.headers.emplace_back("Content-Type", "application/json");
  req.headers.emplace_back("Accept", "application/json");
  req.body = std::move(body);
  return req;
}

/// The answer's body when the API server created the review, else what went wrong.
Expected<std::string> created(std::string_view what, client::Result<client::HttpResponse>& r) {
  if (!r) return fail(std::string(what) + ": " + r.error().describe());
  if (r->status != 201 && r->status != 200) {
    return fail(std::string(what) + ": the API server answered " + std::to_string(r->status) + ": " + r->body +
                " (the controller's ServiceAccount needs create on it: deploy/metrics/auth_delegation.yaml)");
  }
  return std::move(r->body);
}

}  // namespace

void ApiServerReviews::authorize(const ResourceAttributes& attributes, Authorizer::Callback done) {
  client_.raw(post("/apis/authorization.k8s.io/v1/subjectaccessreviews", encode_subject_access_review(attributes)),
              [done = std::move(done)](client::Result<client::HttpResponse> r) {
                auto body = created("SubjectAccessReview", r);
                if (!body) {
                  done(unexpected(body.error()));
                  return;
                }
                done(decode_subject_access_review(*body));
              },
              client::RawOptions{true, {}});
}

void ApiServerReviews::authenticate(const std::string& token, TokenAuthenticator::Callback done) {
  client_.raw(post("/apis/authentication.k8s.io/v1/tokenreviews", encode_token_review(token)),
              [done = std::move(done)](client::Result<client::HttpResponse> r) {
                auto body = created("TokenReview", r);
                if (!body) {
                  done(unexpected(body.error()));
                  return;
                }
                done(decode_token_review(*body));
              },
              client::RawOptions{true, {}});
}

void read_request_header_config(client::Client& client, std::function<void(Expected<RequestHeaderConfig>)> done) {
  client::HttpRequest req;
  req.target = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
  req.headers.emplace_back("Accept", "application/json");
  client.raw(std::move(req),
             [done = std::move(done)](client::Result<client::HttpResponse> r) {
               if (!r) {
                 done(fail("reading ConfigMap kube-system/extension-apiserver-authentication: " + r.error().describe()));
                 return;
               }
               if (r->status == 404) {
                 done(fail("ConfigMap kube-system/extension-apiserver-authentication does not exist (kube-apiserver "
                           "writes it from its --requestheader-* flags; an API server without a front proxy has none)"));
                 return;
               }
               if (r->status != 200) {
                 done(fail("reading ConfigMap kube-system/extension-apiserver-authentication: the API server answered " +
                           std::to_string(r->status) +
                           "; the controller needs the extension-apiserver-authentication-reader Role "
                           "(deploy/visibility/auth_reader.yaml)"));
                 return;
               }
               done(request_header_config(r->body));
             },
             client::RawOptions{true, {}});
}

}  // namespace kueuepp::kube::auth

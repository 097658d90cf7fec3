#include "kube/apiserver/server/auth/attributes.hpp"

namespace kueuepp::kube::server::auth {

namespace {

// Go's %q for the strings RBAC messages quote (names, verbs, paths).
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// kube-apiserver escapes HTML in the message (its sanitizer).
std::string sanitized(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string what_was_refused(const Attributes& a) {
  std::string user = "User " + quoted(a.user.name) + " cannot " + a.verb;
  if (!a.resource_request) return user + " path " + quoted(a.path);
  std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  std::string out = user + " resource " + quoted(resource) + " in API group " + quoted(a.group);
  if (!a.ns.empty()) return out + " in the namespace " + quoted(a.ns);
  return out + " at the cluster scope";
}

}  // namespace

std::string forbidden_message(const Attributes& a, const std::string& reason) {
  std::string err = sanitized(what_was_refused(a));
  if (!reason.empty()) err += ": " + reason;
  // apierrors.NewForbidden: the qualified resource (resource.group) and the name.
  if (!a.resource_request || a.resource.empty()) return "forbidden: " + err;
  std::string qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
  if (a.name.empty()) return qualified + " is forbidden: " + err;
  return qualified + " " + quoted(a.name) + " is forbidden: " + err;
}

}  // namespace kueuepp::kube::server::auth

#include "kube/apiserver/server/auth/rbac_authorizer.hpp"

#include <vector>

namespace kueuepp::kube::server::auth {

namespace {

std::string_view text(const json::value& v, std::string_view key) {
  if (!v.is_object()) return {};
  const json::value* f = v.get_object().if_contains(key);
  return f != nullptr && f->is_string() ? std::string_view(f->get_string()) : std::string_view();
}

// A rule's string list (verbs, apiGroups, ...): whether any item satisfies `match`.
template <typename Match>
bool any_of(const json::value& rule, std::string_view key, Match match) {
  if (!rule.is_object()) return false;
  const json::value* list = rule.get_object().if_contains(key);
  if (list == nullptr || !list->is_array()) return false;
  for (const json::value& item : list->get_array()) {
    if (item.is_string() && match(std::string_view(item.get_string()))) return true;
  }
  return false;
}

bool list_empty(const json::value& rule, std::string_view key) {
  const json::value* list = rule.is_object() ? rule.get_object().if_contains(key) : nullptr;
  return list == nullptr || !list->is_array() || list->get_array().empty();
}

bool resource_matches(std::string_view rule_resource, std::string_view combined, std::string_view subresource) {
  if (rule_resource == "*" || rule_resource == combined) return true;
  // "*/status" matches the status subresource of every resource.
  return !subresource.empty() && rule_resource.size() == subresource.size() + 2 && rule_resource.substr(0, 2) == "*/" &&
         rule_resource.substr(2) == subresource;
}

bool url_matches(std::string_view rule_url, std::string_view path) {
  if (rule_url == "*" || rule_url == path) return true;
  if (rule_url.empty() || rule_url.back() != '*') return false;
  std::string_view prefix = rule_url;
  while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
  return path.substr(0, prefix.size()) == prefix;
}

// Go's %q for names in the allow reason.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Whether a binding's subject is the user; `ns` is the binding's namespace (empty for a
// ClusterRoleBinding), which a ServiceAccount subject without one defaults to.
bool subject_applies(const UserInfo& user, const json::value& subject, std::string_view ns) {
  std::string_view kind = text(subject, "kind");
  std::string_view name = text(subject, "name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return user.in_group(name);
  if (kind == "ServiceAccount") {
    std::string_view sa_ns = text(subject, "namespace");
    if (sa_ns.empty()) sa_ns = ns;
    if (sa_ns.empty()) return false;
    return user.name == "system:serviceaccount:" + std::string(sa_ns) + ":" + std::string(name);
  }
  return false;
}

std::string describe_subject(const json::value& subject, std::string_view binding_ns) {
  std::string_view kind = text(subject, "kind");
  if (kind == "ServiceAccount") {
    std::string_view sa_ns = text(subject, "namespace");
    return std::string(kind) + " " + quoted(std::string(text(subject, "name")) + "/" + std::string(sa_ns.empty() ? binding_ns : sa_ns));
  }
  return std::string(kind) + " " + quoted(text(subject, "name"));
}

// The first subject of `binding` that is the user, or null.
const json::value* applying_subject(const UserInfo& user, const json::value& binding, std::string_view ns) {
  const json::value* subjects = binding.is_object() ? binding.get_object().if_contains("subjects") : nullptr;
  if (subjects == nullptr || !subjects->is_array()) return nullptr;
  for (const json::value& s : subjects->get_array()) {
    if (subject_applies(user, s, ns)) return &s;
  }
  return nullptr;
}

// The role a binding refers to; null (and the reason in `errors`) when it is missing.
const json::value* bound_role(const json::value& binding, std::string_view ns, const RbacObjects& objects,
                              std::vector<std::string>& errors) {
  const json::value* ref = binding.is_object() ? binding.get_object().if_contains("roleRef") : nullptr;
  if (ref == nullptr) return nullptr;
  std::string_view kind = text(*ref, "kind");
  std::string_view name = text(*ref, "name");
  const json::value* role = nullptr;
  if (kind == "Role") {
    role = objects.role(ns, name);
    if (role == nullptr) errors.push_back("role.rbac.authorization.k8s.io " + quoted(name) + " not found");
  } else if (kind == "ClusterRole") {
    role = objects.cluster_role(name);
    if (role == nullptr) errors.push_back("clusterrole.rbac.authorization.k8s.io " + quoted(name) + " not found");
  } else {
    errors.push_back("unsupported role reference kind: " + quoted(kind));
  }
  return role;
}

const json::array* rules_of(const json::value* role) {
  const json::value* rules = role != nullptr && role->is_object() ? role->get_object().if_contains("rules") : nullptr;
  return rules != nullptr && rules->is_array() ? &rules->get_array() : nullptr;
}

// utilerrors.NewAggregate's text: one error as it is, several in brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  std::string all;
  for (const auto& e : errors) all += (all.empty() ? "" : ", ") + e;
  return errors.size() == 1 ? all : "[" + all + "]";
}

class Visitor {
 public:
  Visitor(const Attributes& request, const RbacObjects& objects) : request_(request), objects_(objects) {}

  // Looks at one binding; true once the request is allowed.
  bool binding(const json::value& b, std::string_view ns) {
    if (decision_.allowed) return true;
    const json::value* subject = applying_subject(request_.user, b, ns);
    if (subject == nullptr) return false;
    const json::array* rules = rules_of(bound_role(b, ns, objects_, errors_));
    if (rules == nullptr) return false;
    const json::value& ref = b.get_object().at("roleRef");
    std::string_view kind = text(ref, "kind");
    std::string_view role_name = text(ref, "name");
    for (const json::value& rule : *rules) {
      if (!rule_allows(request_, rule)) continue;
      const json::value* metadata = b.get_object().if_contains("metadata");
      std::string binding_name(metadata != nullptr ? text(*metadata, "name") : std::string_view());
      decision_.allowed = true;
      decision_.reason = "RBAC: allowed by " + std::string(ns.empty() ? "ClusterRoleBinding " : "RoleBinding ") +
                         quoted(ns.empty() ? binding_name : binding_name + "/" + std::string(ns)) + " of " +
                         std::string(kind) + " " + quoted(role_name) + " to " + describe_subject(*subject, ns);
      return true;
    }
    return false;
  }

  Decision finish() {
    if (!decision_.allowed && !errors_.empty()) decision_.reason = "RBAC: " + aggregate(errors_);
    return decision_;
  }

 private:
  const Attributes& request_;
  const RbacObjects& objects_;
  Decision decision_;
  std::vector<std::string> errors_;
};

}  // namespace

bool rule_allows(const Attributes& request, const json::value& rule) {
  auto equals_or_star = [](std::string_view want) {
    return [want](std::string_view item) { return item == "*" || item == want; };
  };
  if (!any_of(rule, "verbs", equals_or_star(request.verb))) return false;
  if (!request.resource_request) {
    return any_of(rule, "nonResourceURLs", [&](std::string_view url) { return url_matches(url, request.path); });
  }
  std::string combined = request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
  return any_of(rule, "apiGroups", equals_or_star(request.group)) &&
         any_of(rule, "resources",
                [&](std::string_view r) { return resource_matches(r, combined, request.subresource); }) &&
         (list_empty(rule, "resourceNames") ||
          any_of(rule, "resourceNames", [&](std::string_view n) { return n == request.name; }));
}

std::vector<json::value> rules_for(const UserInfo& user, std::string_view ns, const RbacObjects& objects,
                                   std::string& errors) {
  std::vector<json::value> out;
  std::vector<std::string> missing;
  auto collect = [&](const json::value& binding, std::string_view binding_ns) {
    if (applying_subject(user, binding, binding_ns) == nullptr) return;
    if (const json::array* rules = rules_of(bound_role(binding, binding_ns, objects, missing)); rules != nullptr) {
      out.insert(out.end(), rules->begin(), rules->end());
    }
  };
  objects.cluster_role_bindings([&](const json::value& b) { collect(b, ""); });
  if (!ns.empty()) objects.role_bindings(ns, [&](const json::value& b) { collect(b, ns); });
  errors = missing.empty() ? std::string() : aggregate(missing);
  return out;
}

Decision authorize(const Attributes& request, const RbacObjects& objects) {
  if (request.user.is_master()) return {true, ""};
  Visitor visitor(request, objects);
  bool done = false;
  objects.cluster_role_bindings([&](const json::value& b) {
    if (!done) done = visitor.binding(b, "");
  });
  if (!done && !request.ns.empty()) {
    objects.role_bindings(request.ns, [&](const json::value& b) {
      if (!done) done = visitor.binding(b, request.ns);
    });
  }
  return visitor.finish();
}

}  // namespace kueuepp::kube::server::auth

#include "kube/visibility/visibility_api.hpp"

#include <charconv>

#include "kube/json/json.hpp"

namespace kueuepp::kube::visibility {

namespace {

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

bool known_version(std::string_view v) { return v == "v1beta2" || v == "v1beta1"; }

std::string group_version(std::string_view version) { return std::string(kGroup) + "/" + std::string(version); }

/// Decodes %XX escapes and '+' (a query value as Go's url.ParseQuery reads it).
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (r.ec == std::errc() && r.ptr == s.data() + i + 3) {
        out += static_cast<char>(v);
        i += 2;
      } else {
        out += s[i];
      }
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Go's strconv.ParseInt(s, 10, 64), with its error words.
Expected<std::int64_t> parse_int(const std::string& s) {
  std::int64_t v = 0;
  const char* begin = s.data();
  if (!s.empty() && s[0] == '+') ++begin;
  auto r = std::from_chars(begin, s.data() + s.size(), v);
  if (s.empty() || r.ptr != s.data() + s.size()) {
    return fail("strconv.ParseInt: parsing " + json::dump(json::value(s)) + ": invalid syntax");
  }
  if (r.ec == std::errc::result_out_of_range) {
    return fail("strconv.ParseInt: parsing " + json::dump(json::value(s)) + ": value out of range");
  }
  return v;
}

json::object status(int code, std::string_view reason, std::string message) {
  json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object{};
  o["status"] = "Failure";
  o["message"] = std::move(message);
  o["reason"] = reason;
  o["code"] = code;
  return o;
}

json::object resource(std::string_view name, std::string_view singular, bool namespaced, std::string_view verb,
                      std::string_view kind = "PendingWorkloadsSummary") {
  json::object o;
  o["name"] = name;
  o["singularName"] = singular;
  o["namespaced"] = namespaced;
  o["kind"] = json::value(kind);
  json::array verbs;
  if (!verb.empty()) verbs.push_back(json::value(verb));
  o["verbs"] = std::move(verbs);
  return o;
}

json::object version_entry(std::string_view version) {
  return json::object{{"groupVersion", group_version(version)}, {"version", version}};
}

}  // namespace

Route route_of(std::string_view path) {
  auto s = segments(path);
  Route r;
  if (s.size() == 1 && (s[0] == "healthz" || s[0] == "readyz" || s[0] == "livez")) {
    r.kind = RouteKind::Health;
    return r;
  }
  if (s.empty() || s[0] != "apis") return r;
  if (s.size() == 1) {
    r.kind = RouteKind::GroupList;
    return r;
  }
  if (s[1] != kGroup) return r;
  if (s.size() == 2) {
    r.kind = RouteKind::Group;
    return r;
  }
  if (!known_version(s[2])) return r;
  r.version = std::string(s[2]);
  if (s.size() == 3) {
    r.kind = RouteKind::ResourceList;
    return r;
  }
  if (s.size() == 6 && s[3] == "clusterqueues" && s[5] == "pendingworkloads") {
    r.kind = RouteKind::ClusterQueuePending;
    r.name = std::string(s[4]);
    return r;
  }
  if (s.size() == 8 && s[3] == "namespaces" && s[5] == "localqueues" &&
      (s[7] == "pendingworkloads" || s[7] == "whatif")) {
    r.kind = s[7] == "whatif" ? RouteKind::LocalQueueWhatIf : RouteKind::LocalQueuePending;
    r.ns = std::string(s[4]);
    r.name = std::string(s[6]);
    return r;
  }
  return r;
}

Expected<core::PageBounds> parse_page_query(std::string_view query) {
  std::int64_t limit = 0;
  std::int64_t offset = 0;
  bool seen_limit = false;
  bool seen_offset = false;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    std::size_t eq = pair.find('=');
    std::string key = unescape(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? std::string() : unescape(pair.substr(eq + 1));
    // Go's url.Values keeps every value; the conversion reads the first.
    if (key == "limit" && !seen_limit) {
      seen_limit = true;
      auto v = parse_int(value);
      if (!v) return unexpected(v.error());
      limit = *v;
    } else if (key == "offset" && !seen_offset) {
      seen_offset = true;
      auto v = parse_int(value);
      if (!v) return unexpected(v.error());
      offset = *v;
    }
  }
  if (limit == 0) limit = core::kDefaultPendingWorkloadsLimit;
  return core::bounded_page(limit, offset);
}

std::string encode_summary(std::string_view version, const std::vector<PendingWorkloadItem>& items) {
  json::object o;
  o["kind"] = "PendingWorkloadsSummary";
  o["apiVersion"] = group_version(version);
  o["metadata"] = json::object{};
  json::array list;
  list.reserve(items.size());
  for (const auto& item : items) {
    json::object meta;
    meta["name"] = item.name;
    meta["namespace"] = item.ns;
    if (!item.owner_references.empty()) {
      json::array owners;
      for (const auto& ref : item.owner_references) {
        owners.push_back(json::object{
            {"apiVersion", ref.api_version}, {"kind", ref.kind}, {"name", ref.name}, {"uid", ref.uid}});
      }
      meta["ownerReferences"] = std::move(owners);
    }
    if (!item.creation_timestamp.empty()) {
      meta["creationTimestamp"] = item.creation_timestamp;
    } else {
      meta["creationTimestamp"] = nullptr;  // Go's zero metav1.Time marshals as null
    }
    json::object w;
    w["metadata"] = std::move(meta);
    w["priority"] = item.priority;
    w["localQueueName"] = item.local_queue;
    w["positionInClusterQueue"] = item.position_in_cluster_queue;
    w["positionInLocalQueue"] = item.position_in_local_queue;
    list.push_back(std::move(w));
  }
  o["items"] = std::move(list);
  return json::dump(o);
}

std::string encode_group() {
  json::object o;
  o["kind"] = "APIGroup";
  o["apiVersion"] = "v1";
  o["name"] = kGroup;
  o["versions"] = json::array{version_entry("v1beta2"), version_entry("v1beta1")};
  o["preferredVersion"] = version_entry("v1beta2");
  return json::dump(o);
}

std::string encode_group_list() {
  auto group = json::parse(encode_group());
  json::object g = group->as_object();
  g.erase("kind");
  g.erase("apiVersion");
  json::object o;
  o["kind"] = "APIGroupList";
  o["apiVersion"] = "v1";
  o["groups"] = json::array{std::move(g)};
  return json::dump(o);
}

std::string encode_resource_list(std::string_view version) {
  json::object o;
  o["kind"] = "APIResourceList";
  o["apiVersion"] = "v1";
  o["groupVersion"] = group_version(version);
  o["resources"] = json::array{resource("clusterqueues", "clusterqueue", false, ""),
                               resource("clusterqueues/pendingworkloads", "", false, "get"),
                               resource("localqueues", "localqueue", true, ""),
                               resource("localqueues/pendingworkloads", "", true, "get"),
                               resource("localqueues/whatif", "", true, "create", "WhatIfResult")};
  return json::dump(o);
}

std::string status_not_found(std::string_view resource_name, std::string_view name) {
  json::object o = status(404, "NotFound",
                          std::string(resource_name) + "." + std::string(kGroup) + " " +
                              json::dump(json::value(std::string(name))) + " not found");
  o["details"] = json::object{{"name", name}, {"group", kGroup}, {"kind", resource_name}};
  return json::dump(o);
}

std::string status_bad_request(std::string_view message) { return json::dump(status(400, "BadRequest", std::string(message))); }

std::string status_unauthorized() { return json::dump(status(401, "Unauthorized", "Unauthorized")); }

std::string status_forbidden(std::string_view user, std::string_view verb, std::string_view resource_name,
                             std::string_view subresource, std::string_view name, std::string_view ns,
                             std::string_view reason) {
  auto quoted = [](std::string_view s) { return json::dump(json::value(std::string(s))); };
  std::string what = std::string(resource_name);
  if (!subresource.empty()) what += "/" + std::string(subresource);
  std::string message = std::string(resource_name) + "." + std::string(kGroup) + " " + quoted(name) +
                        " is forbidden: User " + quoted(user) + " cannot " + std::string(verb) + " resource " +
                        quoted(what) + " in API group " + quoted(kGroup);
  message += ns.empty() ? " at the cluster scope" : " in the namespace " + quoted(ns);
  if (!reason.empty()) message += ": " + std::string(reason);
  json::object o = status(403, "Forbidden", std::move(message));
  o["details"] = json::object{{"name", name}, {"group", kGroup}, {"kind", resource_name}};
  return json::dump(o);
}

std::string status_internal(std::string_view message) {
  return json::dump(status(500, "InternalError", "Internal error occurred: " + std::string(message)));
}

std::string status_unavailable(std::string_view message) {
  return json::dump(status(503, "ServiceUnavailable", std::string(message)));
}

std::string status_timeout(std::string_view message) {
  return json::dump(status(504, "Timeout", std::string(message)));
}

std::string status_too_many_requests(std::string_view message, int retry_after_seconds) {
  json::object o = status(429, "TooManyRequests", std::string(message));
  o["details"] = json::object{{"retryAfterSeconds", retry_after_seconds}};
  return json::dump(o);
}

std::string status_path_not_found() { return json::dump(status(404, "NotFound", "the server could not find the requested resource")); }

std::string status_method_not_allowed(std::string_view method) {
  return json::dump(status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource (" +
                                                        std::string(method) + ")"));
}

}  // namespace kueuepp::kube::visibility

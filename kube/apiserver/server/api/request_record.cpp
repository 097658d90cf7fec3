#include "kube/apiserver/server/api/request_record.hpp"

#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

std::string verb_of_method(std::string_view method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";  // what RBAC sees for other methods
}

/// The X of a field selector requiring `metadata.name=X` (or `==`) among its terms.
std::string name_from_field_selector(std::string_view selector) {
  while (!selector.empty()) {
    std::size_t comma = selector.find(',');
    std::string_view term = selector.substr(0, comma);
    selector = comma == std::string_view::npos ? std::string_view() : selector.substr(comma + 1);
    for (std::string_view prefix : {"metadata.name==", "metadata.name="}) {
      if (term.substr(0, prefix.size()) == prefix) {
        std::string_view name = term.substr(prefix.size());
        // Only a name that could be a path segment names an object (RequestInfoFactory).
        if (!name.empty() && path_segment_problems(name).empty()) return std::string(name);
        return "";
      }
    }
  }
  return "";
}

/// The namespace segment of the path: /namespaces/<ns>/... names it, and a Namespace is
/// in itself (GET /api/v1/namespaces/X is in namespace X for RBAC).
std::string namespace_of(const RequestInfo& info) {
  const auto& p = info.parts;
  std::size_t i = info.prefix == "apis" ? 3 : 2;  // after /api/<v> or /apis/<g>/<v>
  if (i < p.size() && p[i] == "watch") ++i;
  if (i + 1 < p.size() && p[i] == "namespaces") return p[i + 1];
  return "";
}

class ObservedResponder final : public Responder {
 public:
  ObservedResponder(ResponderPtr inner, ApiRequestRecord record, RequestObserver observer)
      : inner_(std::move(inner)), record_(std::move(record)), observer_(std::move(observer)) {}

  void respond(HttpResponse response) override {
    report(response.status);
    inner_->respond(std::move(response));
  }

  std::shared_ptr<StreamSink> stream(int status, std::string content_type, http::Headers headers) override {
    report(status);
    return inner_->stream(status, std::move(content_type), std::move(headers));
  }

 private:
  void report(int status) {
    if (reported_) return;
    reported_ = true;
    record_.status = status;
    observer_(record_);
  }

  ResponderPtr inner_;
  ApiRequestRecord record_;
  RequestObserver observer_;
  bool reported_ = false;
};

}  // namespace

ApiRequestRecord request_record(const HttpRequest& request, const RequestInfo& info, const Query& query) {
  ApiRequestRecord r;
  r.group = info.group;
  r.version = info.version;
  r.resource = info.resource;
  r.subresource = info.subresource;
  r.ns = namespace_of(info);
  r.name = info.name;
  r.user_agent = std::string(request.header("user-agent"));
  r.verb = info.watch_path ? "watch" : verb_of_method(request.method);
  if (r.verb == "get" && query.flag("watch")) r.verb = "watch";
  if (r.name.empty() && r.verb == "get") {
    r.verb = "list";
    r.name = name_from_field_selector(query.get_or("fieldSelector", ""));
  } else if (r.name.empty() && r.verb == "watch" && !info.watch_path) {
    r.name = name_from_field_selector(query.get_or("fieldSelector", ""));
  }
  if (r.name.empty() && r.verb == "delete") r.verb = "deletecollection";
  return r;
}

ResponderPtr observed_responder(ResponderPtr responder, ApiRequestRecord record, RequestObserver observer) {
  return std::make_shared<ObservedResponder>(std::move(responder), std::move(record), std::move(observer));
}

}  // namespace kueuepp::kube::server

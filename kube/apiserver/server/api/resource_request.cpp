#include "kube/apiserver/server/api/resource_request.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"
#include "kube/apiserver/server/util/yaml_emit.hpp"

namespace kueuepp::kube::server {

std::string ResourceRequest::key() const { return object_key(type->namespaced ? info.ns : "", info.name); }

ErrorSubject ResourceRequest::subject(std::string_view name) const {
  return ErrorSubject{type->group, type->plural, name};
}

std::string ResourceRequest::field_manager() const {
  if (auto m = query.get("fieldManager"); m && !m->empty()) return std::string(*m);
  std::string_view agent = http.header("user-agent");
  std::string_view product = agent.substr(0, agent.find('/'));
  if (product.empty()) return "unknown";
  return std::string(product);
}

bool ResourceRequest::dry_run() const { return query.get_or("dryRun", "") == "All"; }

http::Headers warning_headers(const std::vector<std::string>& warnings) {
  http::Headers out;
  for (const auto& w : warnings) {
    std::string escaped;
    for (char c : w) {
      if (c == '"' || c == '\\') escaped.push_back('\\');
      escaped.push_back(c);
    }
    out.emplace_back("Warning", fmt::format("299 - \"{}\"", escaped));
  }
  return out;
}

void respond_error(Responder& responder, const ApiError& error, Representation rep) {
  HttpResponse res;
  res.status = error.code;
  json::value status = to_status(error);
  if (rep == Representation::Yaml) {
    res.content_type = "application/yaml";
    res.body = to_yaml(status);
  } else {
    res.body = json::dump(status);
  }
  res.headers = error.headers;
  responder.respond(std::move(res));
}

void respond_value(const ResourceRequest& r, int status, const json::value& body,
                   const std::vector<std::string>& warnings) {
  HttpResponse res;
  res.status = status;
  res.headers = warning_headers(warnings);
  if (r.rep == Representation::Yaml) {
    res.content_type = "application/yaml";
    res.body = to_yaml(body);
  } else {
    res.body = json::dump(body);
  }
  r.responder->respond(std::move(res));
}

namespace {

/// respond_object for an object the CRD's conversion webhook must convert first: the
/// answer is sent once it has (or the failure, as kube-apiserver sends it).
void respond_converted(const ResourceRequest& r, int status, const ObjectPtr& stored,
                       const std::vector<std::string>& warnings) {
  convert_for_view({stored}, r.view(),
                   [responder = r.responder, type = r.type, rep = r.rep, status, warnings,
                    include = std::string(r.query.get_or("includeObject", "Metadata"))](
                       ApiResult<std::vector<json::value>> converted) {
                     if (!converted) return respond_error(*responder, converted.error(), rep);
                     const json::value& doc = converted->front();
                     HttpResponse res;
                     res.status = status;
                     res.headers = warning_headers(warnings);
                     if (rep == Representation::Table) {
                       res.content_type = content_type_of(Representation::Table);
                       res.body = json::dump(make_table({&doc.as_object()}, *type, include, ""));
                     } else if (rep == Representation::Yaml) {
                       res.content_type = "application/yaml";
                       res.body = to_yaml(doc);
                     } else {
                       res.body = json::dump(doc);
                     }
                     responder->respond(std::move(res));
                   });
}

}  // namespace

void respond_object(const ResourceRequest& r, int status, const ObjectPtr& stored,
                    const std::vector<std::string>& warnings) {
  const StoredObject& object = *stored;
  if (r.rep != Representation::PartialMetadata && needs_webhook_conversion(object, r.view())) {
    return respond_converted(r, status, stored, warnings);
  }
  switch (r.rep) {
    case Representation::Json: {
      HttpResponse res;
      res.status = status;
      res.headers = warning_headers(warnings);
      if (!presented_as_stored(object, r.view())) {
        res.body = object_json(object, r.view());
      } else {
        res.shared_body = std::shared_ptr<const std::string>(stored, &object.json);  // owned by the version
      }
      r.responder->respond(std::move(res));
      return;
    }
    case Representation::Table: {
      const json::value doc = object.document();
      const json::object& obj = doc.as_object();
      HttpResponse res;
      res.status = status;
      res.content_type = content_type_of(Representation::Table);
      res.headers = warning_headers(warnings);
      res.body = json::dump(make_table({&obj}, r.view(), r.query.get_or("includeObject", "Metadata"), ""));
      r.responder->respond(std::move(res));
      return;
    }
    case Representation::PartialMetadata:
      respond_value(r, status, partial_metadata(object, r.view()), warnings);
      return;
    default:
      respond_value(r, status, object_value(object, r.view()), warnings);
  }
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/api/webhook_conversion.hpp"

#include "kube/apiserver/server/api/object_encoding.hpp"

namespace kueuepp::kube::server {

namespace {

std::string_view api_version_of(const json::value& doc) {
  const json::value* v = doc.is_object() ? json::find(doc, "apiVersion") : nullptr;
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

}  // namespace

bool needs_webhook_conversion(const StoredObject& object, const ResourceType& view) {
  if (!view.custom || !view.converter || !view.converter->calls_webhook()) return false;
  return api_version_of(object.doc) != view.api_version();
}

ApiError conversion_failed(std::string message) {
  ApiError e;
  e.code = 500;
  e.message = std::move(message);
  return e;
}

void convert_for_view(const std::vector<ObjectPtr>& objects, const ResourceType& view, ConvertedObjects done) {
  std::vector<json::value> docs;
  docs.reserve(objects.size());
  for (const auto& o : objects) docs.push_back(o->document());
  if (!view.converter) {
    for (std::size_t i = 0; i < docs.size(); ++i) docs[i] = object_value(*objects[i], view);
    return done(std::move(docs));
  }
  view.converter->convert(std::move(docs), view.version, [done = std::move(done)](Expected<std::vector<json::value>> out) {
    if (!out) return done(unexpected(conversion_failed(out.error().message)));
    done(std::move(*out));
  });
}

}  // namespace kueuepp::kube::server

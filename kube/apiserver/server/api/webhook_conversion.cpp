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

void old_for_view(const ObjectPtr& old, const ResourceType& view, std::function<void(ApiResult<ObjectPtr>)> done) {
  if (!old || !needs_webhook_conversion(*old, view)) return done(old);
  convert_for_view({old}, view, [old, done = std::move(done)](ApiResult<std::vector<json::value>> converted) {
    if (!converted) return done(unexpected(std::move(converted).error()));
    // No validation stamp: the stored one is of the storage version's schema.
    done(make_stored(std::move(converted->front()), old->rv));
  });
}

bool needs_storage_conversion(const json::value& obj, const ResourceType& view) {
  if (!view.custom || !view.converter || !view.converter->calls_webhook()) return false;
  return api_version_of(obj) != view.storage_api_version();
}

void convert_for_storage(json::value obj, const ResourceType& view, std::function<void(ApiResult<json::value>)> done) {
  std::vector<json::value> one;
  one.push_back(std::move(obj));
  view.converter->convert(std::move(one), view.storage_version, [done = std::move(done)](Expected<std::vector<json::value>> out) {
    if (!out) return done(unexpected(conversion_failed(out.error().message)));
    done(std::move(out->front()));
  });
}

}  // namespace kueuepp::kube::server

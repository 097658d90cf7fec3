#include "kube/apiserver/server/api/internal_writes.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/api/write_path.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

Status upsert_object(ServerContext& ctx, const ResourceType& type, json::value obj, std::string_view manager) {
  std::vector<std::string> warnings;
  WriteContext w;
  w.view = &type;
  w.field_validation = FieldValidation::Ignore;
  w.warnings = &warnings;
  json::object& o = obj.as_object();
  o["kind"] = type.kind;
  o["apiVersion"] = type.api_version();
  std::string ns(meta_string(o, "namespace"));
  std::string name(meta_string(o, "name"));
  auto describe = [&](const ApiError& e) {
    return fmt::format("{} \"{}\": {}", type.kind, ns.empty() ? name : ns + "/" + name, e.message);
  };
  auto decoded = type.strategy->decode(std::move(obj), w);
  if (!decoded) return fail(describe(decoded.error()));
  BucketId bucket = ctx.bucket_of(type);
  ObjectPtr old = ctx.store.get(bucket, object_key(type.namespaced ? ns : "", name));
  if (!old) {
    auto prepared = prepare_create(ctx, type, std::move(*decoded), w, ns, manager);
    if (!prepared) return fail(describe(prepared.error()));
    ctx.commit(ctx.store.put(bucket, std::move(*prepared)));
    return {};
  }
  metadata_of(decoded->as_object()).erase("resourceVersion");
  bool unchanged = false;
  auto prepared = prepare_update(ctx, type, std::move(*decoded), *old, w, manager, false, nullptr, &unchanged);
  if (!prepared) return fail(describe(prepared.error()));
  if (unchanged) return {};
  ctx.commit(ctx.store.put(bucket, std::move(*prepared)));
  return {};
}

void write_back(ServerContext& ctx, const ResourceType& type, const StoredObject& current, json::value next) {
  BucketId bucket = ctx.bucket_of(type);
  json::object& o = next.as_object();
  metadata_of(o).erase("resourceVersion");
  order_metadata(o);
  if (same_content(o, current.doc.as_object())) return;
  if (!meta_string(o, "deletionTimestamp").empty() && !type.strategy->holds_deletion(o)) {
    ctx.commit(ctx.store.remove(bucket, current.key));
    return;
  }
  ctx.commit(ctx.store.put(bucket, std::move(next)));
}

}  // namespace kueuepp::kube::server

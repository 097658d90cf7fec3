// GET of one object and LIST of a collection (with selectors, pagination and
// resourceVersion semantics).

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/list_options.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/store/continue_token.hpp"
#include "kube/apiserver/server/util/yaml_emit.hpp"

namespace kueuepp::kube::server {

namespace {

/// Where a list reads: the resourceVersion of its snapshot (0: now) and the key to
/// continue after.
struct ListPosition {
  std::uint64_t at_rv = 0;
  std::string after;
};

ApiResult<ListPosition> list_position(const ResourceRequest& r, std::size_t limit) {
  const ObjectStore& store = r.ctx.store;
  std::string_view rv_text = r.query.get_or("resourceVersion", "");
  std::string_view match = r.query.get_or("resourceVersionMatch", "");
  std::string_view cont = r.query.get_or("continue", "");
  if (!match.empty() && rv_text.empty()) {
    FieldErrors errs{forbidden_error("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")};
    return api_fail(invalid("meta.k8s.io", "ListOptions", "", errs));
  }
  if (!match.empty() && match != "Exact" && match != "NotOlderThan") {
    FieldErrors errs{not_supported_error("resourceVersionMatch", json::value(match), {"Exact", "NotOlderThan", ""})};
    return api_fail(invalid("meta.k8s.io", "ListOptions", "", errs));
  }
  if (!cont.empty()) {
    if (!rv_text.empty() && rv_text != "0") {
      FieldErrors errs{forbidden_error("resourceVersion", "specifying resource version is not allowed when using continue")};
      return api_fail(invalid("meta.k8s.io", "ListOptions", "", errs));
    }
    auto token = decode_continue(cont);
    if (!token) return api_fail(bad_request(fmt::format("invalid continue token: {}", token.error().message)));
    if (token->rv < store.compacted_rv()) {
      return api_fail(gone("The provided continue parameter is too old to display a consistent list result. "
                           "You can start a new list without the continue parameter."));
    }
    return ListPosition{token->rv, token->after};
  }
  auto rv = parse_resource_version(rv_text);
  if (!rv) return unexpected(rv.error());
  if (!*rv || **rv == 0) return ListPosition{};
  std::uint64_t want = **rv;
  if (want > store.current_rv()) {
    ApiError e = timeout(fmt::format("Too large resource version: {}, current: {}", want, store.current_rv()));
    e.headers.emplace_back("Retry-After", "1");
    e.details = json::object{{"causes", json::array{json::object{{"reason", "ResourceVersionTooLarge"},
                                                                 {"message", "Too large resource version"}}}},
                             {"retryAfterSeconds", 1}};
    return api_fail(std::move(e));
  }
  bool exact = match == "Exact" || (match.empty() && limit > 0);
  if (!exact) return ListPosition{};
  if (want < store.compacted_rv()) {
    return api_fail(gone(fmt::format("The resourceVersion for the provided list is too old.")));
  }
  return ListPosition{want, {}};
}

/// The list's JSON; `item_json(i)` is the i-th item's.
template <class ItemJson>
std::string list_body_json(const ResourceType& view, std::size_t count, const ItemJson& item_json, std::uint64_t list_rv,
                           const std::string& continue_token, std::optional<std::size_t> remaining) {
  json::object meta;
  meta["resourceVersion"] = std::to_string(list_rv);
  if (!continue_token.empty()) meta["continue"] = continue_token;
  if (remaining) meta["remainingItemCount"] = *remaining;
  std::string body;
  body.reserve(128 + count * 1024);
  body.append(R"({"kind":")").append(view.list_kind).append(R"(","apiVersion":")");
  body.append(view.api_version()).append(R"(","metadata":)").append(json::dump(meta));
  body.append(R"(,"items":[)");
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) body.push_back(',');
    body.append(item_json(i));
  }
  body.append("]}");
  return body;
}

std::string list_body_json(const ResourceRequest& r, const std::vector<ObjectPtr>& items, std::uint64_t list_rv,
                           const std::string& continue_token, std::optional<std::size_t> remaining) {
  return list_body_json(
      r.view(), items.size(), [&](std::size_t i) { return object_json(*items[i], r.view()); }, list_rv, continue_token,
      remaining);
}

/// A list whose items the CRD's conversion webhook converts first (in one call); the
/// whole list fails when one item does not convert, as in kube-apiserver.
void respond_converted_list(const RequestPtr& r, const std::vector<ObjectPtr>& items, std::uint64_t list_rv,
                            std::string token, std::optional<std::size_t> remaining) {
  convert_for_view(items, r->view(), [r, list_rv, token = std::move(token), remaining](
                                         ApiResult<std::vector<json::value>> converted) {
    if (!converted) return respond_error(*r->responder, converted.error(), r->rep);
    const std::vector<json::value>& docs = *converted;
    if (r->rep == Representation::Table) {
      std::vector<const json::object*> objs;
      objs.reserve(docs.size());
      for (const auto& d : docs) objs.push_back(&d.as_object());
      HttpResponse res;
      res.content_type = content_type_of(Representation::Table);
      res.body = json::dump(make_table(objs, r->view(), r->query.get_or("includeObject", "Metadata"),
                                       std::to_string(list_rv), token));
      r->responder->respond(std::move(res));
      return;
    }
    std::string body = list_body_json(
        r->view(), docs.size(), [&](std::size_t i) { return json::dump(docs[i]); }, list_rv, token, remaining);
    if (r->rep == Representation::Json) {
      HttpResponse res;
      res.body = std::move(body);
      r->responder->respond(std::move(res));
      return;
    }
    respond_value(*r, 200, *json::parse(body));
  });
}

}  // namespace

void handle_get(const RequestPtr& r) {
  ObjectPtr obj = r->ctx.store.get(r->bucket, r->key());
  if (!obj) {
    respond_error(*r->responder, not_found(r->subject()), r->rep);
    return;
  }
  respond_object(*r, 200, obj);
}

void handle_list(const RequestPtr& r) {
  if (auto st = check_integer_params(r->query, {"timeoutSeconds"}); !st) {
    return respond_error(*r->responder, st.error(), r->rep);
  }
  auto filter = filter_of(*r);
  if (!filter) return respond_error(*r->responder, filter.error(), r->rep);
  std::size_t limit = 0;
  if (auto l = r->query.get("limit")) {
    long long v = 0;
    auto [p, ec] = std::from_chars(l->data(), l->data() + l->size(), v);
    if (ec != std::errc() || p != l->data() + l->size()) {
      return respond_error(*r->responder, bad_request(fmt::format("invalid limit: \"{}\"", *l)), r->rep);
    }
    limit = v > 0 ? static_cast<std::size_t>(v) : 0;
  }
  auto pos = list_position(*r, limit);
  if (!pos) return respond_error(*r->responder, pos.error(), r->rep);
  const ObjectStore& store = r->ctx.store;
  std::uint64_t list_rv = pos->at_rv != 0 ? pos->at_rv : store.current_rv();
  std::string prefix = scan_prefix(r->view(), *filter);
  std::optional<std::string_view> only_name = filter->fields.required_value("metadata.name");

  std::vector<ObjectPtr> items;
  bool more = false;
  std::size_t remaining = 0;
  store.scan(r->bucket, prefix, pos->after, pos->at_rv, [&](const ObjectPtr& o) {
    if (only_name && o->name != *only_name) return true;
    if (!filter->matches(*o)) return true;
    if (limit > 0 && items.size() >= limit) {
      more = true;
      ++remaining;
      return true;
    }
    items.push_back(o);
    return true;
  });
  std::string token;
  if (more) token = encode_continue(ContinueToken{list_rv, items.back()->key});
  bool can_count = filter->labels.empty() && filter->fields.empty();
  std::optional<std::size_t> remaining_count;
  if (more && can_count) remaining_count = remaining;

  if (r->rep != Representation::PartialMetadata &&
      std::any_of(items.begin(), items.end(), [&](const ObjectPtr& o) { return needs_webhook_conversion(*o, r->view()); })) {
    return respond_converted_list(r, items, list_rv, std::move(token), remaining_count);
  }
  switch (r->rep) {
    case Representation::Table: {
      std::vector<json::value> docs;
      docs.reserve(items.size());
      for (const auto& o : items) docs.push_back(o->document());
      std::vector<const json::object*> objs;
      objs.reserve(items.size());
      for (const auto& d : docs) objs.push_back(&d.as_object());
      HttpResponse res;
      res.content_type = content_type_of(Representation::Table);
      res.body = json::dump(make_table(objs, r->view(), r->query.get_or("includeObject", "Metadata"),
                                       std::to_string(list_rv), token));
      r->responder->respond(std::move(res));
      return;
    }
    case Representation::Json: {
      HttpResponse res;
      res.body = list_body_json(*r, items, list_rv, token, remaining_count);
      r->responder->respond(std::move(res));
      return;
    }
    default: {
      auto parsed = json::parse(list_body_json(*r, items, list_rv, token, remaining_count));
      json::value body = std::move(*parsed);
      if (r->rep == Representation::PartialMetadata) {
        json::array metas;
        for (const auto& o : items) metas.push_back(partial_metadata(*o, r->view()));
        body.as_object()["items"] = std::move(metas);
        body.as_object()["kind"] = "PartialObjectMetadataList";
        body.as_object()["apiVersion"] = "meta.k8s.io/v1";
      }
      respond_value(*r, 200, body);
      return;
    }
  }
}

}  // namespace kueuepp::kube::server

#include "kube/apiserver/server/conversion/crd_converter.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kube/apiserver/server/conversion/conversion_review.hpp"
#include "kube/apiserver/server/util/ids.hpp"

namespace kueuepp::kube::server {

namespace {
// A list read in another version comes back whole in one answer.
constexpr std::size_t kMaxConversionResponseBytes = std::size_t{512} << 20;
}  // namespace

namespace {

std::string_view api_version_of(const json::value& obj) {
  const json::value* v = obj.is_object() ? json::find(obj, "apiVersion") : nullptr;
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

/// The review version kube-apiserver would pick: the first it speaks, in the CRD's order.
std::string review_version_of(const CrdConversion& c) {
  for (const auto& v : c.review_versions) {
    if (v == "v1" || v == "v1beta1") return v;
  }
  return {};
}

}  // namespace

CrdConversion read_crd_conversion(const json::object& crd) {
  CrdConversion out;
  if (const json::value* meta = crd.if_contains("metadata")) out.crd_name = std::string(json::get_string(*meta, "name"));
  const json::value* spec = crd.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) return out;
  out.group = std::string(json::get_string(*spec, "group"));
  if (const json::value* names = json::find(*spec, "names")) out.kind = std::string(json::get_string(*names, "kind"));
  if (const json::value* versions = json::find(*spec, "versions"); versions != nullptr && versions->is_array()) {
    for (const auto& v : versions->as_array()) {
      std::string name(json::get_string(v, "name"));
      if (const json::value* doc = json::find_path(v, {"schema", "openAPIV3Schema"})) {
        // A schema that does not compile is reported where the version is served.
        if (auto compiled = schema::compile(*doc)) out.schemas.emplace(name, std::move(*compiled));
      }
      out.versions.push_back(std::move(name));
    }
  }
  const json::value* conversion = json::find(*spec, "conversion");
  if (conversion == nullptr || json::get_string(*conversion, "strategy") != "Webhook") return out;
  out.webhook = true;
  if (const json::value* webhook = json::find(*conversion, "webhook"); webhook != nullptr && webhook->is_object()) {
    if (const json::value* cc = json::find(*webhook, "clientConfig")) out.client = read_client_config(*cc);
    if (const json::value* rv = json::find(*webhook, "conversionReviewVersions"); rv != nullptr && rv->is_array()) {
      for (const auto& v : rv->as_array()) {
        if (v.is_string()) out.review_versions.emplace_back(v.get_string());
      }
    }
  }
  return out;
}

CrdConverter::CrdConverter(CrdConversion conversion, ConversionCalls calls)
    : conversion_(std::move(conversion)), calls_(std::move(calls)) {}

void CrdConverter::convert(std::vector<json::value> objects, const std::string& version, Done done) const {
  const std::string desired = fmt::format("{}/{}", conversion_.group, version);
  auto known = [&](std::string_view api_version) {
    if (api_version.substr(0, api_version.find('/')) != conversion_.group) return false;
    std::string_view v = api_version.substr(api_version.find('/') + 1);
    return std::find(conversion_.versions.begin(), conversion_.versions.end(), v) != conversion_.versions.end();
  };
  if (!known(desired)) return done(fail(fmt::format("request to convert CR to an invalid group/version: {}", desired)));
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    std::string_view from = api_version_of(objects[i]);
    if (!known(from)) {
      if (objects.size() == 1) {
        return done(fail(fmt::format("request to convert CR from an invalid group/version: {}", from)));
      }
      return done(fail(fmt::format("request to convert CR list failed, list index {} has invalid group/version: {}", i, from)));
    }
    if (from != desired) pending.push_back(i);
  }
  if (pending.empty()) return done(std::move(objects));
  if (!conversion_.webhook) {
    for (std::size_t i : pending) objects[i].as_object()["apiVersion"] = desired;
    return done(std::move(objects));
  }
  call_webhook(std::make_shared<std::vector<json::value>>(std::move(objects)), std::move(pending), desired,
               std::move(done));
}

void CrdConverter::call_webhook(std::shared_ptr<std::vector<json::value>> objects, std::vector<std::size_t> pending,
                                const std::string& desired, Done done) const {
  const bool list = objects->size() > 1;
  // Go's GroupVersionKind of what is converted: the (first) object's, or its list's.
  std::string from(api_version_of((*objects)[pending.front()]));
  std::string gvk = fmt::format("{}, Kind={}{}", from, conversion_.kind, list ? "List" : "");
  auto failed = [gvk](std::string_view what) { return fmt::format("conversion webhook for {} {}", gvk, what); };
  std::string review_version = review_version_of(conversion_);
  if (review_version.empty()) return done(fail("no supported conversion review versions"));
  auto target = resolve_webhook_target(conversion_.client, fmt::format("timeout={}s", calls_.timeout.count() / 1000),
                                       calls_.services, calls_.service_host);
  if (!target) return done(fail(failed("failed: " + target.error().message)));
  target->max_response_bytes = kMaxConversionResponseBytes;
  if (calls_.transport == nullptr) return done(fail(failed("failed: no webhook transport")));
  std::vector<const json::value*> sent;
  sent.reserve(pending.size());
  for (std::size_t i : pending) sent.push_back(&(*objects)[i]);
  std::string uid = new_uid();
  std::string body = make_conversion_review(review_version, uid, desired, sent);
  schema::SchemaPtr desired_schema;
  if (auto it = conversion_.schemas.find(desired.substr(desired.find('/') + 1)); it != conversion_.schemas.end()) {
    desired_schema = it->second;
  }
  calls_.transport->post(
      *target, std::move(body), calls_.timeout,
      [objects, pending = std::move(pending), desired, desired_schema, uid, review_version, list, failed,
       done = std::move(done)](Expected<WebhookReply> reply) {
        if (!reply) return done(fail(failed("failed: " + reply.error().message)));
        if (reply->status < 200 || reply->status > 299) return done(fail(failed("failed: " + unsuccessful_answer(*reply))));
        auto converted = read_conversion_response(reply->body, review_version, uid);
        if (!converted) return done(fail(failed("failed: " + converted.error().message)));
        if (converted->size() != pending.size()) {
          return done(fail(failed(fmt::format("returned {} objects, expected {}", converted->size(), pending.size()))));
        }
        for (std::size_t n = 0; n < pending.size(); ++n) {
          json::value& original = (*objects)[pending[n]];
          json::value& answer = (*converted)[n];
          std::string_view invalid = list ? "returned invalid converted object at index" : "returned invalid object at index";
          if (auto st = check_converted_type(original, answer, desired); !st) {
            return done(fail(failed(fmt::format("{} {}: {}", invalid, n, st.error().message))));
          }
          if (auto st = check_converted_identity(original, answer); !st) {
            std::string where = list ? fmt::format("returned invalid converted object at index {}", n)
                                     : std::string("returned invalid object");
            return done(fail(failed(fmt::format("{}: {}", where, st.error().message))));
          }
          auto kept = restore_metadata(original, std::move(answer));
          if (!kept) {
            std::string where = list ? fmt::format("returned invalid metadata in object at index {}", n)
                                     : std::string("returned invalid metadata");
            return done(fail(failed(fmt::format("{}: {}", where, kept.error().message))));
          }
          if (desired_schema) schema::prune(*desired_schema, *kept);
          original = std::move(*kept);
        }
        done(std::move(*objects));
      });
}

}  // namespace kueuepp::kube::server

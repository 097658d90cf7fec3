#include "kube/apiserver/server/store/continue_token.hpp"

#include <fmt/format.h>

#include "core/base64.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

std::string encode_continue(const ContinueToken& token) {
  json::object o;
  o["v"] = "meta.k8s.io/v1";
  o["rv"] = token.rv;
  o["start"] = token.after + std::string(1, '\0');
  return core::base64url_encode(json::dump(o));
}

Expected<ContinueToken> decode_continue(std::string_view text) {
  std::size_t bad = 0;
  auto raw = core::base64url_decode(text, &bad);
  if (!raw) return fail(fmt::format("continue key is not valid: illegal base64 data at input byte {}", bad));
  auto doc = json::parse(*raw);
  if (!doc || !doc->is_object()) return fail("continue key is not valid: not a JSON object");
  if (json::get_string(*doc, "v") != "meta.k8s.io/v1") {
    return fail("continue key is not valid: server does not recognize this encoded key");
  }
  const json::value* rv = json::find(*doc, "rv");
  const json::value* start = json::find(*doc, "start");
  if (rv == nullptr || !rv->is_number() || start == nullptr || !start->is_string()) {
    return fail("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  ContinueToken token;
  boost::system::error_code ec;
  token.rv = rv->to_number<std::uint64_t>(ec);
  if (ec || token.rv == 0) return fail("continue key is not valid: incorrect encoded start resourceVersion");
  std::string after(start->get_string());
  if (after.empty() || after.back() != '\0') return fail("continue key is not valid: missing start key");
  after.pop_back();
  token.after = std::move(after);
  return token;
}

}  // namespace kueuepp::kube::server

// Fuzzes the conversion webhook (kube/conversion): a ConversionReview body as
// kube-apiserver sends it, answered as the webhook server answers it, and each object of
// the request converted on its own both ways. Besides "no crash, no sanitizer report":
// - the answer is a 400 with a reason, or a ConversionReview that echoes the uid and,
//   on Success, holds one object per object sent, each in the desired version;
// - an object converted to the other Kueue version and back is the object it was
//   (the stash's promise: kube-apiserver converts every read and write, so a lossy
//   round trip would change stored objects behind their owners' backs).

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/conversion/conversion_review.hpp"
#include "kube/conversion/kueue_conversion.hpp"
#include "kube/json/json.hpp"

namespace {

namespace json = kueuepp::json;
namespace conversion = kueuepp::kube::conversion;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_answer(const conversion::ConversionHttpAnswer& answer, const json::value* request) {
  if (answer.http_status == 400) {
    check(answer.body.size() > 1);
    return;
  }
  check(answer.http_status == 200);
  check(request != nullptr);
  auto doc = json::parse(answer.body);
  check(doc.has_value() && doc->is_object());
  const json::value* response = json::find(*doc, "response");
  check(response != nullptr && response->is_object());
  check(json::get_string(*response, "uid") == json::get_string(*request, "uid"));
  const json::value* result = json::find(*response, "result");
  check(result != nullptr && result->is_object());
  if (json::get_string(*result, "status") != "Success") {
    check(json::get_string(*result, "status") == "Failure");
    check(!json::get_string(*result, "message").empty());
    return;
  }
  const json::value* converted = json::find(*response, "convertedObjects");
  const json::value* sent = json::find(*request, "objects");
  check(converted != nullptr && converted->is_array());
  const std::size_t sent_count = sent != nullptr && sent->is_array() ? sent->get_array().size() : 0;
  check(converted->get_array().size() == sent_count);
  const std::string_view desired = json::get_string(*request, "desiredAPIVersion");
  for (const json::value& object : converted->get_array()) {
    check(json::get_string(object, "apiVersion") == desired);
  }
}

// There and back: what a converted object comes back as must be the object itself.
void check_round_trip(const json::value& object) {
  const std::string_view from = json::get_string(object, "apiVersion");
  std::string_view to;
  if (from == conversion::kKueueV1beta1) to = conversion::kKueueV1beta2;
  if (from == conversion::kKueueV1beta2) to = conversion::kKueueV1beta1;
  if (to.empty()) return;
  auto there = conversion::convert_kueue_object(object, to);
  if (!there) {
    check(!there.error().message.empty());
    return;
  }
  auto back = conversion::convert_kueue_object(*there, from);
  check(back.has_value());
  check(json::equal(*back, object));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto doc = json::parse(body);
  const json::value* request = doc && doc->is_object() ? json::find(*doc, "request") : nullptr;
  check_answer(conversion::answer_conversion_review(body), request);
  if (request == nullptr) return 0;
  const json::value* objects = json::find(*request, "objects");
  if (objects == nullptr || !objects->is_array()) return 0;
  for (const json::value& object : objects->get_array()) {
    if (object.is_object()) check_round_trip(object);
  }
  return 0;
}

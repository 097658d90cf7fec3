// Fuzzes what the embedded API server reads from the webhooks it calls: an admission
// webhook's AdmissionReview answer and a CRD conversion webhook's ConversionReview answer
// (kube/apiserver/server/admission, kube/apiserver/server/conversion). A webhook is a
// stranger's server: whatever it answers must become kube-apiserver's error, never a
// crash. Besides "no crash, no sanitizer report":
// - an accepted admission answer's patch applies to the object or fails with an error,
//   as the server applies it, and a denial becomes a Status error of code 400 or more;
// - every object of an accepted conversion answer passes the checks the server makes
//   before keeping it, and its metadata put back keeps the original's identity.
// The first byte picks the review version, mutating or not, and admission or conversion;
// the rest is the answer's body.

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/server/admission/admission_review.hpp"
#include "kube/apiserver/server/conversion/conversion_review.hpp"
#include "kube/json/json.hpp"

namespace {

namespace json = kueuepp::json;
namespace server = kueuepp::kube::server;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

constexpr std::string_view kUid = "705ab4f5-6393-11e8-b7cc-42010a800002";

const json::value& original() {
  static const json::value doc = *json::parse(
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"team",)"
      R"("uid":"u-1","resourceVersion":"7","labels":{"a":"b"}},"spec":{"queueName":"q"}})");
  return doc;
}

void admission(std::string_view body, bool v1, bool mutating) {
  auto answer = server::read_admission_response(body, kUid, v1 ? "v1" : "v1beta1", mutating);
  if (!answer) {
    (void)server::webhook_call_failed("hook.example.com", answer.error().message);
    return;
  }
  check(mutating || answer->patch.empty());
  if (!answer->patch.empty()) {
    if (auto ops = json::parse(answer->patch)) (void)kueuepp::kube::patch::json_patch(original(), *ops);
  }
  if (!answer->allowed) {
    auto error = server::webhook_denied("hook.example.com", answer->result);
    check(error.code >= 400);
  }
}

void conversion(std::string_view body, bool v1) {
  auto converted = server::read_conversion_response(body, v1 ? "v1" : "v1beta1", kUid);
  if (!converted) return;
  for (json::value& object : *converted) {
    if (!server::check_converted_type(original(), object, "kueue.x-k8s.io/v1beta1")) continue;
    if (!server::check_converted_identity(original(), object)) continue;
    auto kept = server::restore_metadata(original(), std::move(object));
    if (!kept) continue;
    check(json::get_string(*json::find(*kept, "metadata"), "uid") == "u-1");
    check(json::get_string(*json::find(*kept, "metadata"), "resourceVersion") == "7");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool v1 = (mode & 1U) != 0;
  if ((mode & 4U) != 0) {
    conversion(body, v1);
  } else {
    admission(body, v1, (mode & 2U) != 0);
  }
  return 0;
}

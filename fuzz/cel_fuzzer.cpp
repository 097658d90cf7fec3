// Fuzzes the CEL interpreter of x-kubernetes-validations rules (kube/apiserver/schema/cel):
// a CRD's author writes the expressions and any client writes the objects they are
// evaluated on. The input is an expression, optionally followed by a line "---" and the
// JSON document `self` is bound to (oldSelf is bound to the same document, changed).
// Compile errors and runtime errors are fine; a crash, a sanitizer report, or an
// evaluation past its cost limit is not.

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/apiserver/schema/cel/program.hpp"
#include "kube/json/json.hpp"

namespace {

namespace json = kueuepp::json;
namespace cel = kueuepp::kube::schema::cel;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// Reads the whole result, as a caller rendering it into a message would.
void walk(const cel::Value& v, int depth) {
  if (depth > 64) return;
  switch (v.kind()) {
    case cel::Kind::List:
      for (std::size_t i = 0; i < v.size(); ++i) walk(v.element(i), depth + 1);
      break;
    case cel::Kind::Map:
      for (std::size_t i = 0; i < v.size(); ++i) {
        walk(v.key_at(i), depth + 1);
        walk(v.value_at(i), depth + 1);
      }
      break;
    case cel::Kind::Optional:
      if (v.has_value()) walk(v.optional_value(), depth + 1);
      break;
    default:
      (void)v.text().size();
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find("\n---\n");
  const std::string_view source = input.substr(0, cut);
  json::value self = nullptr;
  if (cut != std::string_view::npos) {
    if (auto doc = json::parse(input.substr(cut + 5))) self = std::move(*doc);
  }
  json::value old_self = self;
  if (old_self.is_object()) old_self.get_object()["fuzz"] = 1;

  auto program = cel::Program::compile(source, {"self", "oldSelf"});
  if (!program) return 0;
  const cel::Value variables[] = {cel::Value::from_json(self, nullptr), cel::Value::from_json(old_self, nullptr)};
  constexpr std::uint64_t kLimit = 100'000;
  auto result = (*program)->evaluate(variables, kLimit);
  walk(result.value, 0);
  // The limit stops an evaluation at the first step past it.
  if (!result.value.is_error()) check(result.cost <= kLimit);
  // Without the memo the result is the same (share_subexpressions is not called: no slots).
  auto again = (*program)->evaluate(variables, kLimit);
  check(again.value.kind() == result.value.kind());
  check(again.cost == result.cost);
  return 0;
}

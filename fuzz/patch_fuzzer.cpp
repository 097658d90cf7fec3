// Fuzzes the four patch types of the API server (kube/apiserver/patch), which apply a
// client's request body to a stored object: JSON merge patch, JSON patch, strategic
// merge patch and server-side apply (with managedFields bookkeeping, record_update).
// The input is a patch document, optionally preceded by the object to patch and a line
// "---" (else a small Job). Every patch type is applied to every input (a JSON patch must
// be an array, the others objects: the wrong shape must be refused, not crash).
// Invariants besides "no crash": merging into a copy equals merging in place, an empty
// patch changes nothing, and applying the same configuration twice (forced) is stable.

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/json.hpp"

namespace {

namespace json = kueuepp::json;
namespace patch = kueuepp::kube::patch;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

constexpr std::string_view kDefaultTarget = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j",
"namespace":"ns","labels":{"a":"b"},"finalizers":["f"]},"spec":{"parallelism":2,"template":{"spec":{
"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}]}}}})";

// Lists keyed the way kubectl's built-in kinds are, for any kind (as if every object had
// containers, env and ports).
patch::ListStrategy any_strategy(patch::FieldPath path) {
  if (path.empty()) return {};
  const std::string& last = path.back();
  if (last == "containers" || last == "env" || last == "conditions") return {patch::ListStrategy::Kind::Map, {"name"}};
  if (last == "ports") {
    return {patch::ListStrategy::Kind::Map, {"containerPort", "protocol"}, json::object{{"protocol", "TCP"}}};
  }
  if (last == "finalizers" || last == "args") return {patch::ListStrategy::Kind::Set, {}};
  return {};
}

void merge_patches(const json::value& target, const json::value& p) {
  auto merged = patch::merge_patch(target, p);
  json::value in_place = target;
  auto into = patch::merge_patch_into(in_place, p);
  check(merged.has_value() == into.has_value());
  if (merged) check(json::equal(*merged, in_place));
  static constexpr std::string_view kOmit[] = {"metadata", "managedFields"};
  json::value moved = p;
  (void)patch::merge_patch(target, std::move(moved), kOmit);
  auto empty = patch::merge_patch(target, json::object{});
  check(empty.has_value() && json::equal(*empty, target));
}

void json_patches(const json::value& target, const json::value& ops) {
  auto patched = patch::json_patch(target, ops);
  if (!patched) check(!patched.error().message.empty());
  auto empty = patch::json_patch(target, json::array{});
  check(empty.has_value() && json::equal(*empty, target));
}

void strategic_patches(const json::value& target, const json::value& p) {
  const patch::ListStrategyResolver resolvers[] = {any_strategy, patch::builtin_list_strategies("batch", "Job"),
                                                   patch::builtin_list_strategies("", "Pod")};
  for (const auto& lists : resolvers) {
    auto merged = patch::strategic_merge_patch(target, p, lists);
    if (merged) check(merged->is_object());
    auto empty = patch::strategic_merge_patch(target, json::object{}, lists);
    check(empty.has_value() && json::equal(*empty, target));
  }
}

void apply(const json::value& live, const json::value& config, bool force) {
  if (!config.is_object()) return;
  json::value tracked = live;
  patch::record_update(tracked, nullptr, "creator", "batch/v1", "2024-01-01T00:00:00Z", {}, any_strategy);
  patch::ApplyRequest request{&tracked, &config, "applier", force, "batch/v1", "2024-01-01T00:00:01Z", any_strategy};
  auto applied = patch::server_side_apply(request);
  if (!applied) {
    check(!applied.error().message.empty());
    return;
  }
  request.live = &*applied;
  request.force = true;
  auto again = patch::server_side_apply(request);
  check(again.has_value());
  check(json::equal(*again, *applied));
  json::value next = *applied;
  patch::record_update(next, &*applied, "writer", "batch/v1", "2024-01-01T00:00:02Z", {}, any_strategy);

  // The built-in kinds' own tables, with a create (no live object).
  patch::ApplyRequest create{nullptr, &config, "applier", force, "batch/v1", "2024-01-01T00:00:01Z", {}};
  (void)patch::server_side_apply(create);
  json::value recorded = live;
  patch::record_update(recorded, &tracked, "writer", "batch/v1", "2024-01-01T00:00:02Z");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find("\n---\n");
  json::value target;
  std::string_view patch_text = input;
  if (cut != std::string_view::npos) {
    auto parsed = json::parse(input.substr(0, cut));
    if (!parsed) return 0;
    target = std::move(*parsed);
    if (!target.is_object()) target = json::object{{"spec", target}};
    patch_text = input.substr(cut + 5);
  } else {
    target = *json::parse(kDefaultTarget);
  }
  auto p = json::parse(patch_text);
  if (!p) return 0;
  merge_patches(target, *p);
  json_patches(target, *p);
  strategic_patches(target, *p);
  // An applied configuration that sets managedFields is refused; without them more inputs
  // get as far as the merge. The configuration as sent is applied too.
  apply(target, *p, size % 2 == 0);
  json::value config = *p;
  if (json::value* meta = json::find(config, "metadata"); meta != nullptr && meta->is_object()) {
    meta->as_object().erase("managedFields");
  }
  apply(target, config, size % 2 == 0);
  return 0;
}

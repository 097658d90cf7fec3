// RFC 6902 JSON patch.
//
// Two passes, as kube-apiserver does: the document is first decoded as a list of
// operations whose `op`/`path`/`from` are strings (a failure there is a malformed request,
// 400); then the operations are applied in order to a copy of the target (any failure is
// 422 and the target is untouched: the patch is all or nothing).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/json_order.hpp"
#include "kube/apiserver/patch/json_pointer.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch {
namespace {

using detail::JsonPointer;
using Cause = PatchError::Cause;

// At most this many characters of a value are quoted in a message.
constexpr std::size_t kQuoteLimit = 120;

std::string quote_value(const json::value& v) {
  std::string s = json::dump(v);
  if (s.size() > kQuoteLimit) s = s.substr(0, kQuoteLimit) + "...";
  return s;
}

// Where an operation failed, prefixed to every message: `operation 2 (test /spec/x): `.
struct OpContext {
  std::size_t index = 0;
  std::string_view op;
  std::string_view path;

  std::string prefix() const {
    return "json patch operation " + std::to_string(index) + " (" + std::string(op) + " " +
           std::string(path) + "): ";
  }
  Unexpected<PatchError> fail(Cause cause, std::string_view pointer, const std::string& what) const {
    return detail::invalid(std::string(pointer), prefix() + what, cause);
  }
};

// ---- pass 1: decoding ------------------------------------------------------------

// Checks that every operation is an object whose op/path/from, when present, are strings.
Expected<void, PatchError> decode_shape(const json::value& ops) {
  const json::array* list = ops.if_array();
  if (list == nullptr) {
    return detail::bad_request("", std::string("error decoding patch: a JSON patch must be an array of "
                                               "operations, got ") +
                                       detail::kind_name(ops));
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json::object* op = (*list)[i].if_object();
    if (op == nullptr) {
      return detail::bad_request("", "error decoding patch: operation " + std::to_string(i) +
                                         " must be an object, got " + detail::kind_name((*list)[i]));
    }
    for (std::string_view member : {"op", "path", "from"}) {
      const json::value* v = json::find((*list)[i], member);
      if (v != nullptr && !v->is_string()) {
        return detail::bad_request("", "error decoding patch: operation " + std::to_string(i) + ": \"" +
                                           std::string(member) + "\" must be a string, got " +
                                           detail::kind_name(*v));
      }
    }
  }
  return {};
}

// ---- pointer resolution ----------------------------------------------------------

// The child `token` of `parent`, or why there is none.
Expected<json::value*, PatchError> child(json::value& parent, const std::string& token, const OpContext& ctx,
                                         const JsonPointer& pointer) {
  if (json::object* o = parent.if_object()) {
    auto it = o->find(token);
    if (it == o->end()) {
      return ctx.fail(Cause::PathNotFound, pointer.text,
                      "path \"" + pointer.text + "\" does not exist (no member \"" + token + "\")");
    }
    return &it->value();
  }
  if (json::array* a = parent.if_array()) {
    const auto index = detail::parse_array_index(token);
    if (!index) {
      return ctx.fail(Cause::PathNotFound, pointer.text,
                      "path \"" + pointer.text + "\" does not exist (\"" + token + "\" is not an array index)");
    }
    if (*index >= a->size()) {
      return ctx.fail(Cause::IndexOutOfRange, pointer.text,
                      "path \"" + pointer.text + "\" does not exist (index " + token + " is out of range, the array has " +
                          std::to_string(a->size()) + " elements)");
    }
    return &(*a)[*index];
  }
  return ctx.fail(Cause::NotAContainer, pointer.text,
                  "path \"" + pointer.text + "\" does not exist (\"" + token + "\" is inside a " +
                      detail::kind_name(parent) + ")");
}

// Follows the first `count` tokens of `pointer`.
Expected<json::value*, PatchError> locate(json::value& doc, const JsonPointer& pointer, std::size_t count,
                                          const OpContext& ctx) {
  json::value* cur = &doc;
  for (std::size_t i = 0; i < count; ++i) {
    auto next = child(*cur, pointer.tokens[i], ctx, pointer);
    if (!next) return next;
    cur = *next;
  }
  return cur;
}

// ---- the operations --------------------------------------------------------------

Expected<void, PatchError> do_add(json::value& doc, const JsonPointer& path, json::value value,
                                  const OpContext& ctx) {
  if (path.tokens.empty()) {
    doc = std::move(value);
    return {};
  }
  auto parent = locate(doc, path, path.tokens.size() - 1, ctx);
  if (!parent) return unexpected(std::move(parent).error());
  const std::string& last = path.tokens.back();
  if (json::object* o = (*parent)->if_object()) {
    (*o)[last] = std::move(value);
    return {};
  }
  if (json::array* a = (*parent)->if_array()) {
    if (last == "-") {
      a->push_back(std::move(value));
      return {};
    }
    const auto index = detail::parse_array_index(last);
    if (!index) {
      return ctx.fail(Cause::PathNotFound, path.text, "\"" + last + "\" is not an array index");
    }
    if (*index > a->size()) {
      return ctx.fail(Cause::IndexOutOfRange, path.text,
                      "index " + last + " is out of range, the array has " + std::to_string(a->size()) + " elements");
    }
    a->insert(a->begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
    return {};
  }
  return ctx.fail(Cause::NotAContainer, path.text,
                  "cannot add \"" + last + "\" to a " + std::string(detail::kind_name(**parent)));
}

// Removes the value at `path` and hands it back (move uses it).
Expected<json::value, PatchError> do_remove(json::value& doc, const JsonPointer& path, const OpContext& ctx) {
  if (path.tokens.empty()) {
    return ctx.fail(Cause::Malformed, path.text, "the whole document cannot be removed");
  }
  auto parent = locate(doc, path, path.tokens.size() - 1, ctx);
  if (!parent) return unexpected(std::move(parent).error());
  const std::string& last = path.tokens.back();
  if (json::object* o = (*parent)->if_object()) {
    auto it = o->find(last);
    if (it == o->end()) {
      return ctx.fail(Cause::PathNotFound, path.text, "path \"" + path.text + "\" does not exist");
    }
    json::value removed = std::move(it->value());
    o->stable_erase(it);
    return removed;
  }
  auto target = child(**parent, last, ctx, path);  // arrays and scalars: same checks as reads
  if (!target) return unexpected(std::move(target).error());
  json::array& a = (*parent)->get_array();
  json::value removed = std::move(**target);
  a.erase(a.begin() + (*target - a.data()));
  return removed;
}

Expected<void, PatchError> do_replace(json::value& doc, const JsonPointer& path, json::value value,
                                      const OpContext& ctx) {
  auto target = locate(doc, path, path.tokens.size(), ctx);
  if (!target) return unexpected(std::move(target).error());
  **target = std::move(value);
  return {};
}

Expected<void, PatchError> do_move(json::value& doc, const JsonPointer& from, const JsonPointer& path,
                                   const OpContext& ctx) {
  if (detail::is_proper_prefix(from, path)) {
    return ctx.fail(Cause::Malformed, path.text,
                    "cannot move \"" + from.text + "\" into one of its own children");
  }
  if (from.tokens == path.tokens) {  // a no-op, but `from` must still exist
    auto source = locate(doc, from, from.tokens.size(), ctx);
    if (!source) return unexpected(std::move(source).error());
    return {};
  }
  auto value = do_remove(doc, from, ctx);
  if (!value) return unexpected(std::move(value).error());
  return do_add(doc, path, std::move(*value), ctx);
}

Expected<void, PatchError> do_copy(json::value& doc, const JsonPointer& from, const JsonPointer& path,
                                   const OpContext& ctx) {
  auto source = locate(doc, from, from.tokens.size(), ctx);
  if (!source) return unexpected(std::move(source).error());
  json::value value = **source;  // copied before `add` may move things around
  return do_add(doc, path, std::move(value), ctx);
}

Expected<void, PatchError> do_test(json::value& doc, const JsonPointer& path, const json::value& expected,
                                   const OpContext& ctx) {
  auto target = locate(doc, path, path.tokens.size(), ctx);
  if (!target) return unexpected(std::move(target).error());
  if (!json::json_equal(**target, expected)) {
    return ctx.fail(Cause::TestFailed, path.text,
                    "test failed: the value is " + quote_value(**target) + ", not " + quote_value(expected));
  }
  return {};
}

// ---- pass 2: one operation ---------------------------------------------------------

Expected<JsonPointer, PatchError> pointer_member(const json::value& op, std::string_view member,
                                                 const OpContext& ctx) {
  const json::value* v = json::find(op, member);
  if (v == nullptr) {
    return ctx.fail(Cause::Malformed, "", "missing \"" + std::string(member) + "\"");
  }
  auto pointer = detail::parse_pointer(json::get_string(op, member));
  if (!pointer) {
    PatchError e = std::move(pointer).error();
    e.message = ctx.prefix() + e.message;
    return unexpected(std::move(e));
  }
  return pointer;
}

Expected<void, PatchError> apply_one(json::value& doc, const json::value& op, std::size_t index) {
  OpContext ctx{index, json::get_string(op, "op"), json::get_string(op, "path")};
  if (json::find(op, "op") == nullptr) return ctx.fail(Cause::Malformed, "", "missing \"op\"");

  auto path = pointer_member(op, "path", ctx);
  if (!path) return unexpected(std::move(path).error());

  const std::string_view name = ctx.op;
  const json::value* value = json::find(op, "value");
  const bool needs_value = name == "add" || name == "replace" || name == "test";
  const bool needs_from = name == "move" || name == "copy";
  if (!needs_value && !needs_from && name != "remove") {
    return ctx.fail(Cause::Malformed, path->text,
                    "unknown operation \"" + std::string(name) +
                        "\" (expected add, remove, replace, move, copy or test)");
  }
  if (needs_value && value == nullptr) return ctx.fail(Cause::Malformed, path->text, "missing \"value\"");

  if (needs_from) {
    auto from = pointer_member(op, "from", ctx);
    if (!from) return unexpected(std::move(from).error());
    return name == "move" ? do_move(doc, *from, *path, ctx) : do_copy(doc, *from, *path, ctx);
  }
  if (name == "add") return do_add(doc, *path, *value, ctx);
  if (name == "replace") return do_replace(doc, *path, *value, ctx);
  if (name == "test") return do_test(doc, *path, *value, ctx);
  auto removed = do_remove(doc, *path, ctx);
  if (!removed) return unexpected(std::move(removed).error());
  return {};
}

}  // namespace

Expected<json::value, PatchError> json_patch(const json::value& target, const json::value& ops) {
  if (auto shape = decode_shape(ops); !shape) return unexpected(std::move(shape).error());
  json::value doc = target;
  const json::array& list = ops.get_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (auto applied = apply_one(doc, list[i], i); !applied) return unexpected(std::move(applied).error());
  }
  return doc;
}

}  // namespace kueuepp::kube::patch

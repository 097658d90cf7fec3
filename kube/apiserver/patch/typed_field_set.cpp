// The field set of an applied configuration (structured-merge-diff's ToFieldSet).

#include <string>
#include <unordered_set>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/typed_ops.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

class FieldSetWalker {
 public:
  explicit FieldSetWalker(const ApplySchema& schema) : schema_(schema) {}

  Expected<void, PatchError> object_members(const json::object& object) {
    for (const auto& m : object) {
      path_.push_field(m.key());
      auto done = value(m.value());
      // Objects that are null or empty are owned as such (there is no leaf below them).
      const json::object* o = m.value().if_object();
      if (done && (m.value().is_null() || (o != nullptr && o->empty()))) set_.insert(path_.elements);
      path_.pop_field();
      if (!done) return done;
    }
    return {};
  }

  Expected<void, PatchError> value(const json::value& v) {
    if (path_.depth > kMaxDepth) return too_deep(display_path(path_.elements));
    if (const json::object* o = v.if_object()) {
      if (schema_.atomic_object(path_.schema_path())) {
        set_.insert(path_.elements);
        return {};
      }
      return object_members(*o);
    }
    if (const json::array* a = v.if_array()) return list(*a);
    set_.insert(path_.elements);
    return {};
  }

  Expected<void, PatchError> list(const json::array& items) {
    const ListStrategy strategy = schema_.list(path_.schema_path());
    if (strategy.kind == ListStrategy::Kind::Atomic) {
      set_.insert(path_.elements);
      return {};
    }
    std::unordered_set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto pe = schema_.element(items[i], strategy, /*strict=*/true);
      if (!pe) {
        return bad_request(display_path(path_.elements), "invalid applied configuration at " +
                                                             display_path(path_.elements) + ": element " +
                                                             std::to_string(i) + ": " + pe.error().message);
      }
      if (!seen.insert(pe->serialize()).second) {
        return bad_request(display_path(path_.elements), "invalid applied configuration at " +
                                                             display_path(path_.elements) +
                                                             ": duplicate entries for key " + pe->display());
      }
      path_.push_element(std::move(*pe));
      auto done = value(items[i]);
      if (done) set_.insert(path_.elements);  // every element of a granular list is owned
      path_.pop_element();
      if (!done) return done;
    }
    return {};
  }

  FieldSet take() { return std::move(set_); }

 private:
  const ApplySchema& schema_;
  WalkPath path_;
  FieldSet set_;
};

}  // namespace

Expected<FieldSet, PatchError> applied_field_set(const json::value& config, const ApplySchema& schema) {
  FieldSetWalker walker(schema);
  if (const json::object* o = config.if_object()) {
    if (auto done = walker.object_members(*o); !done) return unexpected(std::move(done).error());
  }
  return walker.take();
}

json::value without_nulls(const json::value& v) {
  // Applied configurations come from the parser (at most 256 deep); the recursion is
  // bounded by kMaxDepth all the same (deeper parts are kept as they are).
  struct Strip {
    static json::value run(const json::value& in, int depth) {
      if (depth > kMaxDepth) return in;
      if (const json::object* o = in.if_object()) {
        json::object out;
        out.reserve(o->size());
        for (const auto& m : *o) {
          if (!m.value().is_null()) out.emplace(m.key(), run(m.value(), depth + 1));
        }
        return out;
      }
      if (const json::array* a = in.if_array()) {
        json::array out;
        out.reserve(a->size());
        for (const auto& e : *a) out.push_back(run(e, depth + 1));
        return out;
      }
      return in;
    }
  };
  return Strip::run(v, 0);
}

}  // namespace kueuepp::kube::patch::detail

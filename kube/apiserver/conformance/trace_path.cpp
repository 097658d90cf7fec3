#include "kube/apiserver/conformance/trace_path.hpp"

#include <charconv>

namespace kueuepp::kube::conformance {

bool is_decimal(std::string_view segment) {
  if (segment.empty() || segment.size() > 9) return false;
  for (char c : segment) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

namespace {

std::size_t to_index(std::string_view segment) {
  std::size_t index = 0;
  std::from_chars(segment.data(), segment.data() + segment.size(), index);
  return index;
}

// The child of `v` named by a concrete key segment: an object member, or an array
// element for a decimal segment.
json::value* child(json::value& v, std::string_view key) {
  if (json::object* o = v.if_object()) {
    auto it = o->find(key);
    return it == o->end() ? nullptr : &it->value();
  }
  if (json::array* a = v.if_array(); a && is_decimal(key)) {
    const std::size_t i = to_index(key);
    return i < a->size() ? &(*a)[i] : nullptr;
  }
  return nullptr;
}

void remove_all_children(json::value& v) {
  if (json::object* o = v.if_object()) o->clear();
  else if (json::array* a = v.if_array()) a->clear();
}

template <class F>
void for_each_child(json::value& v, F f) {
  if (json::object* o = v.if_object()) {
    for (auto& kv : *o) f(kv.value());
  } else if (json::array* a = v.if_array()) {
    for (json::value& e : *a) f(e);
  }
}

void remove_key(json::value& v, std::string_view key) {
  if (json::object* o = v.if_object()) {
    o->erase(key);
  } else if (json::array* a = v.if_array(); a && is_decimal(key)) {
    const std::size_t i = to_index(key);
    if (i < a->size()) a->erase(a->begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void remove_at(json::value& v, const TracePath& path, std::size_t i) {
  const PathSegment& seg = path[i];
  const bool last = i + 1 == path.size();
  switch (seg.kind) {
    case PathSegment::Kind::DoubleStar:
      if (last) {
        remove_all_children(v);
        return;
      }
      remove_at(v, path, i + 1);  // `**` as zero segments
      for_each_child(v, [&](json::value& c) { remove_at(c, path, i); });  // one or more
      return;
    case PathSegment::Kind::Star:
      if (last) {
        remove_all_children(v);
        return;
      }
      for_each_child(v, [&](json::value& c) { remove_at(c, path, i + 1); });
      return;
    case PathSegment::Kind::Key:
      if (last) {
        remove_key(v, seg.key);
        return;
      }
      if (json::value* c = child(v, seg.key)) remove_at(*c, path, i + 1);
      return;
  }
}

}  // namespace

Expected<TracePath> parse_trace_path(std::string_view text, PathUse use) {
  TracePath path;
  if (text.empty()) return path;
  std::string current;
  bool escaped_any = false;
  auto finish_segment = [&]() -> Status {
    if (current.empty()) {
      return fail("path \"" + std::string(text) + "\" has an empty segment");
    }
    PathSegment seg;
    if (!escaped_any && current == "*") {
      if (use == PathUse::Exact) {
        return fail("path \"" + std::string(text) + "\": `*` is not allowed here (exact path)");
      }
      seg.kind = PathSegment::Kind::Star;
    } else if (!escaped_any && current == "**") {
      if (use != PathUse::Ignore) {
        return fail("path \"" + std::string(text) + "\": `**` is only allowed in ignore paths");
      }
      seg.kind = PathSegment::Kind::DoubleStar;
    } else {
      seg.key = current;
    }
    path.push_back(std::move(seg));
    current.clear();
    escaped_any = false;
    return {};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 >= text.size() || (text[i + 1] != '.' && text[i + 1] != '\\')) {
        return fail("path \"" + std::string(text) +
                    "\" has a backslash that is not `\\.` or `\\\\`");
      }
      current.push_back(text[++i]);
      escaped_any = true;
    } else if (c == '.') {
      if (Status s = finish_segment(); !s) return unexpected(s.error());
    } else {
      current.push_back(c);
    }
  }
  if (Status s = finish_segment(); !s) return unexpected(s.error());
  return path;
}

std::string render_path(const std::vector<std::string>& keys) {
  if (keys.empty()) return "(whole body)";
  std::string out;
  for (const std::string& key : keys) {
    if (!out.empty()) out.push_back('.');
    for (char c : key) {
      if (c == '.' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
  }
  return out;
}

const json::value* lookup(const json::value& document, const TracePath& path) {
  const json::value* cur = &document;
  for (const PathSegment& seg : path) {
    if (seg.kind != PathSegment::Kind::Key) return nullptr;
    cur = child(const_cast<json::value&>(*cur), seg.key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

void remove_matching(json::value& document, const TracePath& path) {
  if (path.empty()) {
    document = nullptr;
    return;
  }
  remove_at(document, path, 0);
}

bool location_matches(const TracePath& pattern, const std::vector<std::string>& keys) {
  if (pattern.size() != keys.size()) return false;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (pattern[i].kind == PathSegment::Kind::Star) continue;
    if (pattern[i].kind == PathSegment::Kind::DoubleStar || pattern[i].key != keys[i]) return false;
  }
  return true;
}

}  // namespace kueuepp::kube::conformance

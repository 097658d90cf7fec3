#include "kube/apiserver/conformance/placeholders.hpp"

#include "kube/client/url.hpp"

namespace kueuepp::kube::conformance {

namespace {

// Replaces each `${name}` in `text` with render(value); unknown names are errors.
template <class Render>
Expected<std::string> splice(std::string_view text, const Captures& captures, Render render) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find("${", pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('}', open + 2);
    if (close == std::string_view::npos) break;
    const std::string_view name = text.substr(open + 2, close - open - 2);
    auto it = captures.find(name);
    if (it == captures.end()) {
      return fail("placeholder ${" + std::string(name) +
                  "} was not captured by an earlier step");
    }
    out.append(text.substr(pos, open - pos));
    out += render(it->second);
    pos = close + 1;
  }
  out.append(text.substr(pos));
  return out;
}

// "${name}" exactly, with a known name: the name.
std::optional<std::string_view> whole_placeholder(std::string_view text) {
  if (text.size() < 4 || !text.starts_with("${") || !text.ends_with("}")) return std::nullopt;
  const std::string_view name = text.substr(2, text.size() - 3);
  if (name.find('}') != std::string_view::npos || name.find("${") != std::string_view::npos) {
    return std::nullopt;
  }
  return name;
}

}  // namespace

std::string placeholder_text(const json::value& value) {
  if (const json::string* s = value.if_string()) return std::string(*s);
  return json::dump(value);
}

Expected<std::string> substitute_in_path(std::string_view path, const Captures& captures) {
  return splice(path, captures,
                [](const json::value& v) { return client::percent_encode(placeholder_text(v)); });
}

Expected<std::string> substitute_in_text(std::string_view text, const Captures& captures) {
  return splice(text, captures, [](const json::value& v) { return placeholder_text(v); });
}

Expected<json::value> substitute_in_json(const json::value& value, const Captures& captures) {
  if (const json::string* s = value.if_string()) {
    if (auto name = whole_placeholder(*s)) {
      auto it = captures.find(*name);
      if (it == captures.end()) {
        return fail("placeholder ${" + std::string(*name) + "} was not captured by an earlier step");
      }
      return it->second;
    }
    auto text = substitute_in_text(*s, captures);
    if (!text) return unexpected(text.error());
    return json::value(json::string(*text));
  }
  if (const json::object* o = value.if_object()) {
    json::object out;
    for (const auto& [key, child] : *o) {
      auto sub = substitute_in_json(child, captures);
      if (!sub) return sub;
      out[key] = std::move(*sub);
    }
    return json::value(std::move(out));
  }
  if (const json::array* a = value.if_array()) {
    json::array out;
    for (const json::value& child : *a) {
      auto sub = substitute_in_json(child, captures);
      if (!sub) return sub;
      out.push_back(std::move(*sub));
    }
    return json::value(std::move(out));
  }
  return value;
}

}  // namespace kueuepp::kube::conformance

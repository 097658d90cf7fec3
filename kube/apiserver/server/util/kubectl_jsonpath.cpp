#include "kube/apiserver/server/util/kubectl_jsonpath.hpp"

#include <charconv>
#include <string>

namespace kueuepp::kube::server {

namespace {

std::string_view strip_quotes(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

/// Applies one bracket expression ("0", "*", "?(@.k=='v')") to the current values.
std::vector<const json::value*> apply_bracket(const std::vector<const json::value*>& cur, std::string_view expr) {
  std::vector<const json::value*> next;
  for (const json::value* v : cur) {
    const json::array* arr = v->if_array();
    if (expr == "*") {
      if (arr != nullptr) {
        for (const auto& e : *arr) next.push_back(&e);
      } else if (const json::object* o = v->if_object()) {
        for (const auto& kv : *o) next.push_back(&kv.value());
      }
      continue;
    }
    if (arr == nullptr) continue;
    if (expr.substr(0, 2) == "?(" && expr.back() == ')') {
      std::string_view cond = expr.substr(2, expr.size() - 3);
      std::size_t eq = cond.find("==");
      if (cond.substr(0, 2) != "@." || eq == std::string_view::npos) continue;
      std::string_view key = cond.substr(2, eq - 2);
      std::string_view want = strip_quotes(cond.substr(eq + 2));
      for (const auto& e : *arr) {
        const json::value* f = json::find(e, key);
        if (f == nullptr) continue;
        bool match = f->is_string() ? std::string_view(f->get_string()) == want : json::dump(*f) == want;
        if (match) next.push_back(&e);
      }
      continue;
    }
    std::size_t index = 0;
    auto [p, ec] = std::from_chars(expr.data(), expr.data() + expr.size(), index);
    if (ec == std::errc() && p == expr.data() + expr.size() && index < arr->size()) next.push_back(&(*arr)[index]);
  }
  return next;
}

}  // namespace

std::vector<const json::value*> kubectl_jsonpath_select(const json::value& root, std::string_view path) {
  if (!path.empty() && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  std::vector<const json::value*> cur{&root};
  std::size_t i = 0;
  while (i < path.size() && !cur.empty()) {
    if (path[i] == '.') {
      ++i;
      std::size_t end = path.find_first_of(".[", i);
      std::string_view key = path.substr(i, end == std::string_view::npos ? path.size() - i : end - i);
      i = end == std::string_view::npos ? path.size() : end;
      if (key.empty()) continue;
      std::vector<const json::value*> next;
      for (const json::value* v : cur) {
        if (const json::value* f = json::find(*v, key)) next.push_back(f);
      }
      cur = std::move(next);
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) return {};
      cur = apply_bracket(cur, path.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      return {};
    }
  }
  return cur;
}

}  // namespace kueuepp::kube::server

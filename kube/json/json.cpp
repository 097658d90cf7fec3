#include "kube/json/json.hpp"

#include <boost/json/parser.hpp>

namespace kueuepp::json {

Expected<value> parse(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options opts;
  opts.max_depth = 256;
  value v = boost::json::parse(text, ec, {}, opts);
  if (ec) {
    return fail("invalid JSON: " + ec.message());
  }
  return v;
}

std::string dump(const value& v) { return boost::json::serialize(v); }

const value* find(const value& v, std::string_view key) {
  const object* o = v.if_object();
  if (o == nullptr) return nullptr;
  auto it = o->find(key);
  return it == o->end() ? nullptr : &it->value();
}

value* find(value& v, std::string_view key) {
  object* o = v.if_object();
  if (o == nullptr) return nullptr;
  auto it = o->find(key);
  return it == o->end() ? nullptr : &it->value();
}

const value* find_path(const value& v, std::initializer_list<std::string_view> keys) {
  const value* cur = &v;
  for (std::string_view k : keys) {
    cur = find(*cur, k);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string_view get_string(const value& v, std::string_view key, std::string_view fallback) {
  const value* f = find(v, key);
  if (f == nullptr || !f->is_string()) return fallback;
  const string& s = f->get_string();
  return {s.data(), s.size()};
}

}  // namespace kueuepp::json

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
std::string dump(const object& o) { return boost::json::serialize(o); }
std::string dump(const array& a) { return boost::json::serialize(a); }

bool equal(const object& a, const object& b) {
  if (a.size() != b.size()) return false;
  auto at = b.begin();
  for (const auto& member : a) {
    const value* other = nullptr;
    if (at->key() == member.key()) {
      other = &at->value();
    } else {
      auto it = b.find(member.key());
      if (it == b.end()) return false;
      other = &it->value();
    }
    ++at;
    if (!equal(member.value(), *other)) return false;
  }
  return true;
}

bool equal(const array& a, const array& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!equal(a[i], b[i])) return false;
  }
  return true;
}

bool equal(const value& a, const value& b) {
  if (a.is_object() && b.is_object()) return equal(a.get_object(), b.get_object());
  if (a.is_array() && b.is_array()) return equal(a.get_array(), b.get_array());
  return a == b;
}

const value* find(const object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->value();
}

value* find(object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->value();
}

std::string_view get_string(const object& o, std::string_view key, std::string_view fallback) {
  const value* f = find(o, key);
  if (f == nullptr || !f->is_string()) return fallback;
  const string& s = f->get_string();
  return {s.data(), s.size()};
}

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

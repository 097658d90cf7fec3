#include "kube/objects/field_reader.hpp"

#include <charconv>
#include <cmath>

namespace kueuepp::kube {

std::string describe_object(std::string_view kind, const json::value& obj) {
  const json::value* meta = FieldReader::get(&obj, "metadata");
  std::string name = meta ? std::string(json::get_string(*meta, "name")) : "";
  std::string ns = meta ? std::string(json::get_string(*meta, "namespace")) : "";
  return std::string(kind) + " \"" + (ns.empty() ? "" : ns + "/") + name + "\"";
}

std::string sub(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out(path);
  out += '.';
  out += key;
  return out;
}

std::string sub(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

void FieldReader::fail(std::string_view path, std::string_view message) {
  if (!error_.empty()) return;
  error_ = what_ + ": " + std::string(path) + ": " + std::string(message);
}

const json::value* FieldReader::get(const json::value* obj, std::string_view key) {
  if (obj == nullptr) return nullptr;
  const json::value* v = json::find(*obj, key);
  return (v == nullptr || v->is_null()) ? nullptr : v;
}

namespace {
const char* kind_of(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "a list";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}
}  // namespace

const json::object* FieldReader::object(const json::value* v, std::string_view path) {
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    fail(path, std::string("expected an object, got ") + kind_of(*v));
    return nullptr;
  }
  return &v->get_object();
}

const json::array* FieldReader::array(const json::value* v, std::string_view path) {
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    fail(path, std::string("expected a list, got ") + kind_of(*v));
    return nullptr;
  }
  return &v->get_array();
}

std::string FieldReader::string(const json::value* v, std::string_view path, std::string fallback) {
  if (v == nullptr) return fallback;
  if (!v->is_string()) {
    fail(path, std::string("expected a string, got ") + kind_of(*v));
    return fallback;
  }
  const auto& s = v->get_string();
  return std::string(s.data(), s.size());
}

std::optional<std::int64_t> FieldReader::integer(const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) {
    if (v->get_uint64() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(path, "integer out of range");
      return std::nullopt;
    }
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double()) {
    double d = v->get_double();
    if (std::trunc(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
  }
  if (v->is_string()) {
    // Kubernetes decoders do not accept strings for integers; neither do we.
    fail(path, "expected an integer, got a string");
    return std::nullopt;
  }
  fail(path, std::string("expected an integer, got ") + kind_of(*v));
  return std::nullopt;
}

std::optional<bool> FieldReader::boolean(const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  if (!v->is_bool()) {
    fail(path, std::string("expected true or false, got ") + kind_of(*v));
    return std::nullopt;
  }
  return v->get_bool();
}

std::optional<core::Quantity> FieldReader::quantity(const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  std::string text;
  if (v->is_string()) {
    text = std::string(v->get_string().data(), v->get_string().size());
  } else if (v->is_int64()) {
    text = std::to_string(v->get_int64());
  } else if (v->is_uint64()) {
    text = std::to_string(v->get_uint64());
  } else if (v->is_double()) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v->get_double());
    if (ec != std::errc()) {
      fail(path, "quantity is not a finite number");
      return std::nullopt;
    }
    text.assign(buf, p);
  } else {
    fail(path, std::string("expected a quantity (e.g. 500m, 2, 1Gi), got ") + kind_of(*v));
    return std::nullopt;
  }
  auto q = core::Quantity::parse(text);
  if (!q) {
    fail(path, q.error().message);
    return std::nullopt;
  }
  return *q;
}

std::optional<core::Time> FieldReader::time(const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  std::string s = string(v, path);
  if (failed()) return std::nullopt;
  auto t = core::parse_rfc3339(s);
  if (!t) {
    fail(path, t.error().message);
    return std::nullopt;
  }
  return *t;
}

std::vector<std::string> FieldReader::strings(const json::value* v, std::string_view path) {
  std::vector<std::string> out;
  const json::array* a = array(v, path);
  if (a == nullptr) return out;
  for (std::size_t i = 0; i < a->size(); ++i) out.push_back(string(&(*a)[i], sub(path, i)));
  return out;
}

core::Labels FieldReader::string_map(const json::value* v, std::string_view path) {
  core::Labels out;
  const json::object* o = object(v, path);
  if (o == nullptr) return out;
  for (const auto& kv : *o) {
    std::string key(kv.key());
    const json::value& val = kv.value();
    if (val.is_string()) {
      out[key] = std::string(val.get_string().data(), val.get_string().size());
    } else if (val.is_null()) {
      out[key] = "";
    } else {
      fail(sub(path, key), std::string("expected a string, got ") + kind_of(val));
    }
  }
  return out;
}

std::string FieldReader::enumeration(const json::value* v, std::string_view path,
                                     std::initializer_list<std::string_view> allowed,
                                     std::string fallback) {
  if (v == nullptr) return fallback;
  std::string s = string(v, path);
  if (failed()) return fallback;
  for (auto a : allowed) {
    if (s == a) return s;
  }
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  fail(path, "Unsupported value: \"" + s + "\": supported values: " + list);
  return fallback;
}

std::optional<core::LabelSelector> FieldReader::label_selector(const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  if (object(v, path) == nullptr) return std::nullopt;
  core::LabelSelector sel;
  sel.match_labels = string_map(get(v, "matchLabels"), sub(path, "matchLabels"));
  std::string exprs_path = sub(path, "matchExpressions");
  if (const json::array* exprs = array(get(v, "matchExpressions"), exprs_path)) {
    for (std::size_t i = 0; i < exprs->size(); ++i) {
      const json::value& e = (*exprs)[i];
      std::string p = sub(exprs_path, i);
      core::LabelSelectorRequirement req;
      req.key = string(get(&e, "key"), sub(p, "key"));
      std::string op = enumeration(get(&e, "operator"), sub(p, "operator"),
                                   {"In", "NotIn", "Exists", "DoesNotExist"}, "");
      if (op.empty() && !failed()) fail(sub(p, "operator"), "Required value");
      if (op == "In") req.op = core::LabelSelectorRequirement::Op::In;
      if (op == "NotIn") req.op = core::LabelSelectorRequirement::Op::NotIn;
      if (op == "Exists") req.op = core::LabelSelectorRequirement::Op::Exists;
      if (op == "DoesNotExist") req.op = core::LabelSelectorRequirement::Op::DoesNotExist;
      req.values = strings(get(&e, "values"), sub(p, "values"));
      if ((op == "In" || op == "NotIn") && req.values.empty()) {
        fail(sub(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
      }
      sel.match_expressions.push_back(std::move(req));
    }
  }
  if (failed()) return std::nullopt;
  return sel;
}

}  // namespace kueuepp::kube

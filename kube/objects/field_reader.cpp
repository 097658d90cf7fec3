#include "kube/objects/field_reader.hpp"

#include <charconv>
#include <cmath>

namespace kueuepp::kube {

using json::JsonNode;
using json::NodeType;

std::string describe_object(std::string_view kind, JsonNode obj) {
  const JsonNode meta = FieldReader::get(obj, "metadata");
  const JsonNode name = meta.find("name");
  const JsonNode ns = meta.find("namespace");
  std::string out(kind);
  out += " \"";
  if (ns.is_string() && !ns.get_string().empty()) {
    out += ns.get_string();
    out += '/';
  }
  if (name.is_string()) out += name.get_string();
  out += '"';
  return out;
}

std::string describe_object(std::string_view kind, const json::value& obj) { return describe_object(kind, &obj); }

void FieldPath::append_to(std::string& out) const {
  if (parent_ == nullptr) {
    out += text_;
    return;
  }
  parent_->append_to(out);
  if (indexed_) {
    out += '[';
    out += std::to_string(index_);
    out += ']';
    return;
  }
  if (!out.empty()) out += '.';
  out += text_;
}

std::string FieldPath::str() const {
  std::string out;
  append_to(out);
  return out;
}

void FieldReader::fail(const FieldPath& path, std::string_view message) {
  if (!error_.empty()) return;
  error_ = what_ + ": " + path.str() + ": " + std::string(message);
}

const json::value* FieldReader::get(const json::value* obj, std::string_view key) {
  if (obj == nullptr) return nullptr;
  const json::value* v = json::find(*obj, key);
  return (v == nullptr || v->is_null()) ? nullptr : v;
}

JsonNode FieldReader::get(JsonNode obj, std::string_view key) {
  JsonNode v = obj.find(key);
  return v.is_null() ? JsonNode() : v;
}

namespace {
const char* kind_of(JsonNode v) {
  switch (v.type()) {
    case NodeType::Null: return "null";
    case NodeType::Bool: return "a boolean";
    case NodeType::Int64:
    case NodeType::Uint64: return "an integer";
    case NodeType::Double: return "a number";
    case NodeType::String: return "a string";
    case NodeType::Array: return "a list";
    case NodeType::Object: return "an object";
  }
  return "a value";
}
}  // namespace

const json::object* FieldReader::object(const json::value* v, const FieldPath& path) {
  return object(JsonNode(v), path) ? &v->get_object() : nullptr;
}

const json::array* FieldReader::array(const json::value* v, const FieldPath& path) {
  return array(JsonNode(v), path) ? &v->get_array() : nullptr;
}

namespace {
/// `v` when it is of type `want`; absent, with an error naming `expected`, otherwise.
JsonNode of_type(FieldReader& r, JsonNode v, NodeType want, const char* expected, const FieldPath& path) {
  if (!v) return {};
  if (v.type() != want) {
    r.fail(path, std::string("expected ") + expected + ", got " + kind_of(v));
    return {};
  }
  return v;
}
}  // namespace

JsonNode FieldReader::object(JsonNode v, const FieldPath& path) {
  return of_type(*this, v, NodeType::Object, "an object", path);
}

JsonNode FieldReader::array(JsonNode v, const FieldPath& path) { return of_type(*this, v, NodeType::Array, "a list", path); }

std::string FieldReader::string(JsonNode v, const FieldPath& path, std::string fallback) {
  if (!v) return fallback;
  if (!v.is_string()) {
    fail(path, std::string("expected a string, got ") + kind_of(v));
    return fallback;
  }
  return std::string(v.get_string());
}

std::optional<std::int64_t> FieldReader::integer(JsonNode v, const FieldPath& path) {
  if (!v) return std::nullopt;
  switch (v.type()) {
    case NodeType::Int64: return v.get_int64();
    case NodeType::Uint64:
      if (v.get_uint64() > static_cast<std::uint64_t>(INT64_MAX)) {
        fail(path, "integer out of range");
        return std::nullopt;
      }
      return static_cast<std::int64_t>(v.get_uint64());
    case NodeType::Double: {
      double d = v.get_double();
      if (std::trunc(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
      break;
    }
    case NodeType::String:
      // Kubernetes decoders do not accept strings for integers; neither do we.
      fail(path, "expected an integer, got a string");
      return std::nullopt;
    default: break;
  }
  fail(path, std::string("expected an integer, got ") + kind_of(v));
  return std::nullopt;
}

std::optional<bool> FieldReader::boolean(JsonNode v, const FieldPath& path) {
  if (!v) return std::nullopt;
  if (v.type() != NodeType::Bool) {
    fail(path, std::string("expected true or false, got ") + kind_of(v));
    return std::nullopt;
  }
  return v.get_bool();
}

std::optional<core::Quantity> FieldReader::quantity(JsonNode v, const FieldPath& path) {
  if (!v) return std::nullopt;
  std::string text;
  switch (v.type()) {
    case NodeType::String: text = std::string(v.get_string()); break;
    case NodeType::Int64: text = std::to_string(v.get_int64()); break;
    case NodeType::Uint64: text = std::to_string(v.get_uint64()); break;
    case NodeType::Double: {
      char buf[64];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v.get_double());
      if (ec != std::errc()) {
        fail(path, "quantity is not a finite number");
        return std::nullopt;
      }
      text.assign(buf, p);
      break;
    }
    default:
      fail(path, std::string("expected a quantity (e.g. 500m, 2, 1Gi), got ") + kind_of(v));
      return std::nullopt;
  }
  auto q = core::Quantity::parse(text);
  if (!q) {
    fail(path, q.error().message);
    return std::nullopt;
  }
  return *q;
}

std::optional<core::Time> FieldReader::time(JsonNode v, const FieldPath& path) {
  if (!v) return std::nullopt;
  std::string s = string(v, path);
  if (failed()) return std::nullopt;
  auto t = core::parse_rfc3339(s);
  if (!t) {
    fail(path, t.error().message);
    return std::nullopt;
  }
  return *t;
}

std::vector<std::string> FieldReader::strings(JsonNode v, const FieldPath& path) {
  std::vector<std::string> out;
  const JsonNode a = array(v, path);
  if (!a) return out;
  out.reserve(a.size());
  a.for_each_element([&](std::size_t i, JsonNode e) { out.push_back(string(e, sub(path, i))); });
  return out;
}

core::Labels FieldReader::string_map(JsonNode v, const FieldPath& path) {
  core::Labels out;
  const JsonNode o = object(v, path);
  if (!o) return out;
  o.for_each_member([&](std::string_view key, JsonNode val) {
    if (val.is_string()) {
      out[std::string(key)] = std::string(val.get_string());
    } else if (val.is_null()) {
      out[std::string(key)] = "";
    } else {
      fail(sub(path, key), std::string("expected a string, got ") + kind_of(val));
    }
  });
  return out;
}

std::string FieldReader::enumeration(JsonNode v, const FieldPath& path, std::initializer_list<std::string_view> allowed,
                                     std::string fallback) {
  if (!v) return fallback;
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

std::optional<core::LabelSelector> FieldReader::label_selector(JsonNode v, const FieldPath& path) {
  if (!v) return std::nullopt;
  if (!object(v, path)) return std::nullopt;
  core::LabelSelector sel;
  sel.match_labels = string_map(get(v, "matchLabels"), sub(path, "matchLabels"));
  const FieldPath exprs_path = sub(path, "matchExpressions");
  array(get(v, "matchExpressions"), exprs_path).for_each_element([&](std::size_t i, JsonNode e) {
    const FieldPath p = sub(exprs_path, i);
    core::LabelSelectorRequirement req;
    req.key = string(get(e, "key"), sub(p, "key"));
    std::string op = enumeration(get(e, "operator"), sub(p, "operator"), {"In", "NotIn", "Exists", "DoesNotExist"}, "");
    if (op.empty() && !failed()) fail(sub(p, "operator"), "Required value");
    if (op == "In") req.op = core::LabelSelectorRequirement::Op::In;
    if (op == "NotIn") req.op = core::LabelSelectorRequirement::Op::NotIn;
    if (op == "Exists") req.op = core::LabelSelectorRequirement::Op::Exists;
    if (op == "DoesNotExist") req.op = core::LabelSelectorRequirement::Op::DoesNotExist;
    req.values = strings(get(e, "values"), sub(p, "values"));
    if ((op == "In" || op == "NotIn") && req.values.empty()) {
      fail(sub(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
    }
    sel.match_expressions.push_back(std::move(req));
  });
  if (failed()) return std::nullopt;
  return sel;
}

}  // namespace kueuepp::kube

#include "kube/apiserver/schema/cel/value.hpp"

#include <cmath>

#include "kube/apiserver/schema/cel/equality.hpp"

namespace kueuepp::kube::schema::cel {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Null: return "null_type";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Uint: return "uint";
    case Kind::Double: return "double";
    case Kind::String: return "string";
    case Kind::Bytes: return "bytes";
    case Kind::List: return "list";
    case Kind::Map: return "map";
    case Kind::Type: return "type";
    case Kind::Optional: return "optional_type";
    case Kind::Error: return "error";
  }
  return "error";
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.scalar_.b = b;
  return v;
}

Value Value::integer(std::int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.scalar_.i = i;
  return v;
}

Value Value::uinteger(std::uint64_t u) {
  Value v;
  v.kind_ = Kind::Uint;
  v.scalar_.u = u;
  return v;
}

Value Value::real(double d) {
  Value v;
  v.kind_ = Kind::Double;
  v.scalar_.d = d;
  return v;
}

Value Value::borrowed_string(std::string_view s) {
  Value v;
  v.kind_ = Kind::String;
  v.text_ = s;
  return v;
}

namespace {
template <class Heap>
std::shared_ptr<Heap> text_heap(std::string s) {
  auto h = std::make_shared<Heap>();
  h->text = std::move(s);
  return h;
}
}  // namespace

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  auto h = text_heap<Heap>(std::move(s));
  v.text_ = h->text;
  v.heap_ = std::move(h);
  return v;
}

Value Value::bytes(std::string s) {
  Value v = string(std::move(s));
  v.kind_ = Kind::Bytes;
  return v;
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::List;
  auto h = std::make_shared<Heap>();
  h->items = std::move(items);
  v.heap_ = std::move(h);
  return v;
}

Value Value::map(std::vector<Value> keys, std::vector<Value> values) {
  Value v;
  v.kind_ = Kind::Map;
  auto h = std::make_shared<Heap>();
  h->keys = std::move(keys);
  h->items = std::move(values);
  v.heap_ = std::move(h);
  return v;
}

Value Value::type(std::string_view name) {
  Value v;
  v.kind_ = Kind::Type;
  v.text_ = name;
  return v;
}

Value Value::optional_none() {
  Value v;
  v.kind_ = Kind::Optional;
  return v;
}

Value Value::optional_of(Value payload) {
  Value v;
  v.kind_ = Kind::Optional;
  auto h = std::make_shared<Heap>();
  h->items.push_back(std::move(payload));
  v.heap_ = std::move(h);
  return v;
}

Value Value::error(std::string message) {
  Value v = string(std::move(message));
  v.kind_ = Kind::Error;
  return v;
}

Value Value::static_error(std::string_view message) {
  Value v;
  v.kind_ = Kind::Error;
  v.text_ = message;
  return v;
}

Value Value::from_json(const json::value& j, const Shape* shape) {
  Shape::Type t = shape != nullptr ? shape->cel_type() : Shape::Type::Any;
  switch (j.kind()) {
    case boost::json::kind::null:
      return null();
    case boost::json::kind::bool_:
      return boolean(j.get_bool());
    case boost::json::kind::int64:
      if (t == Shape::Type::Number) return real(static_cast<double>(j.get_int64()));
      return integer(j.get_int64());
    case boost::json::kind::uint64:
      if (t == Shape::Type::Number) return real(static_cast<double>(j.get_uint64()));
      if (t == Shape::Type::Integer || t == Shape::Type::IntOrString) {
        return static_error("invalid data, expected an integer within the int64 range");
      }
      return uinteger(j.get_uint64());
    case boost::json::kind::double_: {
      double d = j.get_double();
      if (t == Shape::Type::Integer || t == Shape::Type::IntOrString) {
        // Go decodes an integral JSON number as int64; anything else is not an integer.
        if (std::trunc(d) == d && d >= -9.2233720368547758e18 && d < 9.2233720368547758e18) {
          return integer(static_cast<std::int64_t>(d));
        }
        return static_error("invalid data, expected an integer");
      }
      return real(d);
    }
    case boost::json::kind::string: {
      const json::string& s = j.get_string();
      return borrowed_string(std::string_view(s.data(), s.size()));
    }
    case boost::json::kind::array:
    case boost::json::kind::object: {
      Value v;
      v.kind_ = j.is_array() ? Kind::List : Kind::Map;
      v.json_ = &j;
      v.shape_ = shape;
      return v;
    }
  }
  return null();
}

std::size_t Value::size() const {
  if (json_ != nullptr) return json_->is_array() ? json_->get_array().size() : json_->get_object().size();
  if (!heap_) return 0;
  return heap_->items.size();
}

Value Value::element(std::size_t i) const {
  if (json_ != nullptr) {
    return from_json(json_->get_array()[i], shape_ != nullptr ? shape_->cel_items() : nullptr);
  }
  return heap_->items[i];
}

Value Value::key_at(std::size_t i) const {
  if (json_ != nullptr) {
    const auto& kv = *(json_->get_object().begin() + static_cast<std::ptrdiff_t>(i));
    return borrowed_string(std::string_view(kv.key().data(), kv.key().size()));
  }
  return heap_->keys[i];
}

Value Value::value_at(std::size_t i) const {
  if (json_ != nullptr) {
    const auto& kv = *(json_->get_object().begin() + static_cast<std::ptrdiff_t>(i));
    std::string_view key(kv.key().data(), kv.key().size());
    return from_json(kv.value(), shape_ != nullptr ? shape_->cel_field(key) : nullptr);
  }
  return heap_->items[i];
}

bool Value::find(const Value& key, Value& out) const {
  if (json_ != nullptr) {
    if (!key.is(Kind::String)) return false;
    const json::object& o = json_->get_object();
    auto it = o.find(key.text());
    if (it == o.end()) return false;
    out = from_json(it->value(), shape_ != nullptr ? shape_->cel_field(key.text()) : nullptr);
    return true;
  }
  if (!heap_) return false;
  for (std::size_t i = 0; i < heap_->keys.size(); ++i) {
    Value eq = equals(heap_->keys[i], key);
    if (eq.is(Kind::Bool) && eq.as_bool()) {
      out = heap_->items[i];
      return true;
    }
  }
  return false;
}

bool Value::select(std::string_view name, std::string_view unescaped, Value& out) const {
  return select(name, unescaped, out, nullptr, nullptr);
}

bool Value::select(std::string_view name, std::string_view unescaped, Value& out, const Shape* expected,
                   const Shape* child) const {
  if (json_ != nullptr) {
    bool typed = shape_ != nullptr && shape_ == expected;
    std::string_view key = shape_ != nullptr && shape_->cel_has_properties() ? unescaped : name;
    const json::object& o = json_->get_object();
    auto it = o.find(key);
    if (it == o.end()) return false;
    out = from_json(it->value(), typed ? child : (shape_ != nullptr ? shape_->cel_field(key) : nullptr));
    return true;
  }
  return find(borrowed_string(name), out);
}

Value Value::element(std::size_t i, const Shape* expected, const Shape* child) const {
  if (json_ != nullptr && shape_ != nullptr && shape_ == expected) return from_json(json_->get_array()[i], child);
  return element(i);
}

bool Value::has_value() const { return heap_ && !heap_->items.empty(); }

Value Value::optional_value() const { return has_value() ? heap_->items[0] : Value(); }

Shape::ListType Value::list_type() const {
  return shape_ != nullptr ? shape_->cel_list_type() : Shape::ListType::Atomic;
}

std::span<const std::string> Value::list_map_keys() const {
  return shape_ != nullptr ? shape_->cel_list_map_keys() : std::span<const std::string>{};
}

}  // namespace kueuepp::kube::schema::cel

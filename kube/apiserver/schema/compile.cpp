// openAPIV3Schema (JSON) -> Node tree. Every keyword is checked for its JSON type, every
// pattern and CEL rule compiled once; anything kube-apiserver would not accept or that
// this implementation does not support fails with the schema path.

#include <algorithm>
#include <atomic>
#include <cmath>

#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/node.hpp"

namespace kueuepp::kube::schema {
namespace {

constexpr int kMaxSchemaDepth = 128;  // structural depth of a schema; bounds recursion

// Property lookup order: length first, then bytes.
bool by_length(std::string_view a, std::string_view b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

std::uint8_t type_bits(const Node& n) {
  if (n.int_or_string) return Node::kInteger | Node::kString;
  if (n.type == "object") return Node::kObject;
  if (n.type == "array") return Node::kArray;
  if (n.type == "string") return Node::kString;
  if (n.type == "integer") return Node::kInteger;
  if (n.type == "number") return Node::kNumber;
  if (n.type == "boolean") return Node::kBoolean;
  return 0;
}

// Keywords that change validation semantics and are not supported (upstream forbids
// most of them in structural schemas).
constexpr std::string_view kUnsupported[] = {"$ref", "patternProperties", "dependencies", "additionalItems"};

class Compiler {
 public:
  explicit Compiler(Schema& schema) : schema_(schema) {}

  Status node(const json::value& j, Node& out, const std::string& path, int depth, bool structural) {
    if (depth > kMaxSchemaDepth) return fail(path + ": schema nested too deeply");
    const json::object* o = j.if_object();
    if (o == nullptr) return fail(path + ": must be an object");
    for (auto k : kUnsupported) {
      if (o->contains(k)) return fail(path + "." + std::string(k) + ": not supported");
    }
    if (Status s = scalars(*o, out, path); !s) return s;
    if (Status s = children(*o, out, path, depth, structural); !s) return s;
    if (Status s = extensions(*o, out, path); !s) return s;
    out.types = type_bits(out);
    if (structural) {
      if (Status s = rules(*o, out, path); !s) return s;
    }
    summarize(out);
    return {};
  }

 private:
  // --- typed keyword readers --------------------------------------------------------

  static Status read_string(const json::object& o, std::string_view key, const std::string& path, std::string& out) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    if (!it->value().is_string()) return fail(path + "." + std::string(key) + ": must be a string");
    out = std::string(text(it->value().get_string()));
    return {};
  }

  static Status read_bool(const json::object& o, std::string_view key, const std::string& path, bool& out) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    if (!it->value().is_bool()) return fail(path + "." + std::string(key) + ": must be a boolean");
    out = it->value().get_bool();
    return {};
  }

  static Status read_number(const json::object& o, std::string_view key, const std::string& path,
                            std::optional<double>& out) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    const json::value& v = it->value();
    if (!v.is_number()) return fail(path + "." + std::string(key) + ": must be a number");
    out = v.to_number<double>();
    return {};
  }

  static Status read_count(const json::object& o, std::string_view key, const std::string& path,
                           std::optional<std::int64_t>& out) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    const json::value& v = it->value();
    if (v.is_int64() && v.get_int64() >= 0) {
      out = v.get_int64();
    } else if (v.is_uint64()) {
      out = static_cast<std::int64_t>(std::min<std::uint64_t>(v.get_uint64(), INT64_MAX));
    } else if (v.is_double() && v.get_double() >= 0 && std::trunc(v.get_double()) == v.get_double() &&
               v.get_double() < 9.2e18) {
      out = static_cast<std::int64_t>(v.get_double());
    } else {
      return fail(path + "." + std::string(key) + ": must be a non-negative integer");
    }
    return {};
  }

  static Status read_strings(const json::object& o, std::string_view key, const std::string& path,
                             std::vector<std::string>& out) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    const json::array* a = it->value().if_array();
    if (a == nullptr) return fail(path + "." + std::string(key) + ": must be an array of strings");
    for (const auto& e : *a) {
      if (!e.is_string()) return fail(path + "." + std::string(key) + ": must be an array of strings");
      out.emplace_back(text(e.get_string()));
    }
    return {};
  }

  // --- keywords -------------------------------------------------------------------

  Status scalars(const json::object& o, Node& out, const std::string& path) {
    if (Status s = read_string(o, "type", path, out.type); !s) return s;
    static constexpr std::string_view types[] = {"", "object", "array", "string", "integer", "number", "boolean"};
    if (std::find(std::begin(types), std::end(types), out.type) == std::end(types)) {
      return fail(path + ".type: unsupported type \"" + out.type + "\"");
    }
    if (Status s = read_string(o, "format", path, out.format); !s) return s;
    out.format_kind = parse_format(out.format);
    Status status = read_bool(o, "nullable", path, out.nullable);
    if (status) status = read_bool(o, "exclusiveMinimum", path, out.exclusive_minimum);
    if (status) status = read_bool(o, "exclusiveMaximum", path, out.exclusive_maximum);
    if (status) status = read_bool(o, "uniqueItems", path, out.unique_items);
    if (status) status = read_number(o, "minimum", path, out.minimum);
    if (status) status = read_number(o, "maximum", path, out.maximum);
    if (status) status = read_number(o, "multipleOf", path, out.multiple_of);
    if (status) status = read_count(o, "minLength", path, out.min_length);
    if (status) status = read_count(o, "maxLength", path, out.max_length);
    if (status) status = read_count(o, "minItems", path, out.min_items);
    if (status) status = read_count(o, "maxItems", path, out.max_items);
    if (status) status = read_count(o, "minProperties", path, out.min_properties);
    if (status) status = read_count(o, "maxProperties", path, out.max_properties);
    if (status) status = read_strings(o, "required", path, out.required);
    if (!status) return status;
    if (auto it = o.find("default"); it != o.end()) out.default_value = it->value();
    if (auto it = o.find("enum"); it != o.end()) {
      if (!it->value().is_array()) return fail(path + ".enum: must be an array");
      out.enum_values = it->value().get_array();
    }
    std::string pattern;
    if (Status s = read_string(o, "pattern", path, pattern); !s) return s;
    if (o.contains("pattern")) {
      auto re = Regex::compile(pattern);
      if (!re) return fail(path + ".pattern: " + re.error().message);
      out.pattern = std::move(*re);
    }
    return {};
  }

  Status children(const json::object& o, Node& out, const std::string& path, int depth, bool structural) {
    if (auto it = o.find("properties"); it != o.end()) {
      const json::object* props = it->value().if_object();
      if (props == nullptr) return fail(path + ".properties: must be an object");
      for (const auto& kv : *props) {
        auto child = std::make_unique<Node>();
        std::string child_path = path + ".properties[" + std::string(text(kv.key())) + "]";
        if (Status s = node(kv.value(), *child, child_path, depth + 1, structural); !s) return s;
        out.properties.emplace_back(std::string(text(kv.key())), std::move(child));
      }
      std::sort(out.properties.begin(), out.properties.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out.property_lookup.resize(out.properties.size());
      for (std::uint32_t i = 0; i < out.properties.size(); ++i) out.property_lookup[i] = i;
      std::sort(out.property_lookup.begin(), out.property_lookup.end(), [&](std::uint32_t a, std::uint32_t b) {
        return by_length(out.properties[a].first, out.properties[b].first);
      });
    }
    if (auto it = o.find("items"); it != o.end()) {
      if (it->value().is_array()) return fail(path + ".items: an array of schemas is not supported");
      out.items = std::make_unique<Node>();
      if (Status s = node(it->value(), *out.items, path + ".items", depth + 1, structural); !s) return s;
    }
    if (auto it = o.find("additionalProperties"); it != o.end()) {
      if (it->value().is_bool()) {
        if (it->value().get_bool()) {
          out.additional_properties = std::make_unique<Node>();
        } else {
          out.additional_properties_forbidden = true;
        }
      } else {
        out.additional_properties = std::make_unique<Node>();
        if (Status s = node(it->value(), *out.additional_properties, path + ".additionalProperties", depth + 1,
                            structural);
            !s) {
          return s;
        }
      }
    }
    for (auto [key, list] : {std::pair{"allOf", &out.all_of}, std::pair{"anyOf", &out.any_of},
                             std::pair{"oneOf", &out.one_of}}) {
      auto it = o.find(key);
      if (it == o.end()) continue;
      const json::array* a = it->value().if_array();
      if (a == nullptr) return fail(path + "." + key + ": must be an array");
      for (std::size_t i = 0; i < a->size(); ++i) {
        auto branch = std::make_unique<Node>();
        std::string branch_path = path + "." + key + "[" + std::to_string(i) + "]";
        // Value validations only: x-kubernetes-validations there are not evaluated.
        if (Status s = node((*a)[i], *branch, branch_path, depth + 1, false); !s) return s;
        list->push_back(std::move(branch));
      }
    }
    if (auto it = o.find("not"); it != o.end()) {
      out.not_ = std::make_unique<Node>();
      if (Status s = node(it->value(), *out.not_, path + ".not", depth + 1, false); !s) return s;
    }
    return {};
  }

  Status extensions(const json::object& o, Node& out, const std::string& path) {
    Status status = read_bool(o, "x-kubernetes-preserve-unknown-fields", path, out.preserve_unknown_fields);
    if (status) status = read_bool(o, "x-kubernetes-embedded-resource", path, out.embedded_resource);
    if (status) status = read_bool(o, "x-kubernetes-int-or-string", path, out.int_or_string);
    if (status) status = read_string(o, "x-kubernetes-map-type", path, out.map_type);
    if (status) status = read_strings(o, "x-kubernetes-list-map-keys", path, out.list_map_keys);
    if (!status) return status;
    std::string list_type;
    if (Status s = read_string(o, "x-kubernetes-list-type", path, list_type); !s) return s;
    if (o.contains("x-kubernetes-list-type")) {
      out.list_type_set = true;
      if (list_type == "atomic") {
        out.list_type = cel::Shape::ListType::Atomic;
      } else if (list_type == "set") {
        out.list_type = cel::Shape::ListType::Set;
      } else if (list_type == "map") {
        out.list_type = cel::Shape::ListType::Map;
      } else {
        return fail(path + ".x-kubernetes-list-type: must be atomic, set or map");
      }
    }
    if (!out.list_map_keys.empty() && out.list_type != cel::Shape::ListType::Map) {
      return fail(path + ".x-kubernetes-list-map-keys: requires x-kubernetes-list-type: map");
    }
    if (!out.map_type.empty() && out.map_type != "granular" && out.map_type != "atomic") {
      return fail(path + ".x-kubernetes-map-type: must be granular or atomic");
    }
    return {};
  }

  // --- x-kubernetes-validations ---------------------------------------------------

  // `.spec.foo`, `.spec['a.b']` -> a field path relative to the node carrying the rule
  // (properties as `.name`, map keys as `[key]`), checked against the schema.
  static bool normalize_field_path(std::string_view in, const Node& start, std::string& out) {
    const Node* n = &start;
    out.clear();
    std::size_t i = 0;
    while (i < in.size()) {
      std::string name;
      if (in[i] == '.') {
        std::size_t end = in.find_first_of(".[", i + 1);
        name = std::string(in.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1));
        i = end == std::string_view::npos ? in.size() : end;
      } else if (in[i] == '[' && i + 1 < in.size() && in[i + 1] == '\'') {
        std::size_t j = i + 2;
        while (j < in.size() && !(in[j] == '\'' && in[j - 1] != '\\')) name += in[j++];
        if (j + 1 >= in.size() || in[j + 1] != ']') return false;
        i = j + 2;
      } else {
        return false;
      }
      if (name.empty() || n == nullptr) return false;
      if (!n->properties.empty()) {
        n = n->property(name);
        if (n == nullptr) return false;
        out += out.empty() ? name : "." + name;
      } else if (n->additional_properties) {
        n = n->additional_properties.get();
        out += "[" + name + "]";
      } else {
        return false;
      }
    }
    return true;
  }

  Status rules(const json::object& o, Node& out, const std::string& path) {
    auto it = o.find("x-kubernetes-validations");
    if (it == o.end()) return {};
    const json::array* a = it->value().if_array();
    if (a == nullptr) return fail(path + ".x-kubernetes-validations: must be an array");
    for (std::size_t i = 0; i < a->size(); ++i) {
      std::string rule_path = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
      const json::object* r = (*a)[i].if_object();
      if (r == nullptr) return fail(rule_path + ": must be an object");
      Rule rule;
      Status status = read_string(*r, "rule", rule_path, rule.rule);
      if (status) status = read_string(*r, "message", rule_path, rule.message);
      if (status) status = read_string(*r, "messageExpression", rule_path, rule.message_expression);
      if (status) status = read_string(*r, "reason", rule_path, rule.reason);
      if (status) status = read_string(*r, "fieldPath", rule_path, rule.field_path);
      if (status) status = read_bool(*r, "optionalOldSelf", rule_path, rule.optional_old_self);
      if (!status) return status;
      compile_rule(rule, out, rule_path);
      out.has_transition_rules |= rule.transition();
      out.rules.push_back(std::move(rule));
    }
    std::vector<std::shared_ptr<const cel::Program>> programs;
    std::vector<int> binding;
    for (const Rule& rule : out.rules) {
      programs.push_back(rule.program);
      binding.push_back(rule.optional_old_self ? 1 : 0);
    }
    out.cel_memo_slots = cel::Program::share_subexpressions(programs, binding);
    return {};
  }

  // A rule that does not compile is kept (validate() reports it, as kube-apiserver does
  // for a stored CRD whose rule stopped compiling) and listed in rule_compile_errors.
  void compile_rule(Rule& rule, const Node& node, const std::string& path) {
    auto record = [&](const std::string& error) {
      rule.compile_error = error;
      rule.program.reset();
      schema_.rule_compile_errors.push_back(path + ": " + error);
    };
    static constexpr std::string_view reasons[] = {"", "FieldValueInvalid", "FieldValueForbidden",
                                                   "FieldValueRequired", "FieldValueDuplicate"};
    if (std::find(std::begin(reasons), std::end(reasons), rule.reason) == std::end(reasons)) {
      return record("reason: unsupported value \"" + rule.reason + "\"");
    }
    if (!rule.field_path.empty()) {
      std::string normalized;
      if (!normalize_field_path(rule.field_path, node, normalized)) {
        return record("fieldPath: \"" + rule.field_path + "\" does not refer to a valid field");
      }
      rule.field_path = normalized;
    }
    // self and oldSelf are typed by this node: field selections resolve their schema once.
    const cel::Shape* shapes[] = {&node, &node};
    const std::string_view names[] = {"self", "oldSelf"};
    auto program = cel::Program::compile(rule.rule, names, shapes);
    if (!program) return record(program.error().message);
    rule.program = *program;
    rule.uses_old_self = rule.program->uses(kOldSelf);
    if (!rule.message_expression.empty()) {
      auto message = cel::Program::compile(rule.message_expression, names, shapes);
      if (!message) return record("messageExpression: " + message.error().message);
      rule.message_program = *message;
    }
  }

  static void summarize(Node& n) {
    auto absorb = [&](const Node& c) {
      n.subtree_has_defaults |= c.default_value.has_value() || c.subtree_has_defaults;
      n.subtree_has_rules |= !c.rules.empty() || c.subtree_has_rules;
      n.subtree_has_transition_rules |= c.has_transition_rules || c.subtree_has_transition_rules;
      n.subtree_has_list_invariants |= c.list_type != cel::Shape::ListType::Atomic || c.subtree_has_list_invariants;
      n.subtree_has_embedded |= c.embedded_resource || c.subtree_has_embedded;
    };
    for (const auto& [name, child] : n.properties) absorb(*child);
    if (n.items) absorb(*n.items);
    if (n.additional_properties) absorb(*n.additional_properties);
  }

  Schema& schema_;
};

}  // namespace

const Node* Node::property(std::string_view name) const {
  auto it = std::lower_bound(property_lookup.begin(), property_lookup.end(), name,
                             [&](std::uint32_t i, std::string_view n) { return by_length(properties[i].first, n); });
  if (it == property_lookup.end() || properties[*it].first != name) return nullptr;
  return properties[*it].second.get();
}

const Node* Node::child(std::string_view name) const {
  if (const Node* p = property(name)) return p;
  return additional_properties.get();
}

cel::Shape::Type Node::cel_type() const {
  switch (types) {
    case kInteger | kString: return Type::IntOrString;
    case kObject: return Type::Object;
    case kArray: return Type::Array;
    case kString: return Type::String;
    case kInteger: return Type::Integer;
    case kNumber: return Type::Number;
    case kBoolean: return Type::Boolean;
    default: return Type::Any;
  }
}

Expected<SchemaPtr> compile(const json::value& openapi_v3_schema) {
  static std::atomic<std::uint64_t> last_serial{0};
  auto schema = std::make_shared<Schema>();
  schema->serial = ++last_serial;
  Compiler compiler(*schema);
  if (Status s = compiler.node(openapi_v3_schema, schema->root, "openAPIV3Schema", 0, true); !s) {
    return fail(s.error().message);
  }
  return SchemaPtr(std::move(schema));
}

std::vector<std::string> rule_compile_errors(const Schema& schema) { return schema.rule_compile_errors; }

std::uint64_t serial(const Schema& schema) { return schema.serial; }

}  // namespace kueuepp::kube::schema

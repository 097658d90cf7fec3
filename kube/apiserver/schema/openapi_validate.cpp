// OpenAPI value validation as kube-openapi's SchemaValidator performs it, per node and in
// its order: type, anyOf/allOf/oneOf/not, string (maxLength, minLength, pattern: first
// failure only), format, number (multipleOf, minimum, maximum), array (items first, then
// minItems, maxItems, uniqueItems), enum, object (min/maxProperties, additionalProperties,
// properties, required). Each go-openapi error is converted on the spot the way
// apiextensions' ValidateCustomResource does: Required, NotSupported (enum), TooLong,
// TooMany, TypeInvalid, otherwise Invalid; composite anyOf/oneOf/allOf/not failures are
// reported at the object root (`<nil>`), since they are not field errors upstream.

#include <algorithm>
#include <cmath>
#include <functional>

#include "kube/apiserver/schema/field_errors.hpp"
#include "kube/apiserver/schema/path.hpp"
#include "kube/apiserver/schema/unchanged_parts.hpp"
#include "kube/apiserver/schema/utf8.hpp"
#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/validators.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::schema {
namespace {

namespace fe = field_errors;

// The Node::types bit of a JSON value's type.
std::uint8_t type_bit(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::bool_: return Node::kBoolean;
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return Node::kInteger;
    case boost::json::kind::double_: return Node::kNumber;
    case boost::json::kind::string: return Node::kString;
    case boost::json::kind::array: return Node::kArray;
    case boost::json::kind::object: return Node::kObject;
    default: return 0;
  }
}

// go-openapi's name of a decoded JSON value's type (schemaInfoForType).
std::string_view json_type(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "integer";
    case boost::json::kind::double_: return "number";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "";
}

bool integral(const json::value& v) {
  return v.is_int64() || v.is_uint64() || (v.is_double() && std::trunc(v.get_double()) == v.get_double());
}

// %v of a schema bound as go-openapi prints it: as an integer when the value checked
// is an integer (the bound was converted to int64), else as a float.
std::string bound(double b, const json::value& data) {
  if (data.is_int64() || data.is_uint64()) return std::to_string(static_cast<std::int64_t>(b));
  return go_float(b);
}

class Validator {
 public:
  /// `out` null: probe mode, errors are only counted (anyOf/oneOf/not branches).
  /// `unchanged`: parts that pass as they did (unchanged_parts.hpp), not checked.
  Validator(PathStack& path, std::vector<FieldError>* out, const UnchangedParts* unchanged = nullptr)
      : path_(path), out_(out), unchanged_(unchanged) {}

  std::size_t errors() const { return errors_; }
  std::size_t type_errors() const { return type_errors_; }

  void validate(const Node& s, const json::value& v) {
    if (unchanged_ != nullptr && unchanged_->contains(v)) return;
    if (v.is_null()) {
      check_type(s, v);
      check_enum(s, v);
      return;
    }
    check_type(s, v);
    check_junctors(s, v);
    if (v.is_string()) {
      check_string(s, text(v.get_string()));
      check_format(s, text(v.get_string()));
    }
    if (v.is_number()) check_number(s, v);
    if (v.is_array()) check_array(s, v.get_array());
    check_enum(s, v);
    if (v.is_object()) check_object(s, v.get_object());
  }

 private:
  // Builds the error only when collecting: probes (and the benchmark's happy path) never
  // render paths or messages.
  void report(const std::function<FieldError()>& make) {
    ++errors_;
    if (out_ != nullptr) out_->push_back(make());
  }

  // field.Path of a go-openapi error name: the object root prints as <nil>.
  std::string field() const { return path_.empty() ? "<nil>" : path_.openapi(); }
  std::string name() const { return path_.openapi(); }

  // --- type ---------------------------------------------------------------------

  static std::string type_list(const Node& s) { return s.int_or_string ? "integer,string" : s.type; }

  void type_error(std::string_view type_name, std::string_view got) {
    ++type_errors_;
    report([&] {
      return fe::type_invalid(field(), go_quote(got),
                              name() + " in body must be of type " + std::string(type_name) + ": " + go_quote(got));
    });
  }

  void check_type(const Node& s, const json::value& v) {
    bool has_format = s.format_kind != Format::None;
    if (s.types == 0 && !has_format) return;
    if (v.is_null()) {
      if (s.types != 0 && !s.nullable) type_error(type_list(s), "null");
      return;
    }
    std::uint8_t t = type_bit(v);
    bool admitted = (s.types & t) != 0 ||
                    (t == Node::kNumber && (s.types & Node::kInteger) && integral(v)) ||  // 1.0 is an integer
                    (t == Node::kInteger && (s.types & Node::kNumber));
    if (!v.is_string() && !v.is_array() && has_format && !admitted) {
      type_error(s.format, v.is_double() ? "float64" : (t == Node::kInteger ? "int64" : ""));
      return;
    }
    if (!(s.types & (Node::kNumber | Node::kInteger)) && has_format && (v.is_string() || v.is_array())) return;
    if (!admitted) type_error(type_list(s), json_type(v));
  }

  // --- anyOf / oneOf / allOf / not ---------------------------------------------------

  // Errors of one branch: counted in a probe, or collected when `collect`.
  std::size_t branch(const Node& b, const json::value& v, std::vector<FieldError>* collect) {
    Validator sub(path_, collect);
    sub.validate(b, v);
    return sub.errors();
  }

  // How badly a failing branch fails: go-openapi reports the branch with the most passed
  // checks, and a failed type check forfeits the most. Approximated as (type errors,
  // errors), the smallest winning, the first on ties.
  std::pair<std::size_t, std::size_t> failure_score(const Node& b, const json::value& v) {
    Validator sub(path_, nullptr);
    sub.validate(b, v);
    return {sub.type_errors(), sub.errors()};
  }

  void composite(const std::string& message) {
    report([&] { return fe::invalid("<nil>", "\"\"", message); });
  }

  // Reports the errors of the failing branch with the best failure_score.
  void best_failure(const std::vector<std::unique_ptr<Node>>& branches, const json::value& v) {
    std::size_t best = 0;
    auto best_score = failure_score(*branches[0], v);
    for (std::size_t i = 1; i < branches.size(); ++i) {
      auto score = failure_score(*branches[i], v);
      if (score < best_score) {
        best = i;
        best_score = score;
      }
    }
    if (out_ == nullptr) {
      errors_ += best_score.second;
      return;
    }
    std::vector<FieldError> errs;
    errors_ += branch(*branches[best], v, &errs);
    out_->insert(out_->end(), errs.begin(), errs.end());
  }

  void check_junctors(const Node& s, const json::value& v) {
    if (!s.any_of.empty()) {
      bool ok = false;
      for (const auto& b : s.any_of) {
        if (branch(*b, v, nullptr) == 0) {
          ok = true;
          break;
        }
      }
      if (!ok) {
        composite(go_quote(name()) + " must validate at least one schema (anyOf)");
        best_failure(s.any_of, v);
      }
    }
    if (!s.one_of.empty()) {
      std::size_t valid = 0;
      for (const auto& b : s.one_of) {
        if (branch(*b, v, nullptr) == 0) ++valid;
      }
      if (valid != 1) {
        composite(go_quote(name()) + " must validate one and only one schema (oneOf). " +
                  (valid == 0 ? std::string("Found none valid")
                              : "Found " + std::to_string(valid) + " valid alternatives"));
        if (valid == 0) best_failure(s.one_of, v);
      }
    }
    if (!s.all_of.empty()) {
      std::size_t valid = 0;
      for (const auto& b : s.all_of) {
        std::vector<FieldError> errs;
        std::size_t n = branch(*b, v, out_ != nullptr ? &errs : nullptr);
        errors_ += n;
        if (out_ != nullptr) out_->insert(out_->end(), errs.begin(), errs.end());
        if (n == 0) ++valid;
      }
      if (valid != s.all_of.size()) {
        composite(go_quote(name()) + " must validate all the schemas (allOf)" + (valid == 0 ? ". None validated" : ""));
      }
    }
    if (s.not_ && branch(*s.not_, v, nullptr) == 0) {
      composite(go_quote(name()) + " must not validate the schema (not)");
    }
  }

  // --- scalars ------------------------------------------------------------------

  void check_string(const Node& s, std::string_view str) {
    if (s.max_length || s.min_length) {
      auto length = static_cast<std::int64_t>(utf8::count(str));
      if (s.max_length && length > *s.max_length) {
        report([&] { return fe::too_long(field(), *s.max_length); });
        return;
      }
      if (s.min_length && length < *s.min_length) {
        report([&] {
          return fe::invalid(field(), go_quote(str),
                             name() + " in body should be at least " + std::to_string(*s.min_length) + " chars long");
        });
        return;
      }
    }
    if (s.pattern && !s.pattern->search(str)) {
      report([&] {
        return fe::invalid(field(), go_quote(str), name() + " in body should match '" + s.pattern->source() + "'");
      });
    }
  }

  void check_format(const Node& s, std::string_view str) {
    if (s.format_kind == Format::None || format_valid(s.format_kind, str)) return;
    report([&] {
      return fe::type_invalid(field(), go_quote(str), name() + " in body must be of type " + s.format + ": " + go_quote(str));
    });
  }

  void check_number(const Node& s, const json::value& v) {
    double d = v.to_number<double>();
    auto value = [&] { return go_value(&v); };
    if (s.multiple_of) {
      double f = *s.multiple_of;
      if (f <= 0) {
        report([&] {
          return fe::invalid(field(), value(),
                             "factor MultipleOf declared for " + name() + " must be positive: " + go_float(f));
        });
      } else {
        bool ok;
        if (integral(v) && std::trunc(f) == f && !v.is_double()) {
          auto factor = static_cast<std::int64_t>(f);
          ok = factor == 0 || (v.is_int64() ? v.get_int64() % factor == 0
                                            : v.get_uint64() % static_cast<std::uint64_t>(factor) == 0);
        } else {
          double m = f < 1 ? (1 / f) * d : d / f;
          ok = std::trunc(m) == m;
        }
        if (!ok) {
          report([&] { return fe::invalid(field(), value(), name() + " in body should be a multiple of " + go_float(f)); });
        }
      }
    }
    if (s.minimum) {
      double m = *s.minimum;
      bool low = v.is_double() ? (s.exclusive_minimum ? d <= m : d < m)
                               : (s.exclusive_minimum ? d <= std::trunc(m) : d < std::trunc(m));
      if (low) {
        report([&] {
          return fe::invalid(field(), value(),
                             name() + " in body should be greater than " + (s.exclusive_minimum ? "" : "or equal to ") +
                                 bound(m, v));
        });
      }
    }
    if (s.maximum) {
      double m = *s.maximum;
      bool high = v.is_double() ? (s.exclusive_maximum ? d >= m : d > m)
                                : (s.exclusive_maximum ? d >= std::trunc(m) : d > std::trunc(m));
      if (high) {
        report([&] {
          return fe::invalid(field(), value(),
                             name() + " in body should be less than " + (s.exclusive_maximum ? "" : "or equal to ") +
                                 bound(m, v));
        });
      }
    }
  }

  void check_enum(const Node& s, const json::value& v) {
    if (!s.enum_values || s.enum_values->empty()) return;
    if (!v.is_null()) {
      for (const auto& e : *s.enum_values) {
        if (json::json_equal(v, e)) return;
      }
    }
    report([&] {
      std::vector<std::string> valid;
      for (const auto& e : *s.enum_values) valid.push_back(e.is_string() ? std::string(text(e.get_string())) : json::dump(e));
      return fe::not_supported(field(), go_value(&v), valid);
    });
  }

  // --- containers -----------------------------------------------------------------

  void check_array(const Node& s, const json::array& a) {
    if (s.items) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        PathScope scope(path_, PathStack::Kind::Index, {}, i);
        validate(*s.items, a[i]);
      }
    }
    auto size = static_cast<std::int64_t>(a.size());
    if (s.min_items && size < *s.min_items) {
      report([&] {
        return fe::invalid(field(), std::to_string(size),
                           name() + " in body should have at least " + std::to_string(*s.min_items) + " items");
      });
    }
    if (s.max_items && size > *s.max_items) report([&] { return fe::too_many(field(), size, *s.max_items); });
    if (s.unique_items) {
      for (std::size_t i = 1; i < a.size(); ++i) {
        bool dup = false;
        for (std::size_t j = 0; j < i && !dup; ++j) dup = json::json_equal(a[i], a[j]);
        if (dup) {
          report([&] { return fe::invalid(field(), "\"\"", name() + " in body shouldn't contain duplicates"); });
          break;
        }
      }
    }
  }

  void check_object(const Node& s, const json::object& o) {
    auto size = static_cast<std::int64_t>(o.size());
    if (s.min_properties && size < *s.min_properties) {
      report([&] {
        return fe::invalid(field(), std::to_string(size),
                           name() + " in body should have at least " + std::to_string(*s.min_properties) + " properties");
      });
    }
    if (s.max_properties && size > *s.max_properties) {
      report([&] { return fe::too_many(field(), size, *s.max_properties); });
    }
    if (s.additional_properties_forbidden) {
      for (const auto& kv : o) {
        if (s.property(text(kv.key())) != nullptr) continue;
        report([&] {
          return fe::invalid(field(), "\"\"", name() + "." + std::string(text(kv.key())) + " in body is a forbidden property");
        });
      }
    } else if (s.additional_properties) {
      for (const auto& kv : o) {
        if (s.property(text(kv.key())) != nullptr) continue;
        PathScope scope(path_, PathStack::Kind::Field, text(kv.key()));
        validate(*s.additional_properties, kv.value());
      }
    }
    if (!s.properties.empty()) {
      for (const auto& kv : o) {
        const Node* p = s.property(text(kv.key()));
        if (p == nullptr) continue;
        PathScope scope(path_, PathStack::Kind::Field, text(kv.key()));
        validate(*p, kv.value());
      }
    }
    for (const std::string& r : s.required) {
      if (o.contains(r)) continue;
      PathScope scope(path_, PathStack::Kind::Field, r);
      report([&] { return fe::required(field()); });
    }
  }

  PathStack& path_;
  std::vector<FieldError>* out_;
  const UnchangedParts* unchanged_;
  std::size_t errors_ = 0;
  std::size_t type_errors_ = 0;
};

}  // namespace

void validate_openapi(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                      std::vector<FieldError>& out) {
  PathStack path;
  Validator(path, &out, &unchanged).validate(root, object);
}

}  // namespace kueuepp::kube::schema

#include "kube/apiserver/patch/field_set.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "kube/apiserver/patch/json_order.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

void append_number(std::string& out, const json::value& v) {
  char buf[64];
  std::to_chars_result r{};
  if (v.is_int64()) {
    r = std::to_chars(buf, buf + sizeof buf, v.get_int64());
  } else if (v.is_uint64()) {
    r = std::to_chars(buf, buf + sizeof buf, v.get_uint64());
  } else {
    const double d = v.get_double();
    // Go decodes integral JSON numbers of unstructured objects as int64: print them so.
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18) {
      r = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(d));
    } else {
      r = std::to_chars(buf, buf + sizeof buf, d);
    }
  }
  out.append(buf, r.ptr);
}

void append_canonical(std::string& out, const json::value& v, int depth) {
  if (depth > kMaxDepth) {
    out += "null";
    return;
  }
  if (v.is_int64() || v.is_uint64() || v.is_double()) {
    append_number(out, v);
  } else if (const json::object* o = v.if_object()) {
    std::vector<const boost::json::key_value_pair*> members;
    members.reserve(o->size());
    for (const auto& m : *o) members.push_back(&m);
    std::sort(members.begin(), members.end(), [](const auto* l, const auto* r) { return l->key() < r->key(); });
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out += ',';
      out += boost::json::serialize(json::value(members[i]->key()));
      out += ':';
      append_canonical(out, members[i]->value(), depth + 1);
    }
    out += '}';
  } else if (const json::array* a = v.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i > 0) out += ',';
      append_canonical(out, (*a)[i], depth + 1);
    }
    out += ']';
  } else {
    out += boost::json::serialize(v);
  }
}

// Go's value.ToString: strings quoted, numbers and booleans bare, lists in brackets.
std::string to_display(const json::value& v) {
  if (const json::object* o = v.if_object()) {
    std::string out;
    for (const auto& m : *o) out += std::string(m.key()) + "=" + to_display(m.value());
    return out;
  }
  return canonical_json(v);
}

int compare_index(std::int64_t a, std::int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

// ---- PathElement ---------------------------------------------------------------------

PathElement PathElement::of_field(std::string_view name) {
  PathElement pe;
  pe.type = Type::Field;
  pe.field = std::string(name);
  return pe;
}

PathElement PathElement::of_key(json::object fields) {
  std::vector<std::pair<std::string, json::value>> sorted;
  sorted.reserve(fields.size());
  for (auto& m : fields) sorted.emplace_back(std::string(m.key()), std::move(m.value()));
  std::sort(sorted.begin(), sorted.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  json::object ordered;
  ordered.reserve(sorted.size());
  for (auto& [k, v] : sorted) ordered.emplace(k, std::move(v));
  PathElement pe;
  pe.type = Type::Key;
  pe.value = std::move(ordered);
  return pe;
}

PathElement PathElement::of_value(const json::value& v) {
  PathElement pe;
  pe.type = Type::Value;
  pe.value = v;
  return pe;
}

int PathElement::compare(const PathElement& other) const {
  if (type != other.type) return type < other.type ? -1 : 1;
  switch (type) {
    case Type::Field: {
      const int c = field.compare(other.field);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Type::Key:
    case Type::Value:
      return json_compare(value, other.value);
    case Type::Index:
      return compare_index(index, other.index);
  }
  return 0;
}

std::string PathElement::serialize() const {
  switch (type) {
    case Type::Field:
      return "f:" + field;
    case Type::Key:
      return "k:" + canonical_json(value);
    case Type::Value:
      return "v:" + canonical_json(value);
    case Type::Index:
      return "i:" + std::to_string(index);
  }
  return {};
}

std::string PathElement::display() const {
  switch (type) {
    case Type::Field:
      return "." + field;
    case Type::Key: {
      std::string out = "[";
      bool first = true;
      for (const auto& m : value.get_object()) {
        if (!first) out += ',';
        first = false;
        out += std::string(m.key()) + "=" + to_display(m.value());
      }
      return out + "]";
    }
    case Type::Value:
      return "[=" + to_display(value) + "]";
    case Type::Index:
      return "[" + std::to_string(index) + "]";
  }
  return {};
}

std::string display_path(std::span<const PathElement> path) {
  std::string out;
  for (const auto& pe : path) out += pe.display();
  return out;
}

std::string canonical_json(const json::value& v) {
  std::string out;
  append_canonical(out, v, 0);
  return out;
}

// ---- FieldSet ------------------------------------------------------------------------

FieldSet::Child* FieldSet::find_child(const PathElement& pe) {
  auto it = std::lower_bound(children_.begin(), children_.end(), pe,
                             [](const Child& c, const PathElement& e) { return c.element.compare(e) < 0; });
  return it != children_.end() && it->element.compare(pe) == 0 ? &*it : nullptr;
}

const FieldSet::Child* FieldSet::find_child(const PathElement& pe) const {
  return const_cast<FieldSet*>(this)->find_child(pe);
}

FieldSet::Child& FieldSet::child(const PathElement& pe) {
  auto it = std::lower_bound(children_.begin(), children_.end(), pe,
                             [](const Child& c, const PathElement& e) { return c.element.compare(e) < 0; });
  if (it != children_.end() && it->element.compare(pe) == 0) return *it;
  return *children_.insert(it, Child{pe, false, {}});
}

void FieldSet::insert(std::span<const PathElement> path) {
  if (path.empty()) return;
  FieldSet* set = this;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) set = &set->child(path[i]).set;
  set->child(path.back()).member = true;
}

bool FieldSet::has(std::span<const PathElement> path) const {
  if (path.empty()) return false;
  const FieldSet* set = node(path.first(path.size() - 1));
  if (set == nullptr) return false;
  const Child* c = set->find_child(path.back());
  return c != nullptr && c->member;
}

const FieldSet* FieldSet::node(std::span<const PathElement> path) const {
  const FieldSet* set = this;
  for (const auto& pe : path) {
    const Child* c = set->find_child(pe);
    if (c == nullptr) return nullptr;
    set = &c->set;
  }
  return set;
}

namespace {
enum Op { kUnion, kMinus, kIntersect };
}  // namespace

FieldSet FieldSet::combine(const FieldSet& a, const FieldSet& b, int op) {
  FieldSet out;
  const auto& x = a.children_;
  const auto& y = b.children_;
  out.children_.reserve(x.size() + (op == kUnion ? y.size() : 0));
  auto keep = [&out](Child c) {
    if (c.member || !c.set.empty()) out.children_.push_back(std::move(c));
  };
  std::size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    const int c = i == x.size() ? 1 : (j == y.size() ? -1 : x[i].element.compare(y[j].element));
    if (c < 0) {  // only in a
      if (op != kIntersect) keep(x[i]);
      ++i;
    } else if (c > 0) {  // only in b
      if (op == kUnion) keep(y[j]);
      ++j;
    } else {
      Child both{x[i].element, false, combine(x[i].set, y[j].set, op)};
      both.member = op == kUnion    ? (x[i].member || y[j].member)
                    : op == kMinus  ? (x[i].member && !y[j].member)
                                    : (x[i].member && y[j].member);
      keep(std::move(both));
      ++i;
      ++j;
    }
  }
  return out;
}

FieldSet FieldSet::united(const FieldSet& other) const { return combine(*this, other, kUnion); }
FieldSet FieldSet::minus(const FieldSet& other) const { return combine(*this, other, kMinus); }
FieldSet FieldSet::intersected(const FieldSet& other) const { return combine(*this, other, kIntersect); }

void FieldSet::for_each_member_at(Path& prefix, const std::function<void(const Path&)>& f) const {
  for (const auto& c : children_) {
    prefix.push_back(c.element);
    if (c.member) f(prefix);
    c.set.for_each_member_at(prefix, f);
    prefix.pop_back();
  }
}

void FieldSet::for_each_member(const std::function<void(const Path&)>& f) const {
  Path prefix;
  for_each_member_at(prefix, f);
}

json::object FieldSet::to_fields_v1() const {
  json::object out;
  for (const auto& c : children_) {
    json::object sub = c.set.to_fields_v1();
    if (c.member && !sub.empty()) {
      json::object with_self;
      with_self.reserve(sub.size() + 1);
      with_self.emplace(".", json::object());
      for (auto& m : sub) with_self.emplace(m.key(), std::move(m.value()));
      sub = std::move(with_self);
    }
    out.emplace(c.element.serialize(), std::move(sub));
  }
  return out;
}

namespace {

Expected<bool> parse_fields_into(FieldSet& set, Path& prefix, const json::object& fields, int depth);

Expected<std::optional<PathElement>> parse_element(std::string_view key) {
  if (key.size() < 2 || key[1] != ':') return fail("invalid managedFields key \"" + std::string(key) + "\"");
  const std::string_view body = key.substr(2);
  switch (key[0]) {
    case 'f':
      return std::optional<PathElement>(PathElement::of_field(body));
    case 'k': {
      auto parsed = json::parse(body);
      if (!parsed || !parsed->is_object()) {
        return fail("invalid list key in managedFields key \"" + std::string(key) + "\"");
      }
      return std::optional<PathElement>(PathElement::of_key(std::move(parsed->get_object())));
    }
    case 'v': {
      auto parsed = json::parse(body);
      if (!parsed) return fail("invalid set value in managedFields key \"" + std::string(key) + "\"");
      return std::optional<PathElement>(PathElement::of_value(*parsed));
    }
    case 'i': {
      std::int64_t index = 0;
      auto r = std::from_chars(body.data(), body.data() + body.size(), index);
      if (r.ec != std::errc() || r.ptr != body.data() + body.size()) {
        return fail("invalid index in managedFields key \"" + std::string(key) + "\"");
      }
      PathElement pe;
      pe.type = PathElement::Type::Index;
      pe.index = index;
      return std::optional<PathElement>(std::move(pe));
    }
    default:
      return std::optional<PathElement>();  // a future element type: skipped, like upstream
  }
}

// Fills `set` below `prefix`; returns whether `fields` marks its own node as a member
// (a "." entry, or no children at all).
Expected<bool> parse_fields_into(FieldSet& set, Path& prefix, const json::object& fields, int depth) {
  if (depth > kMaxDepth) return fail("managedFields nested too deeply");
  bool self = false;
  bool has_children = false;
  for (const auto& m : fields) {
    if (m.key() == ".") {
      self = true;
      continue;
    }
    auto pe = parse_element(m.key());
    if (!pe) return unexpected(std::move(pe).error());
    if (!*pe) continue;
    const json::object* sub = m.value().if_object();
    if (sub == nullptr) return fail("managedFields entry \"" + std::string(m.key()) + "\" must be an object");
    has_children = true;
    prefix.push_back(std::move(**pe));
    auto member = parse_fields_into(set, prefix, *sub, depth + 1);
    if (!member) return member;
    if (*member) set.insert(prefix);
    prefix.pop_back();
  }
  return self || !has_children;
}

}  // namespace

Expected<FieldSet> FieldSet::from_fields_v1(const json::value& fields) {
  FieldSet set;
  if (fields.is_null()) return set;
  const json::object* o = fields.if_object();
  if (o == nullptr) return fail("fieldsV1 must be an object");
  Path prefix;
  auto root = parse_fields_into(set, prefix, *o, 0);
  if (!root) return unexpected(std::move(root).error());
  return set;
}

bool FieldSet::operator==(const FieldSet& other) const {
  if (children_.size() != other.children_.size()) return false;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    const Child& a = children_[i];
    const Child& b = other.children_[i];
    if (a.member != b.member || a.element.compare(b.element) != 0 || !(a.set == b.set)) return false;
  }
  return true;
}

}  // namespace kueuepp::kube::patch::detail

#include "kube/client/object.hpp"

#include <algorithm>

namespace kueuepp::kube::client {

namespace {

const json::value* find_in(const json::value& root, JsonPath path) {
  const json::value* cur = &root;
  for (std::string_view key : path) {
    cur = json::find(*cur, key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::optional<std::int64_t> as_int(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double()) {
    const double d = v->get_double();
    if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
      return static_cast<std::int64_t>(d);
    }
  }
  return std::nullopt;
}

json::value owner_reference_json(const OwnerReference& ref, json::object base = {}) {
  base["apiVersion"] = ref.api_version;
  base["kind"] = ref.kind;
  base["name"] = ref.name;
  base["uid"] = ref.uid;
  if (ref.controller) base["controller"] = true;
  else base.erase("controller");
  if (ref.block_owner_deletion) base["blockOwnerDeletion"] = true;
  else base.erase("blockOwnerDeletion");
  return base;
}

}  // namespace

Object::Object() : doc_(json::object{}) {}

Object::Object(json::value document) : doc_(std::move(document)) {
  if (!doc_.is_object()) doc_ = json::object{};
}

Expected<Object> Object::from_json(json::value document) {
  if (!document.is_object()) {
    return fail("expected a Kubernetes object (a JSON object), got " +
                std::string(document.is_array() ? "an array" : "a scalar"));
  }
  return Object(std::move(document));
}

std::string_view Object::api_version() const { return json::get_string(doc_, "apiVersion"); }
std::string_view Object::kind() const { return json::get_string(doc_, "kind"); }
void Object::set_type(std::string_view api_version, std::string_view kind) {
  doc_.get_object()["apiVersion"] = api_version;
  doc_.get_object()["kind"] = kind;
}

std::string_view Object::name() const { return string_at({"metadata", "name"}); }
void Object::set_name(std::string_view name) { ensure({"metadata", "name"}) = name; }
std::string_view Object::generate_name() const { return string_at({"metadata", "generateName"}); }
void Object::set_generate_name(std::string_view prefix) {
  ensure({"metadata", "generateName"}) = prefix;
}
std::string_view Object::namespace_name() const { return string_at({"metadata", "namespace"}); }
void Object::set_namespace(std::string_view ns) { ensure({"metadata", "namespace"}) = ns; }
std::string_view Object::uid() const { return string_at({"metadata", "uid"}); }
std::string_view Object::resource_version() const {
  return string_at({"metadata", "resourceVersion"});
}
void Object::set_resource_version(std::string_view rv) {
  if (rv.empty()) erase({"metadata", "resourceVersion"});
  else ensure({"metadata", "resourceVersion"}) = rv;
}
std::int64_t Object::generation() const { return int_at({"metadata", "generation"}).value_or(0); }
std::string_view Object::creation_timestamp() const {
  return string_at({"metadata", "creationTimestamp"});
}
std::optional<std::string_view> Object::deletion_timestamp() const {
  const json::value* v = find({"metadata", "deletionTimestamp"});
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

std::string Object::key() const {
  const std::string_view ns = namespace_name();
  return ns.empty() ? std::string(name()) : std::string(ns) + "/" + std::string(name());
}

StringMap Object::labels() const { return string_map_at({"metadata", "labels"}); }
std::optional<std::string_view> Object::label(std::string_view key) const {
  const json::value* v = find({"metadata", "labels", key});
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}
void Object::set_label(std::string_view key, std::string_view value) {
  ensure({"metadata", "labels", key}) = value;
}
bool Object::remove_label(std::string_view key) { return erase({"metadata", "labels", key}); }

StringMap Object::annotations() const { return string_map_at({"metadata", "annotations"}); }
std::optional<std::string_view> Object::annotation(std::string_view key) const {
  const json::value* v = find({"metadata", "annotations", key});
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}
void Object::set_annotation(std::string_view key, std::string_view value) {
  ensure({"metadata", "annotations", key}) = value;
}
bool Object::remove_annotation(std::string_view key) {
  return erase({"metadata", "annotations", key});
}

std::vector<OwnerReference> Object::owner_references() const {
  std::vector<OwnerReference> out;
  const json::value* refs = find({"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return out;
  for (const json::value& r : refs->get_array()) {
    if (!r.is_object()) continue;
    OwnerReference ref;
    ref.api_version = std::string(json::get_string(r, "apiVersion"));
    ref.kind = std::string(json::get_string(r, "kind"));
    ref.name = std::string(json::get_string(r, "name"));
    ref.uid = std::string(json::get_string(r, "uid"));
    const json::value* c = json::find(r, "controller");
    ref.controller = c != nullptr && c->is_bool() && c->get_bool();
    const json::value* b = json::find(r, "blockOwnerDeletion");
    ref.block_owner_deletion = b != nullptr && b->is_bool() && b->get_bool();
    out.push_back(std::move(ref));
  }
  return out;
}

std::optional<OwnerReference> Object::controller_reference() const {
  for (OwnerReference& ref : owner_references()) {
    if (ref.controller) return std::move(ref);
  }
  return std::nullopt;
}

void Object::set_owner_reference(const OwnerReference& ref) {
  json::value& refs = ensure({"metadata", "ownerReferences"});
  if (!refs.is_array()) refs = json::array{};
  for (json::value& existing : refs.get_array()) {
    if (existing.is_object() && json::get_string(existing, "uid") == ref.uid) {
      existing = owner_reference_json(ref, existing.get_object());
      return;
    }
  }
  refs.get_array().push_back(owner_reference_json(ref));
}

std::vector<std::string> Object::finalizers() const {
  std::vector<std::string> out;
  const json::value* list = find({"metadata", "finalizers"});
  if (list == nullptr || !list->is_array()) return out;
  for (const json::value& f : list->get_array()) {
    if (f.is_string()) out.emplace_back(f.get_string());
  }
  return out;
}

bool Object::has_finalizer(std::string_view finalizer) const {
  const auto all = finalizers();
  return std::find(all.begin(), all.end(), finalizer) != all.end();
}

bool Object::add_finalizer(std::string_view finalizer) {
  if (has_finalizer(finalizer)) return false;
  json::value& list = ensure({"metadata", "finalizers"});
  if (!list.is_array()) list = json::array{};
  list.get_array().emplace_back(finalizer);
  return true;
}

bool Object::remove_finalizer(std::string_view finalizer) {
  json::value* list = json::find(doc_, "metadata");
  list = list ? json::find(*list, "finalizers") : nullptr;
  if (list == nullptr || !list->is_array()) return false;
  json::array& a = list->get_array();
  const std::size_t before = a.size();
  for (auto it = a.begin(); it != a.end();) {
    if (it->is_string() && it->get_string() == finalizer) it = a.erase(it);
    else ++it;
  }
  const bool changed = a.size() != before;
  if (a.empty()) erase({"metadata", "finalizers"});  // `a` dangles after this
  return changed;
}

std::vector<Condition> Object::conditions() const {
  return read_conditions(find({"status", "conditions"}));
}

std::optional<Condition> Object::condition(std::string_view type) const {
  const json::value* c = find_condition(find({"status", "conditions"}), type);
  if (c == nullptr) return std::nullopt;
  return Condition::from_json(*c);
}

bool Object::condition_true(std::string_view type) const {
  const json::value* c = find_condition(find({"status", "conditions"}), type);
  return c != nullptr && json::get_string(*c, "status") == "True";
}

bool Object::set_condition(const Condition& condition, std::string_view now) {
  return client::set_condition(ensure({"status", "conditions"}), condition, now);
}

bool Object::remove_condition(std::string_view type) {
  json::value* status = json::find(doc_, "status");
  json::value* list = status ? json::find(*status, "conditions") : nullptr;
  return list != nullptr && client::remove_condition(*list, type);
}

const json::value* Object::find(JsonPath path) const { return find_in(doc_, path); }

json::value& Object::ensure(JsonPath path) {
  json::value* cur = &doc_;
  for (std::string_view key : path) {
    if (!cur->is_object()) *cur = json::object{};
    cur = &cur->get_object()[key];
  }
  return *cur;
}

bool Object::erase(JsonPath path) {
  if (path.size() == 0) return false;
  json::value* cur = &doc_;
  auto last = path.end() - 1;
  for (auto it = path.begin(); it != last; ++it) {
    cur = json::find(*cur, *it);
    if (cur == nullptr) return false;
  }
  json::object* parent = cur->if_object();
  return parent != nullptr && parent->erase(*last) > 0;
}

std::string_view Object::string_at(JsonPath path) const {
  const json::value* v = find(path);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_string();
}

std::optional<std::int64_t> Object::int_at(JsonPath path) const { return as_int(find(path)); }

std::optional<bool> Object::bool_at(JsonPath path) const {
  const json::value* v = find(path);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}

StringMap Object::string_map_at(JsonPath path) const {
  StringMap out;
  const json::value* v = find(path);
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [k, val] : v->get_object()) {
    if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
  }
  return out;
}

void Object::set_string_map(JsonPath path, const StringMap& map) {
  if (map.empty()) {
    erase(path);
    return;
  }
  json::object o;
  for (const auto& [k, v] : map) o[k] = v;
  ensure(path) = std::move(o);
}

}  // namespace kueuepp::kube::client

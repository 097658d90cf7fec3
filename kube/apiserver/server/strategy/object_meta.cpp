#include "kube/apiserver/server/strategy/object_meta.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/strategy.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

json::object& metadata_of(json::object& obj) {
  json::value& m = obj["metadata"];
  if (!m.is_object()) m = json::object{};
  return m.as_object();
}

const json::object* metadata_of(const json::object& obj) {
  const json::value* m = obj.if_contains("metadata");
  return m != nullptr ? m->if_object() : nullptr;
}

std::string_view meta_string(const json::object& obj, std::string_view key) {
  const json::object* m = metadata_of(obj);
  if (m == nullptr) return {};
  const json::value* v = m->if_contains(key);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_string();
}

const json::value* labels_of(const json::object& obj) {
  const json::object* m = metadata_of(obj);
  return m != nullptr ? m->if_contains("labels") : nullptr;
}

std::string age_of(const json::object& obj) {
  auto created = parse_rfc3339(meta_string(obj, "creationTimestamp"));
  if (!created) return "<unknown>";
  return human_duration(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *created));
}

void order_metadata(json::object& obj) {
  static constexpr std::array<std::string_view, 16> kOrder = {
      "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
      "ownerReferences", "finalizers", "managedFields", ""};
  json::value* m = obj.if_contains("metadata");
  if (m == nullptr || !m->is_object()) return;
  json::object& meta = m->as_object();
  // Usually already in order (an update of a stored object): then nothing to rebuild.
  // In order means known fields by kOrder, then the others.
  auto rank = [&](std::string_view key) {
    return static_cast<std::size_t>(std::find(kOrder.begin(), kOrder.end() - 1, key) - kOrder.begin());
  };
  std::size_t last = 0;
  bool in_order = true;
  for (const auto& kv : meta) {
    std::size_t r = rank(kv.key());
    if (r < last) {
      in_order = false;
      break;
    }
    last = r;
  }
  if (in_order) return;
  json::object ordered;
  ordered.reserve(meta.size());
  for (std::string_view key : kOrder) {
    if (key.empty()) break;
    if (auto* v = meta.if_contains(key)) ordered.emplace(key, std::move(*v));
  }
  for (auto& [key, value] : meta) {
    if (!ordered.contains(key)) ordered.emplace(key, std::move(value));
  }
  meta = std::move(ordered);
}

std::string metadata_type_problem(const json::object& obj) {
  const json::value* m = obj.if_contains("metadata");
  if (m == nullptr || m->is_null()) return {};
  if (!m->is_object()) return "metadata: expected an object";
  for (const auto& [key, value] : m->as_object()) {
    if (value.is_null()) continue;
    bool ok = true;
    if (key == "name" || key == "generateName" || key == "namespace" || key == "uid" ||
        key == "resourceVersion" || key == "creationTimestamp" || key == "deletionTimestamp" ||
        key == "selfLink") {
      ok = value.is_string();
    } else if (key == "labels" || key == "annotations") {
      ok = value.is_object() &&
           std::all_of(value.as_object().begin(), value.as_object().end(),
                       [](const auto& kv) { return kv.value().is_string(); });
    } else if (key == "finalizers") {
      ok = value.is_array() && std::all_of(value.as_array().begin(), value.as_array().end(),
                                           [](const json::value& f) { return f.is_string(); });
    } else if (key == "ownerReferences" || key == "managedFields") {
      ok = value.is_array() && std::all_of(value.as_array().begin(), value.as_array().end(),
                                           [](const json::value& f) { return f.is_object(); });
    } else if (key == "generation" || key == "deletionGracePeriodSeconds") {
      ok = value.is_int64() || value.is_uint64();
    }
    if (!ok) return fmt::format("metadata.{}: wrong type", std::string_view(key));
  }
  return {};
}

namespace {

void validate_labels(const json::object& meta, FieldErrors& errs) {
  const json::value* labels = meta.if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return;
  for (const auto& [key, value] : labels->as_object()) {
    for (const auto& p : qualified_name_problems(key)) {
      errs.push_back(invalid_error("metadata.labels", json::value(key), p));
    }
    std::string_view v = value.is_string() ? std::string_view(value.get_string()) : std::string_view();
    for (const auto& p : label_value_problems(v)) {
      errs.push_back(invalid_error("metadata.labels", json::value(v), p));
    }
  }
}

void validate_annotations(const json::object& meta, FieldErrors& errs) {
  const json::value* annotations = meta.if_contains("annotations");
  if (annotations == nullptr || !annotations->is_object()) return;
  std::size_t total = 0;
  for (const auto& [key, value] : annotations->as_object()) {
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& p : qualified_name_problems(lower)) {
      errs.push_back(invalid_error("metadata.annotations", json::value(key), p));
    }
    total += key.size() + (value.is_string() ? value.get_string().size() : 0);
  }
  constexpr std::size_t kMax = 256 * 1024;
  if (total > kMax) {
    errs.push_back({"FieldValueTooLong", "metadata.annotations",
                    fmt::format("Too long: must have at most {} bytes", kMax)});
  }
}

void validate_finalizers(const json::object& meta, FieldErrors& errs) {
  const json::value* finalizers = meta.if_contains("finalizers");
  if (finalizers == nullptr || !finalizers->is_array()) return;
  bool orphan = false;
  bool foreground = false;
  for (std::size_t i = 0; i < finalizers->as_array().size(); ++i) {
    const json::value& f = finalizers->as_array()[i];
    std::string_view name = f.is_string() ? std::string_view(f.get_string()) : std::string_view();
    for (const auto& p : qualified_name_problems(name)) {
      errs.push_back(invalid_error(fmt::format("metadata.finalizers[{}]", i), f, p));
    }
    orphan = orphan || name == "orphan";
    foreground = foreground || name == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errs.push_back(invalid_error("metadata.finalizers", *finalizers,
                                 "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

void validate_owner_references(const json::object& meta, FieldErrors& errs) {
  const json::value* refs = meta.if_contains("ownerReferences");
  if (refs == nullptr || !refs->is_array()) return;
  int controllers = 0;
  for (std::size_t i = 0; i < refs->as_array().size(); ++i) {
    const json::value& r = refs->as_array()[i];
    std::string base = fmt::format("metadata.ownerReferences[{}]", i);
    if (json::get_string(r, "apiVersion").empty()) errs.push_back(invalid_error(base + ".apiVersion", json::value(""), "version must not be empty"));
    if (json::get_string(r, "kind").empty()) errs.push_back(invalid_error(base + ".kind", json::value(""), "kind must not be empty"));
    if (json::get_string(r, "name").empty()) errs.push_back(invalid_error(base + ".name", json::value(""), "name must not be empty"));
    if (json::get_string(r, "uid").empty()) errs.push_back(invalid_error(base + ".uid", json::value(""), "uid must not be empty"));
    const json::value* c = json::find(r, "controller");
    if (c != nullptr && c->is_bool() && c->get_bool()) ++controllers;
  }
  if (controllers > 1) {
    errs.push_back(invalid_error("metadata.ownerReferences", *refs, "Only one reference can have Controller set to true"));
  }
}

}  // namespace

FieldErrors validate_object_meta(const json::object& obj, const Strategy& strategy, bool namespaced) {
  FieldErrors errs;
  const json::object* meta = metadata_of(obj);
  static const json::object kEmpty;
  if (meta == nullptr) meta = &kEmpty;
  std::string_view name = meta_string(obj, "name");
  std::string_view generate_name = meta_string(obj, "generateName");
  if (name.empty()) {
    if (generate_name.empty()) errs.push_back(required_error("metadata.name", "name or generateName is required"));
  } else {
    for (const auto& p : strategy.name_problems(name)) {
      errs.push_back(invalid_error("metadata.name", json::value(name), p));
    }
  }
  std::string_view ns = meta_string(obj, "namespace");
  if (namespaced) {
    if (ns.empty()) {
      errs.push_back(required_error("metadata.namespace"));
    } else {
      for (const auto& p : dns1123_label_problems(ns)) {
        errs.push_back(invalid_error("metadata.namespace", json::value(ns), p));
      }
    }
  } else if (!ns.empty()) {
    errs.push_back(forbidden_error("metadata.namespace", "not allowed on this type"));
  }
  validate_labels(*meta, errs);
  validate_annotations(*meta, errs);
  validate_finalizers(*meta, errs);
  validate_owner_references(*meta, errs);
  return errs;
}

FieldErrors validate_object_meta_update(const json::object& obj, const json::object& old,
                                        const Strategy& strategy, bool namespaced) {
  FieldErrors errs = validate_object_meta(obj, strategy, namespaced);
  if (!meta_string(old, "deletionTimestamp").empty()) {
    const json::object* meta = metadata_of(obj);
    const json::object* old_meta = metadata_of(old);
    auto list = [](const json::object* m) {
      std::vector<std::string_view> out;
      if (m == nullptr) return out;
      const json::value* f = m->if_contains("finalizers");
      if (f == nullptr || !f->is_array()) return out;
      for (const auto& v : f->as_array()) {
        if (v.is_string()) out.emplace_back(v.get_string());
      }
      return out;
    };
    auto now = list(meta);
    auto before = list(old_meta);
    std::vector<std::string_view> added;
    for (auto f : now) {
      if (std::find(before.begin(), before.end(), f) == before.end()) added.push_back(f);
    }
    if (!added.empty()) {
      std::string names;
      for (auto f : added) {
        if (!names.empty()) names += ", ";
        names += fmt::format("\"{}\"", f);
      }
      errs.push_back(forbidden_error(
          "metadata.finalizers",
          fmt::format("no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                      names)));
    }
  }
  return errs;
}

}  // namespace kueuepp::kube::server

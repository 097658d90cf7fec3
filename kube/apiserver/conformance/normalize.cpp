#include "kube/apiserver/conformance/normalize.hpp"

#include <cctype>

namespace kueuepp::kube::conformance {

namespace {

constexpr std::size_t kUuidLength = 36;

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Calls `found(start)` for each UUID inside `text`, left to right, not overlapping.
template <class Found>
void for_each_uuid(std::string_view text, Found found) {
  std::size_t i = 0;
  while (i + kUuidLength <= text.size()) {
    const bool bounded = (i == 0 || !is_hex(text[i - 1])) &&
                         (i + kUuidLength == text.size() || !is_hex(text[i + kUuidLength]));
    if (bounded && is_uuid(text.substr(i, kUuidLength))) {
      found(i);
      i += kUuidLength;
    } else {
      ++i;
    }
  }
}

// Replaces every occurrence of `from` in `text` with `to`.
void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

void collect_strings(const json::value& v, std::set<std::string, std::less<>>& uids,
                     std::set<std::string, std::less<>>& times) {
  if (const json::string* s = v.if_string()) {
    const std::string_view text(s->data(), s->size());
    for_each_uuid(text, [&](std::size_t at) { uids.emplace(text.substr(at, kUuidLength)); });
    if (is_rfc3339_time(text)) times.emplace(text);
  } else if (const json::object* o = v.if_object()) {
    for (const auto& member : *o) collect_strings(member.value(), uids, times);
  } else if (const json::array* a = v.if_array()) {
    for (const json::value& e : *a) collect_strings(e, uids, times);
  }
}

}  // namespace

bool is_uuid(std::string_view text) {
  if (text.size() != kUuidLength) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_position ? text[i] != '-' : !is_hex(text[i])) return false;
  }
  return true;
}

bool is_rfc3339_time(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS, then optional .fraction, then Z or ±HH:MM.
  constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
  if (text.size() < shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd' ? !is_digit(text[i]) : text[i] != shape[i]) return false;
  }
  std::string_view rest = text.substr(shape.size());
  if (rest.starts_with('.')) {
    std::size_t digits = 1;
    while (digits < rest.size() && is_digit(rest[digits])) ++digits;
    if (digits == 1) return false;
    rest.remove_prefix(digits);
  }
  if (rest == "Z") return true;
  return rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && is_digit(rest[1]) &&
         is_digit(rest[2]) && rest[3] == ':' && is_digit(rest[4]) && is_digit(rest[5]);
}

void ResponseNormalizer::note_trace_written(const json::value& request_body) {
  collect_strings(request_body, written_uids_, written_times_);
}

void ResponseNormalizer::note_trace_written(std::string_view text) {
  collect_strings(json::value(json::string(text)), written_uids_, written_times_);
}

json::value ResponseNormalizer::normalize(const json::value& body) {
  observe(body);
  json::value out = body;
  rewrite(out);
  return out;
}

std::string ResponseNormalizer::normalize_text(std::string_view text) const {
  return rewrite_string(text, false);
}

void ResponseNormalizer::observe(const json::value& v) {
  if (const json::object* o = v.if_object()) {
    if (const json::value* rv = json::find(*o, "resourceVersion"); rv && rv->is_string()) {
      if (!rv->get_string().empty()) seen_resource_versions_.emplace(rv->get_string());
    }
    const std::string_view generate_name = json::get_string(*o, "generateName");
    const std::string_view name = json::get_string(*o, "name");
    if (!generate_name.empty() && name.size() > generate_name.size() && name.starts_with(generate_name)) {
      generated_names_.emplace(std::string(name), std::string(generate_name) + "<generated>");
    }
    for (const auto& member : *o) observe(member.value());
  } else if (const json::array* a = v.if_array()) {
    for (const json::value& e : *a) observe(e);
  }
}

void ResponseNormalizer::rewrite(json::value& v) const {
  if (json::object* o = v.if_object()) {
    o->erase("managedFields");
    for (auto& member : *o) {
      const std::string_view key = member.key();
      json::value& value = member.value();
      const bool token_key = key == "resourceVersion" || key == "continue";
      if (token_key && value.is_string() && !value.get_string().empty()) {
        value = key == "continue" ? "<continue>" : "<rv>";
      } else if (const json::string* s = value.if_string()) {
        value = rewrite_string(std::string_view(s->data(), s->size()), key == "message");
      } else {
        rewrite(value);
      }
    }
  } else if (json::array* a = v.if_array()) {
    for (json::value& e : *a) rewrite(e);
  } else if (const json::string* s = v.if_string()) {
    v = rewrite_string(std::string_view(s->data(), s->size()), false);
  }
}

std::string ResponseNormalizer::rewrite_string(std::string_view text, bool is_message) const {
  if (is_rfc3339_time(text) && !written_times_.contains(text)) return "<time>";
  std::string out(text);
  for (const auto& [name, pattern] : generated_names_) replace_all(out, name, pattern);

  std::string without_uids;
  std::size_t copied = 0;
  for_each_uuid(out, [&](std::size_t at) {
    const std::string_view uid = std::string_view(out).substr(at, kUuidLength);
    if (written_uids_.contains(uid)) return;
    without_uids.append(out, copied, at - copied);
    without_uids += "<uid>";
    copied = at + kUuidLength;
  });
  without_uids.append(out, copied);
  out = std::move(without_uids);

  if (!is_message) return out;
  // A number in a message that equals a resourceVersion seen in the trace.
  std::string with_versions;
  std::size_t i = 0;
  while (i < out.size()) {
    if (!is_digit(out[i]) || (i > 0 && (is_digit(out[i - 1]) || std::isalpha(static_cast<unsigned char>(out[i - 1]))))) {
      with_versions += out[i++];
      continue;
    }
    std::size_t end = i;
    while (end < out.size() && is_digit(out[end])) ++end;
    const std::string_view number = std::string_view(out).substr(i, end - i);
    with_versions += seen_resource_versions_.contains(number) ? std::string_view("<rv>") : number;
    i = end;
  }
  return with_versions;
}

}  // namespace kueuepp::kube::conformance

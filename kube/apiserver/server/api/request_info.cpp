#include "kube/apiserver/server/api/request_info.hpp"

namespace kueuepp::kube::server {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space) {
  // Fast path (request paths almost never need decoding): nothing to translate.
  if (s.find('%') == std::string_view::npos && (!plus_is_space || s.find('+') == std::string_view::npos)) {
    return std::string(s);
  }
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = hex_value(s[i + 1]);
      int lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Query Query::parse(std::string_view raw) {
  Query q;
  while (!raw.empty()) {
    std::size_t amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) continue;  // Go's url.ParseQuery drops malformed pairs too
    q.params_.emplace_back(std::move(*key), std::move(*value));
  }
  return q;
}

std::optional<std::string_view> Query::get(std::string_view key) const {
  for (const auto& [k, v] : params_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

std::string_view Query::get_or(std::string_view key, std::string_view fallback) const {
  auto v = get(key);
  return v ? *v : fallback;
}

bool Query::flag(std::string_view key) const {
  // Go's conversion of a query value to bool: only "0" and "false" (any case) are false.
  auto v = get(key);
  if (!v || *v == "0") return false;
  std::string lower(*v);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower != "false";
}

std::optional<std::pair<RequestInfo, Query>> parse_target(std::string_view target) {
  std::size_t qmark = target.find('?');
  std::string_view raw_path = target.substr(0, qmark);
  Query query = Query::parse(qmark == std::string_view::npos ? std::string_view() : target.substr(qmark + 1));
  RequestInfo info;
  auto path = percent_decode(raw_path, false);
  if (!path) return std::nullopt;
  info.path = *path;
  // Segments are split on the raw path so an encoded '/' stays inside its segment.
  std::string_view rest = raw_path;
  while (!rest.empty()) {
    std::size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (seg.empty()) continue;
    auto decoded = percent_decode(seg, false);
    if (!decoded) return std::nullopt;
    info.parts.push_back(std::move(*decoded));
  }
  const auto& p = info.parts;
  std::size_t i = 0;
  if (p.empty() || (p[0] != "api" && p[0] != "apis")) return std::make_pair(std::move(info), std::move(query));
  info.prefix = p[0];
  ++i;
  if (info.prefix == "apis") {
    if (i >= p.size()) return std::make_pair(std::move(info), std::move(query));
    info.group = p[i++];
  }
  if (i >= p.size()) return std::make_pair(std::move(info), std::move(query));
  info.version = p[i++];
  if (i >= p.size()) return std::make_pair(std::move(info), std::move(query));
  // The rest of the path, p[c..]: [watch/][namespaces/<ns>/]<resource>[/<name>[/<sub>...]].
  std::size_t c = i;
  if (p[c] == "watch" && p.size() - c > 1) {
    info.watch_path = true;
    ++c;
  }
  if (p[c] == "namespaces" && p.size() - c > 1) {
    info.ns = p[c + 1];
    if (p.size() - c > 2 && p[c + 2] != "status" && p[c + 2] != "finalize") c += 2;
  }
  info.is_resource = true;
  info.resource = p[c];
  if (p.size() - c > 1) info.name = p[c + 1];
  if (p.size() - c > 2) {
    info.subresource = p[c + 2];
    for (std::size_t k = c + 3; k < p.size(); ++k) info.subresource += "/" + p[k];
  }
  if (info.resource == "namespaces") info.ns.clear();
  return std::make_pair(std::move(info), std::move(query));
}

}  // namespace kueuepp::kube::server

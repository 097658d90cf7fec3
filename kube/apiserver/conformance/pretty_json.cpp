#include "kube/apiserver/conformance/pretty_json.hpp"

namespace kueuepp::kube::conformance {

namespace {

void indent(std::string& out, int depth) {
  out += '\n';
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
}

void append_pretty(std::string& out, const json::value& v, int depth) {
  if (const json::object* o = v.if_object()) {
    if (o->empty()) {
      out += "{}";
      return;
    }
    out += '{';
    bool first = true;
    for (const auto& member : *o) {
      if (!first) out += ',';
      first = false;
      indent(out, depth + 1);
      json::append_quoted(out, member.key());
      out += ": ";
      append_pretty(out, member.value(), depth + 1);
    }
    indent(out, depth);
    out += '}';
  } else if (const json::array* a = v.if_array()) {
    if (a->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    bool first = true;
    for (const json::value& e : *a) {
      if (!first) out += ',';
      first = false;
      indent(out, depth + 1);
      append_pretty(out, e, depth + 1);
    }
    indent(out, depth);
    out += ']';
  } else {
    out += json::dump(v);
  }
}

}  // namespace

std::string dump_pretty(const json::value& v) {
  std::string out;
  append_pretty(out, v, 0);
  out += '\n';
  return out;
}

}  // namespace kueuepp::kube::conformance

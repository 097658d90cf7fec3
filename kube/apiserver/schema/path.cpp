#include "kube/apiserver/schema/path.hpp"

namespace kueuepp::kube::schema {

std::string PathStack::openapi() const {
  std::string out;
  for (const Segment& s : segments_) {
    if (s.kind == Kind::Index) {
      out += "[" + std::to_string(s.index) + "]";
    } else {
      if (!out.empty()) out += '.';
      out += s.name;
    }
  }
  return out;
}

std::string PathStack::field_path() const {
  if (segments_.empty()) return "<nil>";
  std::string out;
  for (const Segment& s : segments_) {
    switch (s.kind) {
      case Kind::Field:
        if (!out.empty()) out += '.';
        out += s.name;
        break;
      case Kind::Key:
        out += "[";
        out += s.name;
        out += "]";
        break;
      case Kind::Index:
        out += "[" + std::to_string(s.index) + "]";
        break;
    }
  }
  return out;
}

std::string PathStack::field_path(std::string_view child) const {
  if (child.empty()) return field_path();
  if (segments_.empty()) return std::string(child);
  std::string out = field_path();
  if (child.front() != '[') out += '.';
  out += child;
  return out;
}

}  // namespace kueuepp::kube::schema

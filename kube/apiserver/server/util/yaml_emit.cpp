#include "kube/apiserver/server/util/yaml_emit.hpp"

#include <yaml-cpp/yaml.h>

namespace kueuepp::kube::server {

namespace {

void emit(YAML::Emitter& out, const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: out << YAML::Null; break;
    case boost::json::kind::bool_: out << (v.get_bool() ? "true" : "false"); break;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: out << json::dump(v); break;
    case boost::json::kind::string: {
      // Quote strings that YAML would read back as something else.
      std::string s(v.get_string());
      out << YAML::DoubleQuoted << s;
      break;
    }
    case boost::json::kind::array:
      out << YAML::BeginSeq;
      for (const auto& e : v.get_array()) emit(out, e);
      out << YAML::EndSeq;
      break;
    case boost::json::kind::object:
      out << YAML::BeginMap;
      for (const auto& kv : v.get_object()) {
        out << YAML::Key << std::string(kv.key()) << YAML::Value;
        emit(out, kv.value());
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string to_yaml(const json::value& v) {
  YAML::Emitter out;
  emit(out, v);
  std::string text = out.c_str();
  text.push_back('\n');
  return text;
}

}  // namespace kueuepp::kube::server

// Fuzzes the document parsers every manifest and request body goes through: JSON
// (json::parse, Boost.JSON) and YAML (json::parse_yaml_documents / parse_yaml, yaml-cpp
// converted to JSON values). Besides "no crash, no sanitizer report", it checks that the
// hand-written serializer writes what Boost.JSON's would, that what it writes parses back
// to an equal document, and that json::equal agrees with Boost.JSON's operator==.

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/serialize.hpp>

#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"

namespace {

namespace json = kueuepp::json;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// Doubles do not round-trip exactly: Boost.JSON 1.81's parser may read the shortest
// spelling the serializer writes one unit in the last place off, and infinities and NaN
// have no JSON spelling at all.
bool has_double(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::double_:
      return true;
    case boost::json::kind::array:
      for (const json::value& item : v.get_array()) {
        if (has_double(item)) return true;
      }
      return false;
    case boost::json::kind::object:
      for (const auto& member : v.get_object()) {
        if (has_double(member.value())) return true;
      }
      return false;
    default:
      return false;
  }
}

void check_document(const json::value& v) {
  const std::string text = json::dump(v);
  check(text == boost::json::serialize(v));
  check(json::equal(v, v));
  auto again = json::parse(text);
  if (has_double(v)) {
    if (again) check(json::equal(*again, v) == (*again == v));
    return;
  }
  check(again.has_value());
  check(json::equal(*again, v));
  check(json::dump(*again) == text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto doc = json::parse(text)) check_document(*doc);
  if (auto docs = json::parse_yaml_documents(text)) {
    for (const json::value& doc : *docs) check_document(doc);
  }
  (void)json::parse_yaml(text);
  return 0;
}

#pragma once

// What the tests of the built-in kinds share: a server with the namespace "team",
// objects written as YAML (as kubectl users write them), and the causes of a 422 read
// as "field: message" lines.

#include <string>
#include <string_view>
#include <vector>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {

class BuiltinKindTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }

  HttpReply post_yaml(std::string_view collection, std::string_view yaml) {
    return api().request("POST", collection, yaml, "application/yaml");
  }
  HttpReply put_yaml(std::string_view target, std::string_view yaml) {
    return api().request("PUT", target, yaml, "application/yaml");
  }
  HttpReply apply_yaml(std::string_view target, std::string_view yaml, std::string_view manager = "tester") {
    return api().request("PATCH", std::string(target) + "?fieldManager=" + std::string(manager), yaml,
                         "application/apply-patch+yaml");
  }
  json::value create_yaml(std::string_view collection, std::string_view yaml) {
    return expect(201, post_yaml(collection, yaml));
  }

  /// "field: message" of each cause of a 422 Status.
  static std::vector<std::string> causes(const json::value& status) {
    std::vector<std::string> out;
    const json::value* list = at(status, "/details/causes");
    if (list == nullptr || !list->is_array()) return out;
    for (const auto& c : list->as_array()) out.push_back(str(c, "/field") + ": " + str(c, "/message"));
    return out;
  }

  /// The causes of `reply`, which must be a 422 Invalid.
  std::vector<std::string> invalid(const HttpReply& reply) {
    json::value status = expect(422, reply);
    EXPECT_EQ(str(status, "/reason"), "Invalid") << reply.body;
    return causes(status);
  }
};

/// Whether some line of `lines` contains `part`.
inline bool any_contains(const std::vector<std::string>& lines, std::string_view part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace kueuepp::kube::server::testing

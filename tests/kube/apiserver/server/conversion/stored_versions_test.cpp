// status.storedVersions of a CustomResourceDefinition as kube-apiserver keeps it: every
// version made the storage version is added, and a spec update that drops a version
// objects may still be stored in is refused until a storage migration has trimmed it from
// storedVersions (a status write, which that check does not apply to).

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr std::string_view kGizmoCrd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com";

json::value version(std::string_view name, bool storage) {
  return json::object{{"name", name},
                      {"served", true},
                      {"storage", storage},
                      {"schema", json::object{{"openAPIV3Schema", json::object{{"type", "object"},
                                                                               {"x-kubernetes-preserve-unknown-fields", true}}}}}};
}

json::value gizmo_crd(json::array versions) {
  return json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", json::object{{"name", "gizmos.example.com"}}},
      {"spec", json::object{{"group", "example.com"},
                            {"scope", "Cluster"},
                            {"names", json::object{{"plural", "gizmos"}, {"kind", "Gizmo"}}},
                            {"versions", std::move(versions)}}}};
}

std::vector<std::string> stored_versions(const json::value& crd) {
  std::vector<std::string> out;
  if (const json::value* sv = at(crd, "/status/storedVersions"); sv != nullptr && sv->is_array()) {
    for (const auto& v : sv->as_array()) out.emplace_back(v.get_string());
  }
  return out;
}

class CrdStoredVersions : public ServerTest {
 protected:
  /// Replaces the definition's versions (a spec write, with the stored resourceVersion).
  HttpReply put_versions(json::array versions) {
    json::value current = get_ok(kGizmoCrd);
    json::value next = gizmo_crd(std::move(versions));
    next.as_object()["metadata"].as_object()["resourceVersion"] = str(current, "/metadata/resourceVersion");
    return api().put(kGizmoCrd, next);
  }
};

TEST_F(CrdStoredVersions, EveryStorageVersionIsRecorded) {
  json::value crd = create(kCrds, gizmo_crd(json::array{version("v1", true)}));
  EXPECT_EQ(stored_versions(crd), (std::vector<std::string>{"v1"}));
  json::value moved = expect(200, put_versions(json::array{version("v1", false), version("v2", true)}));
  EXPECT_EQ(stored_versions(moved), (std::vector<std::string>{"v1", "v2"}));
}

TEST_F(CrdStoredVersions, AStoredVersionCannotLeaveSpecVersions) {
  create(kCrds, gizmo_crd(json::array{version("v1", true)}));
  expect(200, put_versions(json::array{version("v1", false), version("v2", true)}));
  json::value status = expect(422, put_versions(json::array{version("v2", true)}));
  EXPECT_EQ(str(status, "/reason"), "Invalid");
  EXPECT_EQ(cause_fields(status), (std::vector<std::string>{"status.storedVersions[0]"}));
  EXPECT_NE(str(status, "/message").find("status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; "
                                         "v1 was previously a storage version, and must remain in spec.versions until a "
                                         "storage migration ensures no data remains persisted in v1 and removes v1 from "
                                         "status.storedVersions"),
            std::string::npos)
      << str(status, "/message");
}

TEST_F(CrdStoredVersions, ATrimmedVersionMayLeave) {
  create(kCrds, gizmo_crd(json::array{version("v1", true)}));
  expect(200, put_versions(json::array{version("v1", false), version("v2", true)}));
  // The storage migration's last step: storedVersions trimmed through the status subresource.
  json::value trimmed = expect(200, api().patch(std::string(kGizmoCrd) + "/status",
                                                json::object{{"status", json::object{{"storedVersions", json::array{"v2"}}}}}));
  EXPECT_EQ(stored_versions(trimmed), (std::vector<std::string>{"v2"}));
  json::value crd = expect(200, put_versions(json::array{version("v2", true)}));
  EXPECT_EQ(stored_versions(crd), (std::vector<std::string>{"v2"}));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

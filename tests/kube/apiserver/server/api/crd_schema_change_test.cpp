// Writes of custom resources validate only what they change against the schema the stored
// object passed (the store keeps that with each version), and everything once the CRD's
// schema changed: an object stored under the old schema that the new one refuses is
// refused on its next write, even one that does not touch the offending part.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr std::string_view kWidgets = "/apis/example.com/v1/namespaces/team/widgets";

// A Widget's spec.size is a string of at most `max_size` characters; spec.count may only
// grow (a transition rule).
json::value widget_crd(int max_size) {
  json::value schema = json::object{
      {"type", "object"},
      {"properties",
       json::object{
           {"spec", json::object{{"type", "object"},
                                 {"properties",
                                  json::object{{"size", json::object{{"type", "string"}, {"maxLength", max_size}}},
                                               {"count", json::object{{"type", "integer"}}}}},
                                 {"x-kubernetes-validations",
                                  json::array{json::object{{"rule", "!has(oldSelf.count) || self.count >= oldSelf.count"},
                                                           {"message", "count may only grow"}}}}}},
           {"status", json::object{{"type", "object"}, {"properties", json::object{{"phase", json::object{{"type", "string"}}}}}}}}}};
  return json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", json::object{{"name", "widgets.example.com"}}},
      {"spec",
       json::object{{"group", "example.com"},
                    {"scope", "Namespaced"},
                    {"names", json::object{{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}, {"listKind", "WidgetList"}}},
                    {"versions", json::array{json::object{{"name", "v1"},
                                                          {"served", true},
                                                          {"storage", true},
                                                          {"subresources", json::object{{"status", json::object{}}}},
                                                          {"schema", json::object{{"openAPIV3Schema", schema}}}}}}}}};
}

json::value widget(std::string_view name, std::string_view size, int count) {
  return json::object{{"apiVersion", "example.com/v1"},
                      {"kind", "Widget"},
                      {"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"size", size}, {"count", count}}}};
}

json::value status(std::string_view phase) { return json::object{{"status", json::object{{"phase", phase}}}}; }

class ApiServerCrdSchemaChange : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create(kCrds, widget_crd(10));
  }
  std::string widget_path(std::string_view name) { return std::string(kWidgets) + "/" + std::string(name); }
};

TEST_F(ApiServerCrdSchemaChange, StatusWritesKeepValidatingTheWholeObject) {
  create(kWidgets, widget("w", "large", 1));
  // Unchanged spec, changed status: fine, again and again.
  for (const char* phase : {"Pending", "Running", "Done"}) {
    expect(200, api().patch(widget_path("w") + "/status", status(phase)));
  }
  // The transition rule on the unchanged spec still runs (and passes).
  expect(200, api().patch(widget_path("w"), json::object{{"spec", json::object{{"count", 2}}}}));
  json::value shrunk = expect(422, api().patch(widget_path("w"), json::object{{"spec", json::object{{"count", 1}}}}));
  EXPECT_EQ(cause_fields(shrunk), std::vector<std::string>{"spec"});
}

TEST_F(ApiServerCrdSchemaChange, AnObjectTheNewSchemaRefusesIsRefusedOnItsNextWrite) {
  create(kWidgets, widget("w", "large", 1));
  expect(200, api().patch(widget_path("w") + "/status", status("Pending")));

  // spec.size may now be two characters at most.
  json::value crd = get_ok(std::string(kCrds) + "/widgets.example.com");
  json::value stricter = widget_crd(2);
  stricter.as_object()["metadata"].as_object()["resourceVersion"] = str(crd, "/metadata/resourceVersion");
  expect(200, api().put(std::string(kCrds) + "/widgets.example.com", stricter));
  EXPECT_EQ(api().post(kWidgets, widget("new", "large", 1)).status, 422);

  // A status write does not change spec, yet spec is validated against the new schema.
  json::value refused = expect(422, api().patch(widget_path("w") + "/status", status("Running")));
  // (Too long is a blocking error: the CEL rules are reported as not checked.)
  EXPECT_EQ(cause_fields(refused), (std::vector<std::string>{"spec.size", "<nil>"}));
  EXPECT_EQ(str(get_ok(widget_path("w")), "/status/phase"), "Pending");

  // Once spec is fixed, status writes go through again.
  expect(200, api().patch(widget_path("w"), json::object{{"spec", json::object{{"size", "xl"}}}}));
  expect(200, api().patch(widget_path("w") + "/status", status("Running")));
}

// Generation follows everything but metadata: without a status subresource status is
// content too; with one, a status write never moves it, whatever else it carries.
TEST_F(ApiServerCrdSchemaChange, GenerationFollowsContent) {
  json::value crd = widget_crd(10);
  json::object& spec = crd.as_object()["spec"].as_object();
  crd.as_object()["metadata"].as_object()["name"] = "gadgets.example.com";
  spec["names"] = json::object{{"plural", "gadgets"}, {"singular", "gadget"}, {"kind", "Gadget"}, {"listKind", "GadgetList"}};
  spec["versions"].as_array()[0].as_object().erase("subresources");
  create(kCrds, crd);
  const std::string gadgets = "/apis/example.com/v1/namespaces/team/gadgets";
  json::value g = widget("g", "small", 1);
  g.as_object()["kind"] = "Gadget";
  EXPECT_EQ(num(create(gadgets, g), "/metadata/generation"), 1);
  const std::string gadget = gadgets + "/g";
  auto generation_after = [&](const std::string& target, const json::value& patch) {
    return num(expect(200, api().patch(target, patch)), "/metadata/generation");
  };
  EXPECT_EQ(generation_after(gadget, json::object{{"metadata", json::object{{"labels", json::object{{"a", "b"}}}}}}), 1);
  EXPECT_EQ(generation_after(gadget, status("Running")), 2);
  EXPECT_EQ(generation_after(gadget, status("Done")), 3);
  EXPECT_EQ(generation_after(gadget, json::object{{"spec", json::object{{"count", 2}}}}), 4);
  EXPECT_EQ(generation_after(gadget, json::object{{"spec", json::object{{"count", 2}}}}), 4);
  EXPECT_EQ(generation_after(gadget, json::object{{"extra", 1}}), 4);  // pruned: no change

  create(kWidgets, widget("w", "large", 1));
  json::object both{{"spec", json::object{{"count", 5}}}, {"status", json::object{{"phase", "Running"}}}};
  json::value w = expect(200, api().patch(widget_path("w") + "/status", both));
  EXPECT_EQ(num(w, "/metadata/generation"), 1);
  EXPECT_EQ(num(w, "/spec/count"), 1);
  EXPECT_EQ(str(w, "/status/phase"), "Running");
  EXPECT_EQ(generation_after(widget_path("w"), both), 2);
  EXPECT_EQ(str(get_ok(widget_path("w")), "/status/phase"), "Running");
}

}  // namespace
}  // namespace kueuepp::kube::server::testing

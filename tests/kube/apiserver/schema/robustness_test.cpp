// Randomized (but deterministic) inputs: nothing may crash, hang or disagree.
//  - random token soup as CEL, evaluated against random documents;
//  - random documents through prune/apply_defaults/validate of the Kueue schemas, as new
//    and as old objects;
//  - random regexes: the DFA and the NFA simulation must agree on random texts.

#include <random>

#include "kube/apiserver/schema/cel/program.hpp"
#include "kube/apiserver/schema/regex.hpp"
#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

class Random {
 public:
  explicit Random(std::uint32_t seed) : rng_(seed) {}
  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  template <class T, std::size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(N)];
  }

  json::value document(int depth) {
    static const char* keys[] = {"spec", "status", "podSets", "name", "count", "minCount", "template", "containers",
                                 "resourceGroups", "flavors", "resources", "nominalQuota", "borrowingLimit",
                                 "coveredResources", "conditions", "type", "admission", "podSetAssignments",
                                 "priorityClassRef", "group", "kind", "queueName", "active", "metadata", "labels",
                                 "clusterQueue", "levels", "nodeLabel", "tolerations", "x", "foo"};
    switch (depth <= 0 ? below(5) : below(8)) {
      case 0: return json::value(nullptr);
      case 1: return json::value(below(2) == 0);
      case 2: return json::value(static_cast<std::int64_t>(below(7)) - 2);
      case 3: return json::value(static_cast<double>(below(100)) / 7.0);
      case 4: {
        static const char* strings[] = {"", "a", "main", "True", "QuotaReserved", "1Gi", "abc", "kueue.x-k8s.io",
                                        "kubernetes.io/hostname", "Exists", "NoSchedule", "é"};
        return json::value(pick(strings));
      }
      case 5:
      case 6: {
        json::object o;
        std::size_t n = below(5);
        for (std::size_t i = 0; i < n; ++i) o[pick(keys)] = document(depth - 1);
        return o;
      }
      default: {
        json::array a;
        std::size_t n = below(4);
        for (std::size_t i = 0; i < n; ++i) a.push_back(document(depth - 1));
        return a;
      }
    }
  }

 private:
  std::mt19937 rng_;
};

TEST(SchemaRobustness, RandomCelNeverCrashes) {
  static const char* tokens[] = {"self", "oldSelf", ".", "a", "spec", "(", ")", "[", "]", "{", "}", "1", "0", "-1",
                                 "1u", "1.5", "'x'", "\"y\"", "b'z'", "true", "null", "+", "-", "*", "/", "%", "==",
                                 "!=", "<", ">=", "&&", "||", "!", "?", ":", ",", "in", "has", "size", "all", "exists",
                                 "exists_one", "map", "filter", "int", "string", "matches", "'^a+$'", "x", "y", "?",
                                 ".?", "optional", "none", "of", "type", "dyn", "\\", "'", "0x", "9223372036854775807"};
  Random r(42);
  int compiled = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string src;
    std::size_t n = 1 + r.below(16);
    for (std::size_t k = 0; k < n; ++k) src += std::string(r.pick(tokens)) + (r.below(3) == 0 ? " " : "");
    auto p = cel::Program::compile(src, {"self", "oldSelf"});
    if (!p) continue;
    ++compiled;
    json::value self = r.document(3), old = r.document(3);
    auto result = (*p)->evaluate({cel::Value::from_json(self, nullptr), cel::Value::from_json(old, nullptr)}, 10000);
    EXPECT_LE(result.cost, 10001u + 1000u) << src;  // at most one unit of overshoot per charged step
  }
  EXPECT_GT(compiled, 800);
}

TEST(SchemaRobustness, RandomDocumentsThroughKueueSchemas) {
  for (const char* plural : {"workloads", "clusterqueues", "resourceflavors", "topologies", "localqueues"}) {
    KUEUEPP_REQUIRE_SCHEMA(s, plural, "v1beta2");
    Random r(7);
    for (int i = 0; i < 1500; ++i) {
      json::value doc = r.document(6), old = r.document(6);
      prune(*s, doc);
      apply_defaults(*s, doc);
      auto errors = validate(*s, doc, i % 2 == 0 ? &old : nullptr);
      for (const auto& e : errors) {
        EXPECT_FALSE(e.type.empty());
        EXPECT_FALSE(e.field.empty());
      }
    }
  }
}

TEST(SchemaRobustness, DfaAgreesWithNfa) {
  static const char* atoms[] = {"a", "b", "ab", ".", "[ab]", "[^a]", "[a-c]", "\\d", "\\w", "(a|b)", "(ab|a)", "(a*)",
                                "x?", "^", "$", "(?i)A", "é", "\\.", "[0-9]", "()"};
  static const char* quantifiers[] = {"", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}"};
  static const char* letters[] = {"a", "b", "c", "A", "1", ".", "x", "\n", "é", "_"};
  Random r(3);
  int with_dfa = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string pattern;
    std::size_t n = 1 + r.below(5);
    for (std::size_t k = 0; k < n; ++k) pattern += std::string(r.pick(atoms)) + r.pick(quantifiers);
    auto dfa = Regex::compile(pattern);
    auto nfa = Regex::compile(pattern, /*build_dfa=*/false);
    ASSERT_EQ(dfa.has_value(), nfa.has_value()) << pattern;
    if (!dfa) continue;
    with_dfa += dfa->has_dfa() ? 1 : 0;
    for (int t = 0; t < 20; ++t) {
      std::string text;
      std::size_t len = r.below(8);
      for (std::size_t k = 0; k < len; ++k) text += r.pick(letters);
      ASSERT_EQ(dfa->search(text), nfa->search(text)) << "pattern " << pattern << " text \"" << text << "\"";
    }
  }
  EXPECT_GT(with_dfa, 1000);
}

}  // namespace
}  // namespace kueuepp::kube::schema

// The CEL language as the interpreter implements it: one table row per behaviour,
// expression -> rendered value, runtime error ("error: ...") or compile error
// ("compile: ..."), compared by prefix for errors.

#include <gtest/gtest.h>

#include "kube/apiserver/schema/cel/interpreter.hpp"
#include "kube/apiserver/schema/cel/program.hpp"
#include "kube/apiserver/schema/field_errors.hpp"
#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

using kube::schema::testing::J;

std::string render(const Value& v) {
  switch (v.kind()) {
    case Kind::Null: return "null";
    case Kind::Bool: return v.as_bool() ? "true" : "false";
    case Kind::Int: return std::to_string(v.as_int());
    case Kind::Uint: return std::to_string(v.as_uint()) + "u";
    case Kind::Double: return "d:" + go_float(v.as_double());
    case Kind::String: return go_quote(v.text());
    case Kind::Bytes: return "b" + go_quote(v.text());
    case Kind::Type: return "type(" + std::string(v.text()) + ")";
    case Kind::Error: return "error: " + std::string(v.text());
    case Kind::Optional: return v.has_value() ? "optional(" + render(v.optional_value()) + ")" : "optional.none()";
    case Kind::List: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + render(v.element(i));
      return out + "]";
    }
    case Kind::Map: {
      std::string out = "{";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + render(v.key_at(i)) + ": " + render(v.value_at(i));
      return out + "}";
    }
  }
  return "?";
}

// Evaluates with `self` bound to a JSON document (untyped) and no oldSelf.
std::string run(std::string_view expr, std::string_view self = "null", std::uint64_t limit = kPerCallLimit) {
  auto p = Program::compile(expr, {"self", "oldSelf"});
  if (!p) return "compile: " + p.error().message;
  json::value doc = J(self);
  return render((*p)->evaluate({Value::from_json(doc, nullptr)}, limit).value);
}

struct Case {
  const char* expr;
  const char* expected;  // exact rendering, or a prefix for "error: " / "compile: " results
  const char* self = "null";
};

class Eval : public ::testing::TestWithParam<Case> {};

TEST_P(Eval, Table) {
  const Case& c = GetParam();
  std::string got = run(c.expr, c.self);
  std::string want = c.expected;
  if (want.rfind("error: ", 0) == 0 || want.rfind("compile: ", 0) == 0) {
    EXPECT_EQ(got.substr(0, want.size()), want) << c.expr << " -> " << got;
  } else {
    EXPECT_EQ(got, want) << c.expr;
  }
}

INSTANTIATE_TEST_SUITE_P(Literals, Eval, ::testing::Values(
    Case{"1", "1"}, Case{"-1", "-1"}, Case{"0x1F", "31"}, Case{"-0x10", "-16"}, Case{"1u", "1u"},
    Case{"0x10u", "16u"}, Case{"18446744073709551615u", "18446744073709551615u"},
    Case{"18446744073709551616u", "compile: ERROR: <input>:1:1: invalid int literal"},
    Case{"9223372036854775807", "9223372036854775807"}, Case{"-9223372036854775808", "-9223372036854775808"},
    Case{"9223372036854775808", "compile: ERROR: <input>:1:1: invalid int literal"},
    Case{"1.5", "d:1.5"}, Case{"1e3", "d:1000"}, Case{".5", "d:0.5"}, Case{"-2.5e-3", "d:-0.0025"},
    Case{"true", "true"}, Case{"false", "false"}, Case{"null", "null"},
    Case{"'a\\nb'", "\"a\\nb\""}, Case{"\"x\\\"y\"", "\"x\\\"y\""},
    Case{"'\\x41\\u00e9\\101'", "\"Aé\x41\""}, Case{"'\\U0001F600'", "\"\xF0\x9F\x98\x80\""},
    Case{"r'a\\nb'", "\"a\\\\nb\""}, Case{"R\"\\d\"", "\"\\\\d\""}, Case{"'''a'b\nc'''", "\"a'b\\nc\""},
    Case{"\"\"\"x\"\"\"", "\"x\""}, Case{"b'ab'", "b\"ab\""}, Case{"b'\\xff'", "b\"\\xff\""},
    Case{"'\\q'", "compile: ERROR: <input>:1:2: invalid escape sequence"},
    Case{"'\\uD800'", "compile: ERROR: <input>:1:2: invalid unicode code point"},
    Case{"'abc", "compile: ERROR: <input>:1:1: unterminated string literal"},
    Case{"'a\nb'", "compile: ERROR: <input>:1:1: unterminated string literal"},
    Case{"[1, 'a', [true]]", "[1, \"a\", [true]]"}, Case{"[]", "[]"}, Case{"[1, 2,]", "[1, 2]"},
    Case{"{'a': 1, 2: 'b'}", "{\"a\": 1, 2: \"b\"}"}, Case{"{}", "{}"},
    Case{"{'a': 1, 'a': 2}", "error: Failed with repeated key"}, Case{"{[1]: 2}", "error: unsupported key type"},
    Case{"1 + // comment\n 2", "3"}));

INSTANTIATE_TEST_SUITE_P(Arithmetic, Eval, ::testing::Values(
    Case{"1 + 2 * 3", "7"}, Case{"(1 + 2) * 3", "9"}, Case{"10 - 2 - 3", "5"}, Case{"7 / 2", "3"},
    Case{"-7 / 2", "-3"}, Case{"7 % 3", "1"}, Case{"-7 % 3", "-1"},
    Case{"9223372036854775807 + 1", "error: integer overflow"},
    Case{"-9223372036854775808 - 1", "error: integer overflow"},
    Case{"4611686018427387904 * 2", "error: integer overflow"},
    Case{"-9223372036854775808 / -1", "error: integer overflow"},
    Case{"-9223372036854775808 % -1", "error: integer overflow"},
    Case{"-(-9223372036854775807 - 1)", "error: integer overflow"},
    Case{"1 / 0", "error: division by zero"}, Case{"1 % 0", "error: modulus by zero"},
    Case{"1u + 2u", "3u"}, Case{"0u - 1u", "error: unsigned integer overflow"},
    Case{"18446744073709551615u + 1u", "error: unsigned integer overflow"}, Case{"5u / 0u", "error: division by zero"},
    Case{"7u % 4u", "3u"}, Case{"1.5 + 1.0", "d:2.5"}, Case{"1.0 / 4.0", "d:0.25"}, Case{"1.0 / 0.0", "d:+Inf"},
    Case{"2.0 % 1.0", "error: no such overload"}, Case{"1 + 1.0", "error: no such overload"},
    Case{"1 + 1u", "error: no such overload"}, Case{"-1u", "error: no such overload"},
    Case{"--1", "1"}, Case{"-(2)", "-2"}, Case{"-'a'", "error: no such overload"},
    Case{"'a' + 'b'", "\"ab\""}, Case{"b'a' + b'b'", "b\"ab\""}, Case{"[1] + [2, 3]", "[1, 2, 3]"},
    Case{"'a' + 1", "error: no such overload"}, Case{"{} + {}", "error: no such overload"}));

INSTANTIATE_TEST_SUITE_P(Comparison, Eval, ::testing::Values(
    Case{"1 < 2", "true"}, Case{"2 <= 2", "true"}, Case{"3 > 4", "false"}, Case{"4 >= 4", "true"},
    Case{"'a' < 'b'", "true"}, Case{"'b' < 'a'", "false"}, Case{"b'a' < b'b'", "true"}, Case{"false < true", "true"},
    Case{"1 < 1.5", "true"}, Case{"2u > 1", "true"}, Case{"-1 < 1u", "true"}, Case{"1u < -1", "false"},
    Case{"1 == 1.0", "true"}, Case{"1 == 1u", "true"}, Case{"1 != 2", "true"}, Case{"'a' == 1", "false"},
    Case{"null == null", "true"}, Case{"null == 0", "false"}, Case{"[1, 2] == [1, 2]", "true"},
    Case{"[1, 2] == [2, 1]", "false"}, Case{"[1] == [1.0]", "true"}, Case{"{'a': 1} == {'a': 1}", "true"},
    Case{"{'a': 1} == {'a': 2}", "false"}, Case{"{'a': 1} == {'b': 1}", "false"}, Case{"[[1]] == [[1]]", "true"},
    Case{"type(1) == int", "true"}, Case{"int == uint", "false"}, Case{"0.0 / 0.0 == 0.0 / 0.0", "false"},
    Case{"0.0 / 0.0 < 1.0", "false"}, Case{"'a' < 1", "error: no such overload"},
    Case{"[1] < [2]", "error: no such overload"}, Case{"null < null", "error: no such overload"},
    Case{"1 in [1, 2]", "true"}, Case{"3 in [1, 2]", "false"}, Case{"1u in [1]", "true"},
    Case{"'a' in {'a': 1}", "true"}, Case{"'b' in {'a': 1}", "false"}, Case{"1 in 1", "error: no such overload"},
    Case{"'x' in self", "true", R"({"x": 1})"}, Case{"1 < 2 == true", "true"}));

INSTANTIATE_TEST_SUITE_P(Logic, Eval, ::testing::Values(
    Case{"true && false", "false"}, Case{"false || true", "true"}, Case{"!true", "false"}, Case{"!!true", "true"},
    Case{"!!!true", "false"}, Case{"!1", "error: no such overload"},
    Case{"false && 1 / 0 == 1", "false"}, Case{"1 / 0 == 1 && false", "false"},
    Case{"1 / 0 == 1 || true", "true"}, Case{"true || 1 / 0 == 1", "true"},
    Case{"1 / 0 == 1 && true", "error: division by zero"}, Case{"true && 1 / 0 == 1", "error: division by zero"},
    Case{"1 / 0 == 1 || 1 % 0 == 1", "error: division by zero"}, Case{"1 && true", "error: no such overload"},
    Case{"false && 1", "false"}, Case{"1 || true", "true"}, Case{"true ? 1 : 2", "1"}, Case{"false ? 1 : 2", "2"},
    Case{"true ? 1 : 1 / 0", "1"}, Case{"1 ? 1 : 2", "error: no such overload"},
    Case{"1 / 0 == 1 ? 1 : 2", "error: division by zero"}, Case{"true ? (false ? 1 : 2) : 3", "2"},
    Case{"true ? false ? 1 : 2 : 3", "compile: ERROR: <input>:1:14: Syntax error"},
    Case{"false ? 1 : true ? 2 : 3", "2"}));

INSTANTIATE_TEST_SUITE_P(Access, Eval, ::testing::Values(
    Case{"{'a': 1}.a", "1"}, Case{"{'a': 1}.b", "error: no such key: b"}, Case{"{'a': 1}['a']", "1"},
    Case{"{'a': 1}['b']", "error: no such key: b"}, Case{"{1: 'x'}[1]", "\"x\""}, Case{"{1: 'x'}[1u]", "\"x\""},
    Case{"{1: 'x'}[1.0]", "\"x\""}, Case{"{1: 'x'}[2]", "error: no such key: 2"}, Case{"[1, 2][1]", "2"},
    Case{"[1, 2][2]", "error: index '2' out of range in list size '2'"},
    Case{"[1, 2][-1]", "error: index '-1' out of range in list size '2'"}, Case{"[1, 2][1u]", "2"},
    Case{"[1, 2][1.0]", "2"}, Case{"[1, 2][0.5]", "error: unsupported index type 'double' in list"},
    Case{"[1, 2]['a']", "error: unsupported index type 'string' in list"}, Case{"1.a", "error: no such overload"},
    Case{"'s'[0]", "error: no such overload"}, Case{"has({'a': 1}.a)", "true"}, Case{"has({'a': 1}.b)", "false"},
    Case{"has(self.a.b)", "true", R"({"a": {"b": null}})"}, Case{"has(self.x.b)", "error: no such key: x", "{}"},
    Case{"has(1)", "compile: ERROR: <input>:1:1: invalid argument to has() macro"},
    Case{"has(self)", "compile: ERROR: <input>:1:1: invalid argument to has() macro"},
    Case{"has(1.a)", "error: no such overload"}, Case{"self.spec.list[1].name", "\"b\"",
                                                       R"({"spec": {"list": [{"name": "a"}, {"name": "b"}]}})"},
    Case{"self.missing", "error: no such key: missing", "{}"}, Case{"self['we-ird']", "1", R"({"we-ird": 1})"},
    Case{".self.a", "1", R"({"a": 1})"}, Case{"self.x__dash__y", "2", R"({"x__dash__y": 2})"}));

INSTANTIATE_TEST_SUITE_P(Functions, Eval, ::testing::Values(
    Case{"size('héllo')", "5"}, Case{"'héllo'.size()", "5"}, Case{"size(b'ab')", "2"}, Case{"size([1, 2])", "2"},
    Case{"size({'a': 1})", "1"}, Case{"size(self)", "3", "[1, 2, 3]"}, Case{"size(1)", "error: no such overload"},
    Case{"'abc'.startsWith('ab')", "true"}, Case{"'abc'.startsWith('b')", "false"}, Case{"'abc'.endsWith('bc')", "true"},
    Case{"'abc'.contains('b')", "true"}, Case{"'abc'.contains('d')", "false"}, Case{"'abc'.contains(1)", "error: no such overload"},
    Case{"'abc'.matches('^a.c$')", "true"}, Case{"'abc'.matches('^b')", "false"}, Case{"matches('abc', 'b')", "true"},
    Case{"'ABC'.matches('(?i)^abc$')", "true"}, Case{"'abc'.matches('[')", "compile: ERROR: <input>:1:15: error parsing regexp: missing closing ]"},
    Case{"'abc'.matches('a' + '[')", "error: error parsing regexp: missing closing ]"},
    Case{"self.matches('^[a-z]+$')", "true", R"("abc")"},
    Case{"'AbC'.lowerAscii()", "\"abc\""}, Case{"'AbC'.upperAscii()", "\"ABC\""},
    Case{"'  a b \\t'.trim()", "\"a b\""}, Case{"'a,b,c'.split(',')", "[\"a\", \"b\", \"c\"]"},
    Case{"'a,b,c'.split(',', 2)", "[\"a\", \"b,c\"]"}, Case{"'abc'.split('')", "[\"a\", \"b\", \"c\"]"},
    Case{"'a,b'.split(',', 0)", "[]"}, Case{"'aaa'.replace('a', 'b')", "\"bbb\""},
    Case{"'aaa'.replace('a', 'b', 1)", "\"baa\""}, Case{"'ab'.replace('', '-')", "\"-a-b-\""},
    Case{"'hello'.indexOf('l')", "2"}, Case{"'hello'.lastIndexOf('l')", "3"}, Case{"'hello'.indexOf('l', 3)", "3"},
    Case{"'hello'.indexOf('z')", "-1"}, Case{"'héllo'.indexOf('l')", "2"},
    Case{"'hello'.indexOf('l', 9)", "error: index out of range: 9"}, Case{"'hello'.lastIndexOf('l', 2)", "2"},
    Case{"'hello'.substring(1, 3)", "\"el\""}, Case{"'hello'.substring(2)", "\"llo\""},
    Case{"'hello'.substring(3, 1)", "error: invalid substring range. start: 3, end: 1"},
    Case{"'hello'.substring(9)", "error: index out of range: 9"}, Case{"'héllo'.charAt(1)", "\"é\""},
    Case{"'ab'.charAt(2)", "\"\""}, Case{"['a', 'b'].join('-')", "\"a-b\""}, Case{"['a', 'b'].join()", "\"ab\""},
    Case{"['a', 1].join()", "error: no such overload"}, Case{"[1, 2, 3].isSorted()", "true"},
    Case{"[3, 1].isSorted()", "false"}, Case{"['a', 'b'].isSorted()", "true"}, Case{"[1, 'a'].isSorted()", "error: no such overload"},
    Case{"[1, 2, 3].sum()", "6"}, Case{"[1.5, 2.5].sum()", "d:4"}, Case{"[].sum()", "0"},
    Case{"[9223372036854775807, 1].sum()", "error: integer overflow"}, Case{"[3, 1, 2].min()", "1"},
    Case{"[3, 1, 2].max()", "3"}, Case{"[].min()", "error: min(list) argument must not be empty"},
    Case{"[1, 2, 1].indexOf(1)", "0"}, Case{"[1, 2, 1].lastIndexOf(1)", "2"}, Case{"[1].indexOf(5)", "-1"},
    Case{"'a'.nosuch()", "compile: ERROR: <input>:1:5: undeclared reference to 'nosuch'"},
    Case{"nosuch(1)", "compile: ERROR: <input>:1:1: undeclared reference to 'nosuch'"},
    Case{"size()", "compile: ERROR: <input>:1:1: undeclared reference to 'size'"}));

INSTANTIATE_TEST_SUITE_P(Conversions, Eval, ::testing::Values(
    Case{"int('42')", "42"}, Case{"int('-7')", "-7"}, Case{"int('x')", "error: type conversion error from 'string' to 'int'"},
    Case{"int(3.9)", "3"}, Case{"int(-3.9)", "-3"}, Case{"int(1e19)", "error: integer overflow"},
    Case{"int(18446744073709551615u)", "error: integer overflow"}, Case{"int(5u)", "5"}, Case{"uint(1)", "1u"},
    Case{"uint(-1)", "error: unsigned integer overflow"}, Case{"uint('7')", "7u"}, Case{"double(1)", "d:1"},
    Case{"double('1.5')", "d:1.5"}, Case{"double('x')", "error: type conversion error"}, Case{"string(1)", "\"1\""},
    Case{"string(1u)", "\"1\""}, Case{"string(1.5)", "\"1.5\""}, Case{"string(true)", "\"true\""},
    Case{"string(b'abc')", "\"abc\""}, Case{"string(b'\\xff')", "error: type conversion error"},
    Case{"string(null)", "error: no such overload"}, Case{"bool('true')", "true"}, Case{"bool('0')", "false"},
    Case{"bool('yes')", "error: type conversion error"}, Case{"bytes('a')", "b\"a\""},
    Case{"type(1) == int", "true"}, Case{"type('a') == string", "true"}, Case{"type([]) == list", "true"},
    Case{"type({}) == map", "true"}, Case{"type(null) == null_type", "true"}, Case{"type(type(1)) == type", "true"},
    Case{"type(1u) == uint && type(1.0) == double && type(true) == bool && type(b'') == bytes", "true"},
    Case{"dyn(1) + 1", "2"}, Case{"type(self.a) == int", "true", R"({"a": 1})"},
    Case{"type(self.a) == double", "true", R"({"a": 1.5})"}));

INSTANTIATE_TEST_SUITE_P(Macros, Eval, ::testing::Values(
    Case{"[1, 2, 3].all(x, x > 0)", "true"}, Case{"[1, 2, 3].all(x, x > 1)", "false"}, Case{"[].all(x, false)", "true"},
    Case{"[1, 2, 3].exists(x, x == 2)", "true"}, Case{"[1, 2, 3].exists(x, x == 5)", "false"},
    Case{"[].exists(x, true)", "false"}, Case{"[1, 2, 3].exists_one(x, x > 1)", "false"},
    Case{"[1, 2, 3].exists_one(x, x > 2)", "true"}, Case{"[1, 2, 3].map(x, x * 2)", "[2, 4, 6]"},
    Case{"[1, 2, 3].map(x, x > 1, x * 10)", "[20, 30]"}, Case{"[1, 2, 3].filter(x, x != 2)", "[1, 3]"},
    Case{"{'a': 1, 'b': 2}.all(k, k != 'c')", "true"}, Case{"{'a': 1, 'b': 2}.map(k, k)", "[\"a\", \"b\"]"},
    Case{"self.filter(k, self[k] > 1)", "[\"b\"]", R"({"a": 1, "b": 2})"},
    Case{"[0, 1].all(x, 1 / x > 0)", "error: division by zero"}, Case{"[0, 1].all(x, 1 / x > 5)", "false"},
    Case{"[0, 1].exists(x, 1 / x == 1)", "true"}, Case{"[0].exists(x, 1 / x == 1)", "error: division by zero"},
    Case{"[1, 2].exists_one(x, 1 / (x - 1) > 0)", "error: division by zero"},
    Case{"[1, 2].map(x, 1 / (x - 1))", "error: division by zero"}, Case{"[1].all(x, x)", "error: no such overload"},
    Case{"[1].filter(x, x)", "error: no such overload"}, Case{"[[1, 2], [3]].all(l, l.all(x, x > 0))", "true"},
    Case{"[1].all(x, [2].all(x, x == 2))", "true"}, Case{"[1, 2].map(x, [x].map(y, x + y))", "[[2], [4]]"},
    Case{"[1, 2].filter(x, x > 1).map(y, y * 3)", "[6]"}, Case{"1.all(x, true)", "error: no such overload"},
    Case{"[1].all(1, true)", "compile: ERROR: <input>:1:9: argument is not an identifier"},
    Case{"[1].all(x, y)", "compile: ERROR: <input>:1:12: undeclared reference to 'y'"},
    Case{"[1].foo(x, x)", "compile: ERROR: <input>:1:5: undeclared reference to 'foo'"},
    Case{"size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0", "false", R"(["a", "b", "a"])"}));

INSTANTIATE_TEST_SUITE_P(Optionals, Eval, ::testing::Values(
    Case{"optional.of(1).hasValue()", "true"}, Case{"optional.none().hasValue()", "false"},
    Case{"optional.none().orValue(5)", "5"}, Case{"optional.of(1).value()", "1"},
    Case{"optional.none().value()", "error: optional.none() dereference"}, Case{"{'a': 1}.?a.orValue(0)", "1"},
    Case{"{'a': 1}.?b.orValue(0)", "0"}, Case{"{'a': {'b': 2}}.?a.?b.orValue(0)", "2"},
    Case{"{'a': {}}.?a.?b", "optional.none()"}, Case{"[1][?0]", "optional(1)"}, Case{"[1][?3].hasValue()", "false"},
    Case{"{'a': 1}[?'a']", "optional(1)"}, Case{"optional.ofNonZeroValue('').hasValue()", "false"},
    Case{"optional.ofNonZeroValue(1)", "optional(1)"}, Case{"optional.none().or(optional.of(2)).value()", "2"},
    Case{"optional.of(1) == optional.of(1)", "true"}, Case{"1.hasValue()", "error: no such overload"}));

INSTANTIATE_TEST_SUITE_P(Syntax, Eval, ::testing::Values(
    Case{"1 +", "compile: ERROR: <input>:1:4: Syntax error"}, Case{"(1", "compile: ERROR: <input>:1:3: Syntax error"},
    Case{"[1, 2", "compile: ERROR: <input>:1:6: Syntax error"}, Case{"{'a' 1}", "compile: ERROR: <input>:1:6: Syntax error"},
    Case{"1 = 1", "compile: ERROR: <input>:1:3: Syntax error: token recognition error"},
    Case{"self.", "compile: ERROR: <input>:1:6: Syntax error"}, Case{"1 & 2", "compile: ERROR: <input>:1:3: Syntax error"},
    Case{"1 2", "compile: ERROR: <input>:1:3: Syntax error: extraneous input"}, Case{"", "compile: ERROR: <input>:1:1: Syntax error"},
    Case{"namespace", "compile: ERROR: <input>:1:1: reserved identifier: namespace"},
    Case{"foo", "compile: ERROR: <input>:1:1: undeclared reference to 'foo'"}, Case{"1 #", "compile: ERROR: <input>:1:3"},
    Case{"a.b(", "compile: "}, Case{"[1].all(x)", "compile: ERROR: <input>:1:5: undeclared reference to 'all'"},
    Case{"\n  1 +", "compile: ERROR: <input>:2:6: Syntax error"}));

// Reserved words as cel-go's parser takes them: field names after a dot (selection,
// has(), optional selection), never variables, functions or loop variables; true,
// false, null and in are tokens, so no field name at all; backquoted names are cel-go's
// escape syntax, which Kubernetes leaves disabled.
INSTANTIATE_TEST_SUITE_P(ReservedWords, Eval, ::testing::Values(
    Case{"self.while", "1", R"({"while": 1})"}, Case{"self.namespace", "\"ns\"", R"({"namespace": "ns"})"},
    Case{"has(self.namespace)", "true", R"({"namespace": "ns"})"}, Case{"has(self.namespace)", "false", "{}"},
    Case{"self.?package.orValue(0)", "0", "{}"}, Case{"{'var': 2}.var", "2"},
    Case{"self.namespace()", "compile: ERROR: <input>:1:6: undeclared reference to 'namespace'"},
    Case{"var", "compile: ERROR: <input>:1:1: reserved identifier: var"},
    Case{".namespace", "compile: ERROR: <input>:1:1: reserved identifier: namespace"},
    Case{"1 + return(2)", "compile: ERROR: <input>:1:5: reserved identifier: return"},
    Case{"[1].all(var, true)", "compile: ERROR: <input>:1:9: reserved identifier: var"},
    Case{"self.true == 1", "compile: ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER"},
    Case{"self.null", "compile: ERROR: <input>:1:6: Syntax error: mismatched input 'null' expecting IDENTIFIER"},
    Case{"self.in", "compile: ERROR: <input>:1:6: Syntax error: no viable alternative at input '.in'"},
    Case{"self.`in`", "compile: ERROR: <input>:1:6: unsupported syntax: '`'"},
    Case{"self.`a-b`", "compile: ERROR: <input>:1:6: unsupported syntax: '`'"}));

// Variables: undeclared ones fail to compile; declared but unbound ones read as errors.
TEST(EvalVariables, SelfAndOldSelf) {
  auto p = Program::compile("self == oldSelf", {"self", "oldSelf"});
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE((*p)->uses(0));
  EXPECT_TRUE((*p)->uses(1));
  json::value a = J("[1, 2]"), b = J("[1, 2]");
  EXPECT_EQ(render((*p)->evaluate({Value::from_json(a, nullptr), Value::from_json(b, nullptr)}).value), "true");
  EXPECT_EQ(render((*p)->evaluate({Value::from_json(a, nullptr)}).value), "error: no such attribute");
  auto q = Program::compile("self.x", {"self", "oldSelf"});
  ASSERT_TRUE(q.has_value());
  EXPECT_FALSE((*q)->uses(1));
}

// Hostile expressions terminate with a compile error or the cost-limit error, never
// by exhausting the stack, memory or time.
TEST(EvalLimits, DeepNestingIsACompileError) {
  std::string parens = std::string(10000, '(') + "1" + std::string(10000, ')');
  EXPECT_EQ(run(parens).rfind("compile: ERROR: <input>:1:", 0), 0u);
  std::string sum = "1";
  for (int i = 0; i < 5000; ++i) sum += " + 1";
  EXPECT_NE(run(sum).find("max recursion depth exceeded"), std::string::npos);
  std::string nots(50000, '!');
  EXPECT_EQ(run(nots + "true"), "true");
  std::string members = "self";
  for (int i = 0; i < 5000; ++i) members += ".a";
  EXPECT_NE(run(members).find("max recursion depth exceeded"), std::string::npos);
  EXPECT_NE(run(std::string(200000, ' ') + "1").find("exceeds limit"), std::string::npos);
}

TEST(EvalLimits, LongConjunctionsAreBalanced) {
  std::string all = "true";
  for (int i = 0; i < 10000; ++i) all += " && true";
  EXPECT_EQ(run(all), "true");
  std::string any = "false";
  for (int i = 0; i < 10000; ++i) any += " || false";
  EXPECT_EQ(run(any), "false");
}

TEST(EvalLimits, RunawayExpressionsHitTheCostLimit) {
  const std::string ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  std::string nested = ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, " + ten + ".all(d, " + ten +
                       ".all(e, " + ten + ".all(f, a + b + c + d + e + f > 0))))))";
  EXPECT_EQ(run(nested), "error: operation cancelled: actual cost limit exceeded");
  // Exponential growth by list concatenation is stopped by the size it would cost.
  // Exponential growth (2^40 elements) is stopped by the cost of what it builds.
  std::string doubling = "1";
  for (int i = 0; i < 40; ++i) doubling = "[1, 2].map(a" + std::to_string(i) + ", " + doubling + ")";
  EXPECT_EQ(run(doubling), "error: operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(run("[1, 2, 3].all(x, x > 0)", "null", 3), "error: operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(run("[1, 2, 3].all(x, x > 0)", "null", 100), "true");
  // An exceeded limit is not absorbed by || or &&.
  EXPECT_EQ(run(ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, true))) || true", "null", 500),
            "error: operation cancelled: actual cost limit exceeded");
  std::string big(100000, 'x');
  EXPECT_EQ(run("self + self + self", "\"" + big + "\"", 1000).rfind("error: operation cancelled", 0), 0u);
}

// Rules of one schema node share the results of the subexpressions they have in common
// (Program::share_subexpressions): the same values and costs as evaluating each alone.
std::vector<std::shared_ptr<const Program>> compiled(std::initializer_list<const char*> sources) {
  std::vector<std::shared_ptr<const Program>> out;
  for (const char* src : sources) {
    auto p = Program::compile(src, {"self", "oldSelf"});
    EXPECT_TRUE(p.has_value()) << src;
    out.push_back(p.has_value() ? *p : nullptr);
  }
  return out;
}

TEST(EvalMemo, SharedSubexpressionsGiveTheSameResultsAndCosts) {
  auto programs = compiled({"self.l.exists(x, x == 2) && self.n > 0", "self.l.exists(x, x == 2) || oldSelf.n > 1",
                            "oldSelf.n > 1 ? size(self.l) : 0"});
  std::vector<int> binding(programs.size(), 0);
  EXPECT_GE(Program::share_subexpressions(programs, binding), 2u);
  json::value self = J(R"({"l":[1,2,3],"n":1})");
  json::value old = J(R"({"n":2})");
  Value vars[] = {Value::from_json(self, nullptr), Value::from_json(old, nullptr)};
  Memo memo(Program::share_subexpressions(programs, binding));
  for (const auto& p : programs) {
    auto alone = p->evaluate(vars, kPerCallLimit);
    auto shared = p->evaluate(vars, kPerCallLimit, &memo);
    EXPECT_EQ(render(shared.value), render(alone.value)) << p->source();
    EXPECT_EQ(shared.cost, alone.cost) << p->source();
  }
  EXPECT_GE(memo.hits, 2u);
  // Under a limit the recorded cost does not fit: evaluated, and stopped where it would be.
  for (std::uint64_t limit = 1; limit < 20; ++limit) {
    Memo fresh(memo.entries.size());
    programs[0]->evaluate(vars, kPerCallLimit, &fresh);
    auto alone = programs[1]->evaluate(vars, limit);
    auto shared = programs[1]->evaluate(vars, limit, &fresh);
    EXPECT_EQ(render(shared.value), render(alone.value)) << limit;
    EXPECT_EQ(shared.cost, alone.cost) << limit;
  }
}

TEST(EvalMemo, NothingThatReadsAnOuterLoopVariableOrADifferentBindingIsShared) {
  // The inner exists reads x, bound by the outer loop: its value changes with x.
  auto programs = compiled({"self.l.all(x, self.m.exists(y, y == x))", "self.l.exists(x, self.m.exists(y, y == x))"});
  std::vector<int> binding(programs.size(), 0);
  Memo memo(Program::share_subexpressions(programs, binding));
  json::value self = J(R"({"l":[1,2],"m":[2]})");
  Value vars[] = {Value::from_json(self, nullptr), Value::null()};
  EXPECT_EQ(render(programs[0]->evaluate(vars, kPerCallLimit, &memo).value), "false");
  EXPECT_EQ(render(programs[1]->evaluate(vars, kPerCallLimit, &memo).value), "true");
  // Rules evaluated with different oldSelf bindings (optionalOldSelf) share nothing.
  auto same = compiled({"oldSelf.n > 1", "oldSelf.n > 1"});
  std::vector<int> bindings = {0, 1};
  EXPECT_EQ(Program::share_subexpressions(same, bindings), 0u);
}

}  // namespace
}  // namespace kueuepp::kube::schema::cel

#include "kube/webhook/field_errors.hpp"

#include <gtest/gtest.h>

#include "kube/webhook/go_parse.hpp"

namespace kueuepp::kube::webhook {
namespace {

TEST(FieldErrors, ReadAsApimachineryWritesThem) {
  const FieldPath labels = FieldPath("metadata").child("labels");
  EXPECT_EQ(invalid_string(labels.key("kueue.x-k8s.io/queue-name"), "b", "field is immutable").message(),
            R"(metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "b": field is immutable)");
  EXPECT_EQ(invalid_int(FieldPath("spec").child("x").index(2), -1, "should be greater than 0").message(),
            "spec.x[2]: Invalid value: -1: should be greater than 0");
  EXPECT_EQ(forbidden(FieldPath("spec").child("parallelism"), "cannot change").message(),
            "spec.parallelism: Forbidden: cannot change");
  EXPECT_EQ(duplicate(FieldPath("a"), go_quote("cpu")).message(), R"(a: Duplicate value: "cpu")");
  EXPECT_EQ(not_supported(FieldPath("f"), "x", {"a", "b"}).message(),
            R"(f: Unsupported value: "x": supported values: "a", "b")");
  EXPECT_EQ(go_quote("a\"b\\c\n"), R"("a\"b\\c\n")");
}

TEST(FieldErrors, AggregateIsOneMessageOrAListWithoutRepeats) {
  FieldErrors one{forbidden(FieldPath("a"), "x")};
  EXPECT_EQ(aggregate(one), "a: Forbidden: x");
  FieldErrors two{forbidden(FieldPath("a"), "x"), forbidden(FieldPath("b"), "y"), forbidden(FieldPath("a"), "x")};
  EXPECT_EQ(aggregate(two), "[a: Forbidden: x, b: Forbidden: y]");
  FieldErrors none;
  check_immutable("same", "same", FieldPath("p"), none);
  EXPECT_TRUE(none.empty());
  check_immutable("new", "old", FieldPath("p"), none);
  EXPECT_EQ(aggregate(none), R"(p: Invalid value: "new": field is immutable)");
}

TEST(GoParse, AtoiAndParseBoolSayWhatGoSays) {
  EXPECT_EQ(std::get<std::int64_t>(go_atoi("42")), 42);
  EXPECT_EQ(std::get<std::int64_t>(go_atoi("-7")), -7);
  EXPECT_EQ(std::get<std::int64_t>(go_atoi("+7")), 7);
  EXPECT_EQ(std::get<std::int64_t>(go_atoi("-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(std::get<std::string>(go_atoi("ten")), R"(strconv.Atoi: parsing "ten": invalid syntax)");
  EXPECT_EQ(std::get<std::string>(go_atoi("")), R"(strconv.Atoi: parsing "": invalid syntax)");
  EXPECT_EQ(std::get<std::string>(go_atoi("1.5")), R"(strconv.Atoi: parsing "1.5": invalid syntax)");
  EXPECT_EQ(std::get<std::string>(go_atoi("9223372036854775808")),
            R"(strconv.Atoi: parsing "9223372036854775808": value out of range)");
  EXPECT_TRUE(std::get<bool>(go_parse_bool("True")));
  EXPECT_FALSE(std::get<bool>(go_parse_bool("0")));
  EXPECT_EQ(std::get<std::string>(go_parse_bool("yes")), R"(strconv.ParseBool: parsing "yes": invalid syntax)");
}

}  // namespace
}  // namespace kueuepp::kube::webhook

// The cohort trees of the web view: queues grouped by root cohort, lending attributed.

#include <gtest/gtest.h>

#include "actors/cohort_view.hpp"

namespace kueuepp::actors {
namespace {

json::object report(std::string name, std::string root, std::int64_t nominal, std::int64_t reserved,
                    std::int64_t borrowed, std::optional<std::int64_t> lending_limit = std::nullopt) {
  json::object line{{"flavor", "default"}, {"resource", "cpu"}, {"nominalMilli", nominal},
                    {"reservedMilli", reserved}, {"borrowedMilli", borrowed}};
  if (lending_limit) line["lendingLimitMilli"] = *lending_limit;
  return json::object{{"name", name}, {"rootCohort", root}, {"resources", json::array{line}}};
}

std::int64_t lent_of(const json::object& view, std::size_t tree, std::size_t queue) {
  return view.at("trees").as_array()[tree].as_object().at("clusterQueues").as_array()[queue].as_object()
      .at("resources").as_array()[0].as_object().at("lentMilli").as_int64();
}

TEST(CohortView, GroupsByRootAndAttributesWhatIsBorrowed) {
  std::vector<json::object> reports;
  reports.push_back(report("borrower", "team", 4000, 7000, 3000));
  reports.push_back(report("lender-a", "team", 4000, 0, 0));
  reports.push_back(report("lender-b", "team", 4000, 2000, 0, 1000));
  reports.push_back(report("alone", "", 1000, 500, 0));
  auto view = cohort_view(std::move(reports));
  EXPECT_EQ(view.at("clusterQueueCount").as_uint64(), 4u);
  const auto& trees = view.at("trees").as_array();
  ASSERT_EQ(trees.size(), 2u);
  EXPECT_EQ(trees[0].as_object().at("root").as_string(), "");  // "alone" is a tree of its own
  EXPECT_EQ(lent_of(view, 0, 0), 0);
  // team: 3 borrowed; lendable unused is 4 (lender-a) and 1 (lender-b, capped by its lendingLimit).
  EXPECT_EQ(lent_of(view, 1, 0), 0);     // borrower
  EXPECT_EQ(lent_of(view, 1, 1), 2400);  // lender-a: 3 * 4/5
  EXPECT_EQ(lent_of(view, 1, 2), 600);   // lender-b: 3 * 1/5
}

TEST(CohortView, NothingBorrowedMeansNothingLent) {
  std::vector<json::object> reports;
  reports.push_back(report("a", "team", 4000, 1000, 0));
  reports.push_back(report("b", "team", 4000, 0, 0));
  auto view = cohort_view(std::move(reports));
  EXPECT_EQ(lent_of(view, 0, 0), 0);
  EXPECT_EQ(lent_of(view, 0, 1), 0);
  EXPECT_TRUE(cohort_view({}).at("trees").as_array().empty());
}

}  // namespace
}  // namespace kueuepp::actors

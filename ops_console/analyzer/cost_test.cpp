#include "ops_console/analyzer/cost.hpp"

#include <gtest/gtest.h>

namespace ops_console::analyzer {
namespace {

Gate gate(double estimate, double day_total, bool confirmed = false, bool override_user = false) {
  return decide({.estimate = estimate, .day_total = day_total, .confirmed = confirmed, .override_user = override_user});
}

TEST(AnalyzerCost, PricesPerMillionTokens) {
  const Pricing p{.input_per_mtok = 2.5, .output_per_mtok = 10};
  EXPECT_DOUBLE_EQ(p.cost(1'000'000, 0), 2.5);
  EXPECT_DOUBLE_EQ(p.cost(200'000, 100'000), 0.5 + 1.0);
}

TEST(AnalyzerCost, ConfirmationAboveFiveNotAtFive) {
  EXPECT_EQ(gate(5.0, 0), Gate::allowed);
  EXPECT_EQ(gate(5.000001, 0), Gate::confirmation_required);
  EXPECT_EQ(gate(5.000001, 0, true), Gate::confirmed);
}

TEST(AnalyzerCost, WarningFromTwentyOn) {
  EXPECT_EQ(gate(1, 19.999999), Gate::allowed);
  EXPECT_EQ(gate(1, 20), Gate::warned);
  EXPECT_FALSE(warns({.day_total = 19.999999}));
  EXPECT_TRUE(warns({.day_total = 20}));
  EXPECT_TRUE(warns({.day_total = 55}));
}

TEST(AnalyzerCost, BlockedFromFiftyOnUnlessOverridden) {
  EXPECT_EQ(gate(1, 49.999999), Gate::warned);
  EXPECT_EQ(gate(1, 50), Gate::blocked);
  EXPECT_EQ(gate(1, 50, true), Gate::blocked);  // confirming the estimate does not lift the day's limit
  EXPECT_EQ(gate(1, 50, false, true), Gate::overridden);
  EXPECT_EQ(gate(6, 50, false, true), Gate::confirmation_required);  // an override still confirms a large one
  EXPECT_EQ(gate(6, 50, true, true), Gate::overridden);
  EXPECT_TRUE(refused(Gate::blocked));
  EXPECT_TRUE(refused(Gate::confirmation_required));
  EXPECT_FALSE(refused(Gate::overridden));
}

}  // namespace
}  // namespace ops_console::analyzer

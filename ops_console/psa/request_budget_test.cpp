#include "ops_console/psa/request_budget.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using ops_console::psa::RequestBudget;

TEST(RequestBudget, LetsTheHoursAllowanceThroughThenWaitsForTheOldestToLeave) {
  RequestBudget budget(3);
  const RequestBudget::Clock::time_point t0{};
  EXPECT_EQ(budget.take(t0), 0s);
  EXPECT_EQ(budget.take(t0 + 10min), 0s);
  EXPECT_EQ(budget.take(t0 + 20min), 0s);
  EXPECT_EQ(budget.take(t0 + 30min), 30min);  // full: the first leaves the hour at t0 + 1h
  EXPECT_EQ(budget.take(t0 + 59min), 1min);   // a refused take records nothing
  EXPECT_EQ(budget.take(t0 + 60min), 0s);     // the first has left: one more fits
  EXPECT_EQ(budget.take(t0 + 61min), 9min);   // the hour is full again until t0 + 70min
  EXPECT_EQ(budget.take(t0 + 70min), 0s);
}

TEST(RequestBudget, AQuietHourFreesTheWholeAllowance) {
  RequestBudget budget(2);
  const RequestBudget::Clock::time_point t0{};
  EXPECT_EQ(budget.take(t0), 0s);
  EXPECT_EQ(budget.take(t0), 0s);
  EXPECT_GT(budget.take(t0 + 1s), 0s);
  EXPECT_EQ(budget.take(t0 + 2h), 0s);
  EXPECT_EQ(budget.take(t0 + 2h), 0s);
  EXPECT_EQ(budget.take(t0 + 2h), 1h);
}

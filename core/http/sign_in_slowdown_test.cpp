#include "core/http/sign_in_slowdown.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;

TEST(SignInSlowdown, WaitsFromTheThirdFailureOneStepMoreEachTimeUpToFive) {
  const core::http::SignInSlowdown s{.slow_after = 3, .step = 1000ms, .max_steps = 5};
  EXPECT_EQ(s.delay(0), 0ms);
  EXPECT_EQ(s.delay(2), 0ms);
  EXPECT_EQ(s.delay(3), 1000ms);
  EXPECT_EQ(s.delay(4), 2000ms);
  EXPECT_EQ(s.delay(7), 5000ms);
  EXPECT_EQ(s.delay(100), 5000ms);
}

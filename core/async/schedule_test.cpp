#include "core/async/schedule.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace asio = boost::asio;
using core::async::Schedule;
using namespace std::chrono_literals;

namespace {

template <class Predicate>
bool within(std::chrono::milliseconds limit, Predicate done) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

TEST(Schedule, RunsEveryIntervalUntilStopped) {
  core::testing::IoThreads io(2);
  std::atomic<int> runs{0};
  auto schedule = Schedule::start(
      io.executor(), 20ms,
      [&]() -> asio::awaitable<void> {
        ++runs;
        co_return;
      },
      "test");
  EXPECT_TRUE(within(2s, [&] { return runs >= 3; }));
  schedule->stop();
  std::this_thread::sleep_for(50ms);
  const int stopped_at = runs;
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(runs, stopped_at);
}

TEST(Schedule, AWakeRunsTheJobNowInsteadOfAtTheEndOfTheWait) {
  core::testing::IoThreads io(2);
  std::atomic<int> runs{0};
  auto schedule = Schedule::start(
      io.executor(), 1h,
      [&]() -> asio::awaitable<void> {
        ++runs;
        co_return;
      },
      "test");
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(runs, 0);  // an hour to go
  schedule->wake();
  EXPECT_TRUE(within(2s, [&] { return runs == 1; }));
  schedule->wake();
  EXPECT_TRUE(within(2s, [&] { return runs == 2; }));
  schedule->stop();
}

TEST(Schedule, WakesDuringARunComeToOneMoreRun) {
  core::testing::IoThreads io(2);
  std::atomic<int> runs{0};
  std::atomic<bool> hold{true};
  auto schedule = Schedule::start(
      io.executor(), 1h,
      [&]() -> asio::awaitable<void> {
        ++runs;
        while (hold) co_await core::async::sleep_for(1ms);
      },
      "test");
  schedule->wake();
  ASSERT_TRUE(within(2s, [&] { return runs == 1; }));
  for (int i = 0; i < 5; ++i) schedule->wake();  // while the first run is held
  std::this_thread::sleep_for(20ms);
  hold = false;
  EXPECT_TRUE(within(2s, [&] { return runs == 2; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(runs, 2);
  schedule->stop();
}

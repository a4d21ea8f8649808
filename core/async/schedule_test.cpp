#include "core/async/schedule.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/manual_clock.hpp"
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

// On a hand-moved clock (core/testing/manual_clock.hpp): a run at the end of each interval, each
// over when advance() returns; none after stop().
TEST(Schedule, OnAManualClockRunsAtTheEndOfEachIntervalUntilStopped) {
  core::testing::IoThreads io(2);
  auto clock = std::make_shared<core::testing::ManualClock>();
  std::atomic<int> runs{0};
  auto schedule = Schedule::start(
      io.executor(), 5min,
      [&]() -> asio::awaitable<void> {
        ++runs;
        co_return;
      },
      "counted", clock);
  clock->advance(4min + 59s);
  EXPECT_EQ(runs, 0);
  clock->advance(1s);
  EXPECT_EQ(runs, 1);
  clock->advance(15min);  // three intervals at once: three runs, as on a real clock
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(clock->rounds("counted"), 4);
  EXPECT_EQ(clock->waiting(), 1u);

  schedule->stop();
  clock->settle();
  EXPECT_EQ(clock->waiting(), 0u);
  clock->advance(1h);
  EXPECT_EQ(runs, 4);
}

// A wake ends the wait without moving the clock, and settle() returns once its run is over; the
// next interval starts from the wake's run.
TEST(Schedule, OnAManualClockAWakeRunsNowAndSettleWaitsForIt) {
  core::testing::IoThreads io(2);
  auto clock = std::make_shared<core::testing::ManualClock>();
  std::atomic<int> runs{0};
  auto schedule = Schedule::start(
      io.executor(), 1h,
      [&]() -> asio::awaitable<void> {
        co_await core::async::sleep_for(1ms);  // a run that takes a while
        ++runs;
      },
      "woken", clock);
  schedule->wake();
  clock->settle();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(clock->rounds("woken"), 0);  // ended by the wake, not the clock
  clock->advance(59min);
  EXPECT_EQ(runs, 1);
  clock->advance(1min);
  EXPECT_EQ(runs, 2);
  schedule->stop();
  clock->settle();
}

// Each run is counted by the schedule's name and outcome, with its duration (docs/metrics.md).
TEST(Schedule, RunsAreCountedByNameAndOutcome) {
  core::testing::IoThreads io(2);
  auto clock = std::make_shared<core::testing::ManualClock>();
  std::atomic<int> runs{0};
  auto schedule = Schedule::start(
      io.executor(), 1min,
      [&]() -> asio::awaitable<void> {
        if (++runs == 2) throw std::runtime_error("the second run fails");
        co_return;
      },
      "metered job", clock);
  clock->advance(3min);
  schedule->stop();
  clock->settle();
  ASSERT_EQ(runs, 3);
  const auto text = core::metrics::process_registry().expose();
  EXPECT_NE(text.find("\njob_runs_total{schedule=\"metered job\",outcome=\"ok\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\njob_runs_total{schedule=\"metered job\",outcome=\"error\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\njob_run_duration_seconds_count{schedule=\"metered job\"} 3\n"), std::string::npos) << text;
}

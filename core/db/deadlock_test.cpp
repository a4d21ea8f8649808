// core::db::retry_deadlocked: what is tried again, and how often. A real deadlock between two
// writers, and the page written on its next attempt, is PsaSyncTest's (ops_console/tests).
#include "core/db/deadlock.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

namespace {

using boost::asio::awaitable;

const core::db::Error kDeadlock{"40P01", "deadlock detected"};

// Work that counts its runs in `runs` and fails each one with `error`.
template <class E>
auto failing(int& runs, E error) {
  return [&runs, error]() -> awaitable<void> {
    ++runs;
    throw error;
    co_return;
  };
}

TEST(RetryDeadlocked, WorkAbortedToBreakADeadlockRunsAgainAndItsValueIsTheLastAttempts) {
  core::testing::IoThreads io(1);
  int runs = 0;
  const int value = io.run(core::db::retry_deadlocked([&]() -> awaitable<int> {
    if (++runs < 3) throw kDeadlock;
    co_return runs * 10;
  }));
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(value, 30);
}

TEST(RetryDeadlocked, TheLastDeadlockIsThrownAfterTheAttempts) {
  core::testing::IoThreads io(1);
  int runs = 0;
  const auto always = failing(runs, kDeadlock);
  EXPECT_THROW(io.run(core::db::retry_deadlocked(always)), core::db::Error);
  EXPECT_EQ(runs, core::db::kDeadlockAttempts);
  runs = 0;
  EXPECT_THROW(io.run(core::db::retry_deadlocked(always, 1)), core::db::Error);
  EXPECT_EQ(runs, 1);
}

TEST(RetryDeadlocked, AnyOtherFailureIsThrownAtOnce) {
  core::testing::IoThreads io(1);
  int runs = 0;
  const auto unique_violation = failing(runs, core::db::Error("23505", "duplicate key"));
  EXPECT_THROW(io.run(core::db::retry_deadlocked(unique_violation)), core::db::Error);
  EXPECT_EQ(runs, 1);
  runs = 0;
  const auto lost = failing(runs, core::db::Unavailable("connection lost"));
  EXPECT_THROW(io.run(core::db::retry_deadlocked(lost)), core::db::Unavailable);
  EXPECT_EQ(runs, 1);
}

}  // namespace

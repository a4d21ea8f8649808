#include "core/async/join.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>

#include <atomic>
#include <future>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

TEST(JoinAll, RunsTasksSideBySideAndWaitsForEveryOne) {
  core::testing::IoThreads io(2);
  std::atomic<int> inside{0}, most{0}, done{0};
  std::vector<std::function<asio::awaitable<void>()>> tasks;
  for (int i = 0; i < 8; ++i)
    tasks.push_back([&]() -> asio::awaitable<void> {
      const int now = ++inside;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      co_await core::async::sleep_for(20ms);
      --inside;
      ++done;
    });
  io.run(core::async::join_all(io.executor(), std::move(tasks)));
  EXPECT_EQ(done, 8);
  EXPECT_EQ(most, 8);  // all were under way at once
}

TEST(JoinAll, FinishesEveryTaskThenRethrowsTheFirstError) {
  core::testing::IoThreads io(1);
  std::atomic<int> done{0};
  std::vector<std::function<asio::awaitable<void>()>> tasks;
  tasks.push_back([]() -> asio::awaitable<void> {
    co_await core::async::sleep_for(1ms);
    throw std::runtime_error("mailbox one failed");
  });
  tasks.push_back([&]() -> asio::awaitable<void> {
    co_await core::async::sleep_for(30ms);
    ++done;
  });
  EXPECT_THROW(io.run(core::async::join_all(io.executor(), std::move(tasks))), std::runtime_error);
  EXPECT_EQ(done, 1);
  io.run(core::async::join_all(io.executor(), {}));  // nothing to wait for
}

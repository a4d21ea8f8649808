#include "core/async/semaphore.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>

#include <atomic>
#include <future>
#include <vector>

namespace asio = boost::asio;
using core::async::Semaphore;
using namespace std::chrono_literals;

TEST(Semaphore, NeverLetsMoreThanItsPermitsIn) {
  core::testing::IoThreads io(4);
  Semaphore slots(3);
  std::atomic<int> inside{0}, most{0}, done{0};
  std::vector<std::future<void>> tasks;
  for (int i = 0; i < 40; ++i) {
    tasks.push_back(asio::co_spawn(
        io.executor(),
        [&]() -> asio::awaitable<void> {
          auto permit = co_await slots.acquire();
          const int now = ++inside;
          for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
          }
          co_await core::async::sleep_for(2ms);
          --inside;
          ++done;
        },
        asio::use_future));
  }
  for (auto& t : tasks) t.get();
  EXPECT_EQ(done, 40);
  EXPECT_EQ(most, 3);
  EXPECT_EQ(slots.available(), 3u);
}

TEST(Semaphore, ServesWaitersInArrivalOrder) {
  core::testing::IoThreads io(1);
  Semaphore slot(1);
  std::vector<int> order;
  auto first = io.run([&]() -> asio::awaitable<Semaphore::Permit> { co_return co_await slot.acquire(); }());
  std::vector<std::future<void>> waiting;
  for (int i = 0; i < 5; ++i) {
    waiting.push_back(asio::co_spawn(
        io.executor(),
        [&, i]() -> asio::awaitable<void> {
          auto permit = co_await slot.acquire();
          order.push_back(i);
        },
        asio::use_future));
    // one I/O thread runs handlers in order: the waiter queues before this pause ends
    io.run([]() -> asio::awaitable<void> { co_await core::async::sleep_for(1ms); }());
  }
  EXPECT_TRUE(order.empty());  // nobody got in while the first permit was held
  first.reset();
  for (auto& w : waiting) w.get();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(slot.available(), 1u);
}

TEST(Semaphore, AMovedPermitIsReturnedOnce) {
  core::testing::IoThreads io(1);
  Semaphore slots(2);
  io.run([&]() -> asio::awaitable<void> {
    auto a = co_await slots.acquire();
    Semaphore::Permit b = std::move(a);
    EXPECT_EQ(slots.available(), 1u);
    a.reset();  // moved-from: returns nothing
    EXPECT_EQ(slots.available(), 1u);
    b.reset();
    EXPECT_EQ(slots.available(), 2u);
  }());
}

#include "core/async/bounded_executor.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace asio = boost::asio;
using core::async::Strand;

// A strand made from an io_context's executor, or from a strand of one, runs its work on that
// io_context; each is a strand of its own; an executor of another kind of context is refused.
TEST(Strand, IsMadeOnTheIoContextOfTheExecutorOrOfAStrandOfIt) {
  asio::io_context io;
  const auto first = core::async::make_strand(io.get_executor());
  const auto second = core::async::make_strand(asio::any_io_executor(first));
  EXPECT_EQ(&first.get_inner_executor().context(), &io);
  EXPECT_EQ(&second.get_inner_executor().context(), &io);
  EXPECT_NE(first, second);
  EXPECT_EQ(first, asio::require(first, asio::execution::blocking.never));  // the same queue

  bool inside_own_strand = false;
  asio::post(second, [&] { inside_own_strand = second.running_in_this_thread() && !first.running_in_this_thread(); });
  io.run();
  EXPECT_TRUE(inside_own_strand);

  asio::thread_pool pool(1);
  EXPECT_THROW(core::async::make_strand(pool.get_executor()), std::invalid_argument);
}

// Work posted to one strand from many threads never overlaps, on an io_context run by several
// threads; and it all runs, also when the strand's last copy is gone before it does.
TEST(Strand, RunsItsWorkOneAtATimeAcrossThreads) {
  asio::io_context io;
  std::atomic<int> inside{0}, overlaps{0}, done{0};
  {
    const auto strand = core::async::make_strand(io.get_executor());
    std::vector<std::thread> posters;
    for (int t = 0; t < 4; ++t)
      posters.emplace_back([&, strand] {
        for (int i = 0; i < 500; ++i)
          asio::post(strand, [&] {
            if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
            std::this_thread::yield();
            inside.fetch_sub(1);
            done.fetch_add(1);
          });
      });
    for (auto& p : posters) p.join();
  }
  std::vector<std::thread> runners;
  for (int t = 0; t < 3; ++t) runners.emplace_back([&] { io.run(); });
  for (auto& r : runners) r.join();
  EXPECT_EQ(done, 2000);
  EXPECT_EQ(overlaps, 0);
}

// A coroutine spawned on a strand with bounds reads them through its executor, after waits too;
// one on a strand without bounds reads none.
TEST(Strand, CarriesItsBoundsToTheCoroutinesOnIt) {
  asio::io_context io;
  auto bounds = std::make_shared<core::async::Bounds>(core::async::Bounds{.database = std::chrono::milliseconds(1234)});
  std::chrono::milliseconds seen_before{}, seen_after{};
  bool plain_has_none = false;
  asio::co_spawn(
      core::async::make_strand(io.get_executor(), bounds),
      [&]() -> asio::awaitable<void> {
        seen_before = core::async::bounds_of(co_await asio::this_coro::executor)->database;
        asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(1));
        co_await timer.async_wait(asio::use_awaitable);
        seen_after = core::async::bounds_of(co_await asio::this_coro::executor)->database;
      },
      asio::detached);
  asio::co_spawn(
      core::async::make_strand(io.get_executor()),
      [&]() -> asio::awaitable<void> { plain_has_none = !core::async::bounds_of(co_await asio::this_coro::executor); },
      asio::detached);
  io.run();
  EXPECT_EQ(seen_before.count(), 1234);
  EXPECT_EQ(seen_after.count(), 1234);
  EXPECT_TRUE(plain_has_none);
}

// A coroutine on a strand counts as work of its io_context while it lives (Asio asks its executor
// for outstanding_work.tracked): run() waits for it, also while it waits for something that is not
// an operation of the io_context, such as another thread's answer.
TEST(Strand, ACoroutineOnItKeepsItsIoContextRunning) {
  asio::io_context io;
  std::thread answerer;
  bool finished = false;
  asio::co_spawn(
      core::async::make_strand(io.get_executor()),
      [&]() -> asio::awaitable<void> {
        co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
            [&](auto handler) {
              answerer = std::thread([h = std::move(handler)]() mutable {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                const auto executor = asio::get_associated_executor(h);
                asio::post(executor, std::move(h));
              });
            },
            asio::use_awaitable);
        finished = true;
      },
      asio::detached);
  io.run();
  answerer.join();
  EXPECT_TRUE(finished);
}

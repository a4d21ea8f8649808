#include "core/async/batcher.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace asio = boost::asio;
using core::async::Batcher;
using namespace std::chrono_literals;

namespace {

// What an item gets when its bound passed while it waited.
struct Late : std::runtime_error {
  Late() : std::runtime_error("the item's bound passed") {}
};
std::exception_ptr late() { return std::make_exception_ptr(Late()); }

// Every batch the run saw, in order, with the bound for the database it ran within (0: none);
// the first waits until `open` is set.
struct Recorder {
  std::mutex mutex;
  std::vector<std::vector<int>> batches;
  std::vector<std::chrono::milliseconds> bounds;
  std::atomic<bool> open{true};
  std::atomic<bool> fail_next{false};

  Batcher<int, int>::Run run() {
    return [this](std::vector<int> items) -> asio::awaitable<std::vector<int>> {
      const auto* bounds = core::async::bounds_of(co_await asio::this_coro::executor);
      while (!open) co_await core::async::sleep_for(1ms);
      {
        std::lock_guard lock(mutex);
        batches.push_back(items);
        this->bounds.push_back(bounds ? bounds->database : 0ms);
      }
      if (fail_next.exchange(false)) throw std::runtime_error("the batch failed");
      std::vector<int> doubled;
      for (const int i : items) doubled.push_back(2 * i);
      co_return doubled;
    };
  }
};

std::future<int> submit(const asio::any_io_executor& executor, Batcher<int, int>& batches, int item) {
  return asio::co_spawn(
      executor, [&batches, item]() -> asio::awaitable<int> { co_return co_await batches.submit(item); },
      asio::use_future);
}

std::future<int> submit(core::testing::IoThreads& io, Batcher<int, int>& batches, int item) {
  return submit(io.executor(), batches, item);
}

// Submitted as an interactive request does: from a strand that carries its bound for the database.
std::future<int> submit_within(core::testing::IoThreads& io, Batcher<int, int>& batches, int item,
                               std::chrono::milliseconds bound) {
  return submit(core::async::make_strand(io.executor(),
                                         std::make_shared<core::async::Bounds>(core::async::Bounds{.database = bound})),
                batches, item);
}

// Until `n` items wait behind the batch under way.
void wait_for_queue(const Batcher<int, int>& batches, std::size_t n) {
  ASSERT_TRUE(core::testing::eventually([&] { return batches.waiting() == n; })) << batches.waiting();
}

// A batcher of at most 10 whose first batch, item 1, is held at the gate until `recorder.open`:
// what is submitted meanwhile queues behind it, as behind a statement the database has not answered.
struct HeldBatcher : ::testing::Test {
  core::testing::IoThreads io{2};
  Recorder recorder;
  Batcher<int, int> batches{10, recorder.run(), late};
  std::future<int> first;

  void hold_first(const asio::any_io_executor& from) {
    recorder.open = false;
    first = submit(from, batches, 1);
    while (batches.largest_batch() == 0) std::this_thread::sleep_for(1ms);
  }
  void hold_first() { hold_first(io.executor()); }
};

}  // namespace

TEST(Batcher, RunsALoneSubmissionAtOnceAndAnswersItsOwnResult) {
  core::testing::IoThreads io(2);
  Recorder recorder;
  Batcher<int, int> batches(10, recorder.run(), late);
  EXPECT_EQ(submit(io, batches, 21).get(), 42);
  EXPECT_EQ(submit(io, batches, 5).get(), 10);
  ASSERT_EQ(recorder.batches.size(), 2u);
  EXPECT_EQ(recorder.batches[0], std::vector<int>{21});
  EXPECT_EQ(batches.largest_batch(), 1u);
}

TEST(Batcher, GathersWhatArrivesWhileABatchRunsUpToItsCap) {
  core::testing::IoThreads io(2);
  Recorder recorder;
  recorder.open = false;
  Batcher<int, int> batches(4, recorder.run(), late);
  std::vector<std::future<int>> answers;
  answers.push_back(submit(io, batches, 0));  // runs alone, held at the gate
  while (batches.largest_batch() == 0) std::this_thread::sleep_for(1ms);
  for (int i = 1; i <= 6; ++i) answers.push_back(submit(io, batches, i));
  std::this_thread::sleep_for(20ms);  // the six are queued behind the held batch
  recorder.open = true;
  for (int i = 0; i <= 6; ++i) EXPECT_EQ(answers[i].get(), 2 * i);
  ASSERT_EQ(recorder.batches.size(), 3u);
  EXPECT_EQ(recorder.batches[0], std::vector<int>{0});
  EXPECT_EQ(recorder.batches[1].size(), 4u);  // the cap
  EXPECT_EQ(recorder.batches[2].size(), 2u);
  EXPECT_EQ(batches.largest_batch(), 4u);
}

TEST_F(HeldBatcher, AFailedBatchFailsEachOfItsItemsAndTheNextBatchRuns) {
  hold_first();
  auto second = submit(io, batches, 2);
  auto third = submit(io, batches, 3);
  wait_for_queue(batches, 2);
  recorder.fail_next = true;  // the first batch fails
  recorder.open = true;
  EXPECT_THROW(first.get(), std::runtime_error);
  EXPECT_EQ(second.get(), 4);  // the batch after it ran
  EXPECT_EQ(third.get(), 6);
  EXPECT_EQ(submit(io, batches, 7).get(), 14);
}

// An item whose bound passes while it waits behind a batch that does not end (a database that
// does not answer) gets late() once that batch is over, and is not run: its request answers
// within its own bound rather than take a fresh one in the next batch. The others run.
TEST_F(HeldBatcher, AnItemWhoseBoundPassedWhileItWaitedIsAnsweredLateAndNotRun) {
  hold_first();
  auto hurried = submit_within(io, batches, 2, 50ms);
  auto unhurried = submit_within(io, batches, 3, 60s);
  auto unbounded = submit(io, batches, 4);
  wait_for_queue(batches, 3);
  std::this_thread::sleep_for(100ms);  // twice the hurried one's bound, counted from before it queued
  recorder.open = true;
  EXPECT_EQ(first.get(), 2);
  EXPECT_THROW(hurried.get(), Late);
  EXPECT_EQ(unhurried.get(), 6);
  EXPECT_EQ(unbounded.get(), 8);
  ASSERT_EQ(recorder.batches.size(), 2u);
  auto second = recorder.batches[1];
  std::sort(second.begin(), second.end());  // submitted from two threads: in either order
  EXPECT_EQ(second, (std::vector<int>{3, 4}));
}

// A batch runs within the earliest bound among its items, counted from each one's submission:
// no item's request waits for the database longer than it may.
TEST_F(HeldBatcher, ABatchRunsWithinTheEarliestBoundOfItsItems) {
  hold_first();
  auto a = submit_within(io, batches, 2, 60s);
  auto b = submit_within(io, batches, 3, 20s);
  auto c = submit(io, batches, 4);
  wait_for_queue(batches, 3);
  recorder.open = true;
  EXPECT_EQ(first.get(), 2);
  EXPECT_EQ(a.get(), 4);
  EXPECT_EQ(b.get(), 6);
  EXPECT_EQ(c.get(), 8);
  ASSERT_EQ(recorder.bounds.size(), 2u);
  EXPECT_EQ(recorder.bounds[0], 0ms) << "the first batch's item had no bound";
  EXPECT_LE(recorder.bounds[1], 20s);
  EXPECT_GT(recorder.bounds[1], 10s) << "what is left of the 20 s, not a bound of its own";
}

// The batcher's loop runs on the executor of whoever started it, such as an HTTP connection's
// strand, whose bounds change with each of its requests. A batch of items without bounds runs
// without any, whatever that strand carries by then.
TEST_F(HeldBatcher, ABatchOfUnboundedItemsDoesNotTakeTheBoundsOfTheStrandThatStartedIt) {
  auto connection_bounds = std::make_shared<core::async::Bounds>(core::async::Bounds{.database = 0ms});
  const auto connection = core::async::make_strand(io.executor(), connection_bounds);
  hold_first(connection);  // the loop starts on the connection's strand
  // the connection's next request sets its bound
  asio::post(connection, asio::use_future([connection_bounds] { connection_bounds->database = 5s; })).get();
  auto second = submit(io, batches, 2);
  wait_for_queue(batches, 1);
  recorder.open = true;
  EXPECT_EQ(first.get(), 2);
  EXPECT_EQ(second.get(), 4);
  ASSERT_EQ(recorder.bounds.size(), 2u);
  EXPECT_EQ(recorder.bounds[1], 0ms);
}

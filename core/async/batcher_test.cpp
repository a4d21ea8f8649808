#include "core/async/batcher.hpp"
#include "core/async/sleep.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>

#include <atomic>
#include <future>
#include <stdexcept>
#include <vector>

namespace asio = boost::asio;
using core::async::Batcher;
using namespace std::chrono_literals;

namespace {

// Every batch the run saw, in order; the first waits until `open` is set.
struct Recorder {
  std::mutex mutex;
  std::vector<std::vector<int>> batches;
  std::atomic<bool> open{true};
  std::atomic<bool> fail_next{false};

  Batcher<int, int>::Run run() {
    return [this](std::vector<int> items) -> asio::awaitable<std::vector<int>> {
      while (!open) co_await core::async::sleep_for(1ms);
      {
        std::lock_guard lock(mutex);
        batches.push_back(items);
      }
      if (fail_next.exchange(false)) throw std::runtime_error("the batch failed");
      std::vector<int> doubled;
      for (const int i : items) doubled.push_back(2 * i);
      co_return doubled;
    };
  }
};

std::future<int> submit(core::testing::IoThreads& io, Batcher<int, int>& batches, int item) {
  return asio::co_spawn(
      io.executor(), [&batches, item]() -> asio::awaitable<int> { co_return co_await batches.submit(item); },
      asio::use_future);
}

}  // namespace

TEST(Batcher, RunsALoneSubmissionAtOnceAndAnswersItsOwnResult) {
  core::testing::IoThreads io(2);
  Recorder recorder;
  Batcher<int, int> batches(10, recorder.run());
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
  Batcher<int, int> batches(4, recorder.run());
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

TEST(Batcher, AFailedBatchFailsEachOfItsItemsAndTheNextBatchRuns) {
  core::testing::IoThreads io(2);
  Recorder recorder;
  recorder.open = false;
  Batcher<int, int> batches(10, recorder.run());
  auto first = submit(io, batches, 1);
  while (batches.largest_batch() == 0) std::this_thread::sleep_for(1ms);
  auto second = submit(io, batches, 2);
  auto third = submit(io, batches, 3);
  std::this_thread::sleep_for(20ms);
  recorder.fail_next = true;  // the first batch fails
  recorder.open = true;
  EXPECT_THROW(first.get(), std::runtime_error);
  EXPECT_EQ(second.get(), 4);  // the batch after it ran
  EXPECT_EQ(third.get(), 6);
  EXPECT_EQ(submit(io, batches, 7).get(), 14);
}

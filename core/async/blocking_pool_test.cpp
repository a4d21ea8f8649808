#include "core/async/blocking_pool.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <set>

using core::async::BlockingPool;
using core::testing::eventually;
using namespace std::chrono_literals;

namespace {

// Counts down once per finished job; wait() returns when all have.
struct Done {
  explicit Done(std::ptrdiff_t n) : latch(n) {}
  std::latch latch;
  void operator()() { latch.count_down(); }
  void wait() { latch.wait(); }
};

// Posts n jobs that wait for each other, so n threads run at once; returns when all have ended.
void run_at_once(BlockingPool& pool, std::ptrdiff_t n) {
  std::latch all_running(n);
  Done done(n);
  for (std::ptrdiff_t i = 0; i < n; ++i)
    pool.post([&] {
      all_running.arrive_and_wait();
      done();
    });
  done.wait();
}

}  // namespace

TEST(BlockingPool, RunsEveryJobWithNoMoreThreadsThanItsMaximum) {
  BlockingPool pool(4, 10s);
  std::atomic<int> running = 0, most = 0, ran = 0;
  Done done(20);
  for (int i = 0; i < 20; ++i)
    pool.post([&] {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(10ms);
      --running;
      ++ran;
      done();
    });
  done.wait();
  EXPECT_EQ(ran, 20);
  EXPECT_LE(most, 4);
  EXPECT_EQ(pool.peak_threads(), 4u);  // twenty jobs of 10 ms at once: every thread was needed
}

// After a burst the pool shrinks back: a thread idle for its limit ends.
TEST(BlockingPool, AThreadIdleForItsLimitEnds) {
  BlockingPool pool(8, 50ms);
  run_at_once(pool, 8);
  EXPECT_EQ(pool.peak_threads(), 8u);
  EXPECT_TRUE(eventually([&] { return pool.threads() == 0; }, 5s)) << pool.threads() << " threads left";
  Done again(1);
  pool.post([&] { again(); });  // a new thread takes it
  again.wait();
}

// A steady trickle keeps reusing one thread, so the others can reach their idle limit.
TEST(BlockingPool, TheMostRecentlyIdleThreadTakesTheNextJob) {
  BlockingPool pool(8, 10s);
  run_at_once(pool, 3);
  ASSERT_TRUE(eventually([&] { return pool.idle_threads() == 3; }, 5s));
  std::set<std::thread::id> takers;
  for (int i = 0; i < 10; ++i) {
    Done one(1);
    pool.post([&] {
      takers.insert(std::this_thread::get_id());
      one();
    });
    one.wait();
    // Back on the idle stack before the next job comes (it counts down just before it gets there).
    ASSERT_TRUE(eventually([&] { return pool.idle_threads() == 3; }, 5s));
  }
  EXPECT_EQ(takers.size(), 1u);
  EXPECT_EQ(pool.threads(), 3u);
}

TEST(BlockingPool, TheDestructorLetsEveryPostedJobFinish) {
  std::atomic<int> ran = 0;
  {
    BlockingPool pool(2, 10s);
    for (int i = 0; i < 6; ++i)
      pool.post([&] {
        std::this_thread::sleep_for(10ms);
        ++ran;
      });
  }
  EXPECT_EQ(ran, 6);
}

namespace {
std::atomic<int> released = 0;
struct ThreadState {  // stands for a thread's curl handle
  ~ThreadState() { ++released; }
};
}  // namespace

// What an ended thread held in thread-locals is released when it ends, not at exit.
TEST(BlockingPool, AnEndedThreadReleasesItsThreadLocals) {
  const int before = released;
  BlockingPool pool(1, 50ms);
  Done done(1);
  pool.post([&] {
    thread_local ThreadState state;
    (void)state;
    done();
  });
  done.wait();
  EXPECT_TRUE(eventually([&] { return released == before + 1; }, 5s));
}

#pragma once
// Threads for work that blocks (libcurl's easy interface), started as they are needed and ended
// when they have been idle for a while: a burst of slow calls (a vendor answering in 30 s) takes
// up to `max_threads` threads, and once it is over the pool shrinks back to what the steady load
// needs, giving back each ended thread's stack and its thread-local state (a curl handle with its
// connection cache and buffers). asio::thread_pool keeps every thread for the life of the process,
// and wakes them in turn, so every one of them stays warm.
//
//   core::async::BlockingPool pool(64, std::chrono::seconds(30));
//   pool.post([] { curl_easy_perform(...); });
//
// The most recently idle thread takes the next job (a stack of idle threads), so a steady load
// keeps reusing the same few threads and the rest reach their idle limit. Beyond `max_threads`
// jobs at once, a job waits its turn (first come, first served). The destructor lets every job
// posted before it finish, then joins every thread.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace core::async {

class BlockingPool {
 public:
  using Job = std::function<void()>;

  BlockingPool(std::size_t max_threads, std::chrono::milliseconds idle_limit);
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  void post(Job job);

  // Threads alive now (running a job or idle), those of them idle, and the most there have been at once.
  std::size_t threads() const;
  std::size_t idle_threads() const;
  std::size_t peak_threads() const;

 private:
  struct Worker {
    std::thread thread;
    std::condition_variable wake;
    Job job;  // handed over by post() to an idle worker
    bool ended = false;
  };
  void work(Worker& self, Job job);
  // Under mutex_: the threads that have ended, taken out to be joined without the lock.
  std::vector<std::thread> take_ended();

  const std::size_t max_threads_;
  const std::chrono::milliseconds idle_limit_;
  mutable std::mutex mutex_;
  std::list<Worker> workers_;  // every thread not yet joined
  std::vector<Worker*> idle_;  // waiting for a job; the back is the most recently idle
  std::deque<Job> waiting_;    // jobs posted while max_threads_ were busy
  std::size_t alive_ = 0;      // threads not yet ended
  std::size_t peak_ = 0;
  bool stopping_ = false;
  std::condition_variable all_ended_;
};

}  // namespace core::async

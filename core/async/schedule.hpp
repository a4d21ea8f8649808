#pragma once
// A job run every `interval` until stopped: the processing run of mail-triage, the PSA's
// incremental sync, the agent deliveries. Runs never stack: the next wait starts when a run has
// ended. wake() runs the job now instead of at the end of the wait, or, when a run is under way,
// once more right after it (wakes while one run is under way come to one more run).
//
//   auto schedule = core::async::Schedule::start(executor, 5min, [self]() -> awaitable<void> {
//     co_await self->run();                    // an exception is logged, the schedule goes on
//   }, "psa sync");
//   ctx.stop_hooks.push_back([schedule] { schedule->stop(); });   // a run under way finishes first
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace core::async {

class Schedule : public std::enable_shared_from_this<Schedule> {
 public:
  using Job = std::function<boost::asio::awaitable<void>()>;

  // Starts the loop (the first run after one interval). The loop keeps the Schedule alive until
  // it ends, and then drops `job` (which may own the schedule's owner). An interval of zero or
  // less starts nothing.
  static std::shared_ptr<Schedule> start(boost::asio::any_io_executor executor, std::chrono::milliseconds interval,
                                         Job job, std::string name);
  void stop();
  void wake();

  Schedule(boost::asio::any_io_executor executor, std::chrono::milliseconds interval, Job job, std::string name);

 private:
  boost::asio::awaitable<void> loop();

  // The loop, its timer and its flag live on this strand.
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::steady_timer timer_;
  std::chrono::milliseconds interval_;
  Job job_;
  std::string name_;
  bool stopped_ = false;
  bool woken_ = false;
};

}  // namespace core::async

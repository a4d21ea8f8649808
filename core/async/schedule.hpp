#pragma once
// A job run every `interval` until stopped: the processing run of mail-triage, the PSA's
// incremental sync, the agent deliveries. Runs never stack: the next wait starts when a run has
// ended. wake() runs the job now instead of at the end of the wait, or, when a run is under way,
// once more right after it (wakes while one run is under way come to one more run).
//
//   auto schedule = core::async::Schedule::start(ctx.executor, 5min, [self]() -> awaitable<void> {
//     co_await self->run();                    // an exception is logged, the schedule goes on
//   }, "psa sync", ctx.clock);
//   ctx.stop_hooks.push_back([schedule] { schedule->stop(); });   // a run under way finishes first
//
// The waits are on `clock` (core/async/clock.hpp): a service passes its Context's, which is the
// steady clock unless a test gave the service a hand-moved one (core/testing/manual_clock.hpp).
//
// Each run is counted by the schedule's name and its outcome (`ok`, or `error` when the job threw),
// with its duration (job_runs_total, job_run_duration_seconds: docs/metrics.md); a name is a fixed
// string of the code, so the labels stay bounded.
#include "core/async/clock.hpp"
#include "core/metrics/metrics.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace core::async {

// Declares the families a Schedule counts its runs in (job_runs_total, job_run_duration_seconds;
// docs/metrics.md), as each Schedule does when it is made. A service declares them at start, so
// that its scrape names them also when it has no schedule switched on.
void declare_job_metrics(metrics::Registry& registry);

class Schedule : public std::enable_shared_from_this<Schedule> {
 public:
  using Job = std::function<boost::asio::awaitable<void>()>;

  // Starts the loop (the first run after one interval). The loop keeps the Schedule alive until
  // it ends, and then drops `job` (which may own the schedule's owner). An interval of zero or
  // less starts nothing.
  static std::shared_ptr<Schedule> start(boost::asio::any_io_executor executor, std::chrono::milliseconds interval,
                                         Job job, std::string name, std::shared_ptr<Clock> clock);
  // The same on the steady clock.
  static std::shared_ptr<Schedule> start(boost::asio::any_io_executor executor, std::chrono::milliseconds interval,
                                         Job job, std::string name) {
    return start(std::move(executor), interval, std::move(job), std::move(name), Clock::steady());
  }
  void stop();
  void wake();

  Schedule(boost::asio::any_io_executor executor, std::chrono::milliseconds interval, Job job, std::string name);

 private:
  boost::asio::awaitable<void> loop();

  // The loop and its timer's waits run on this strand.
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  std::shared_ptr<Timer> timer_;  // set by start() when the loop starts, then never changed
  std::chrono::milliseconds interval_;
  Job job_;
  std::string name_;
  std::atomic<bool> stopped_ = false;
  // job_runs_total{schedule, outcome} and job_run_duration_seconds{schedule} (metrics::process_registry()).
  metrics::Counter* runs_ok_;
  metrics::Counter* runs_failed_;
  metrics::Histogram* run_time_;
};

}  // namespace core::async

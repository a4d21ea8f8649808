#include "core/async/schedule.hpp"

#include "core/log/log.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace core::async {

namespace {

// The label is `schedule`, not `job`: Prometheus gives every scraped series the `job` of its
// scrape configuration, which would rename ours to `exported_job`.
metrics::Family<metrics::Counter>& job_runs(metrics::Registry& registry) {
  return registry.counter("job_runs_total", "Runs of a background job, by schedule and outcome (ok, error)",
                          {"schedule", "outcome"});
}

metrics::Family<metrics::Histogram>& job_run_durations(metrics::Registry& registry) {
  return registry.histogram("job_run_duration_seconds", "How long a background job's runs took, by schedule",
                            {"schedule"}, metrics::run_buckets());
}

}  // namespace

void declare_job_metrics(metrics::Registry& registry) {
  job_runs(registry);
  job_run_durations(registry);
}

Schedule::Schedule(boost::asio::any_io_executor executor, std::chrono::milliseconds interval, Job job, std::string name)
    : strand_(boost::asio::make_strand(executor)), interval_(interval), job_(std::move(job)), name_(std::move(name)) {
  auto& registry = metrics::process_registry();
  auto& runs = job_runs(registry);
  runs_ok_ = &runs.with({name_, "ok"});
  runs_failed_ = &runs.with({name_, "error"});
  run_time_ = &job_run_durations(registry).with({name_});
}

std::shared_ptr<Schedule> Schedule::start(boost::asio::any_io_executor executor, std::chrono::milliseconds interval,
                                          Job job, std::string name, std::shared_ptr<Clock> clock) {
  auto schedule = std::make_shared<Schedule>(std::move(executor), interval, std::move(job), std::move(name));
  if (interval.count() > 0) {
    schedule->timer_ = clock->timer(schedule->strand_, schedule->name_);
    boost::asio::co_spawn(
        schedule->strand_, [schedule] { return schedule->loop(); }, boost::asio::detached);
  }
  return schedule;
}

boost::asio::awaitable<void> Schedule::loop() {
  const auto self = shared_from_this();  // alive until the loop ends
  while (!stopped_) {
    co_await timer_->wait(interval_);  // the interval, or less when woken
    if (stopped_) break;
    const auto started = std::chrono::steady_clock::now();
    bool failed = false;
    try {
      co_await job_();
    } catch (const std::exception& e) {  // a run already under way, the database down ...
      failed = true;
      core::log::warn("a scheduled run did not complete", {{"schedule", name_}, {"error", e.what()}});
    }
    (failed ? runs_failed_ : runs_ok_)->inc();
    run_time_->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  // The job may hold its owner, which holds this schedule: let go of it, so both can end.
  job_ = nullptr;
  timer_->close();
}

void Schedule::wake() {
  if (timer_) timer_->wake();
}

void Schedule::stop() {
  stopped_ = true;
  if (timer_) timer_->wake();
}

}  // namespace core::async

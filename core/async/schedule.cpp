#include "core/async/schedule.hpp"

#include "core/log/log.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace core::async {

Schedule::Schedule(boost::asio::any_io_executor executor, std::chrono::milliseconds interval, Job job, std::string name)
    : strand_(boost::asio::make_strand(executor)),
      timer_(strand_),
      interval_(interval),
      job_(std::move(job)),
      name_(std::move(name)) {}

std::shared_ptr<Schedule> Schedule::start(boost::asio::any_io_executor executor, std::chrono::milliseconds interval,
                                          Job job, std::string name) {
  auto schedule = std::make_shared<Schedule>(std::move(executor), interval, std::move(job), std::move(name));
  if (interval.count() > 0)
    boost::asio::co_spawn(
        schedule->strand_, [schedule] { return schedule->loop(); }, boost::asio::detached);
  return schedule;
}

boost::asio::awaitable<void> Schedule::loop() {
  const auto self = shared_from_this();  // alive until the loop ends
  while (!stopped_) {
    if (!woken_) {
      timer_.expires_after(interval_);
      boost::system::error_code cancelled;
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, cancelled));
    }
    woken_ = false;
    if (stopped_) break;
    try {
      co_await job_();
    } catch (const std::exception& e) {  // a run already under way, the database down ...
      core::log::warn("a scheduled run did not complete", {{"schedule", name_}, {"error", e.what()}});
    }
  }
  // The job may hold its owner, which holds this schedule: let go of it, so both can end.
  job_ = nullptr;
}

void Schedule::wake() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    self->woken_ = true;
    self->timer_.cancel();
  });
}

void Schedule::stop() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->timer_.cancel();
  });
}

}  // namespace core::async

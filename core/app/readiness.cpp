#include "core/app/readiness.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <exception>

namespace core::app {

namespace asio = boost::asio;

// One check and its outcome, which the probes read under the mutex.
struct Readiness::Flight {
  std::mutex mutex;
  bool done = false;
  std::optional<std::string> why_not;
  std::exception_ptr failure;
};

Readiness::Readiness(asio::any_io_executor executor, Check check, std::chrono::milliseconds deadline)
    : executor_(std::move(executor)), check_(std::move(check)), deadline_(deadline) {}

asio::awaitable<std::optional<std::string>> Readiness::ask() {
  std::shared_ptr<Flight> flight;
  bool start = false;
  {
    std::lock_guard lock(mutex_);
    if (!flight_) {
      flight_ = std::make_shared<Flight>();
      ++checks_started_;
      start = true;
    }
    flight = flight_;
  }
  if (start) asio::co_spawn(executor_, run(flight), asio::detached);

  // The probe looks at the flight in growing steps (1, 2, 4 .. 32 ms): a check that answers at
  // once answers the probe within a millisecond or two, and no timer is shared between threads.
  const auto give_up = std::chrono::steady_clock::now() + deadline_;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (std::chrono::milliseconds step{1};; step = std::min(step * 2, std::chrono::milliseconds(32))) {
    {
      std::lock_guard lock(flight->mutex);
      if (flight->done) {
        if (flight->failure) std::rethrow_exception(flight->failure);
        co_return flight->why_not;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= give_up) co_return "the database did not answer within " + std::to_string(deadline_.count()) + " ms";
    timer.expires_at(std::min(give_up, now + step));
    co_await timer.async_wait(asio::use_awaitable);
  }
}

std::uint64_t Readiness::checks_started() const {
  std::lock_guard lock(mutex_);
  return checks_started_;
}

asio::awaitable<void> Readiness::run(std::shared_ptr<Flight> flight) {
  std::optional<std::string> why_not;
  std::exception_ptr failure;
  try {
    why_not = co_await check_();
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    if (flight_ == flight) flight_.reset();  // the next probe starts a new check
  }
  std::lock_guard lock(flight->mutex);
  flight->done = true;
  flight->why_not = std::move(why_not);
  flight->failure = failure;
}

}  // namespace core::app

#pragma once
// What a Schedule waits on between its runs. A service's schedules wait on the clock its
// core::app::Context carries: the steady clock in production, a test's hand-moved clock
// (core/testing/manual_clock.hpp) when a test gives the service one, so that a test passes hours of
// a schedule without sleeping and knows when the runs they caused are over.
//
//   auto timer = clock->timer(strand, "psa sync");   // one per schedule; its waits run on `strand`
//   co_await timer->wait(5min);                       // 5 minutes, or less when woken
//   timer->wake();                                    // from any thread: the wait ends now
//   timer->close();                                   // its owner waits no more
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string_view>

namespace core::async {

class Timer {
 public:
  virtual ~Timer() = default;
  // Waits `interval` on its clock, or until wake(); returns at once when a wake came since the
  // last wait ended (any number of them: one). Runs on the timer's executor, one wait at a time.
  virtual boost::asio::awaitable<void> wait(std::chrono::milliseconds interval) = 0;
  // Ends the wait under way, or else the next one at once. Any thread.
  virtual void wake() = 0;
  // Its owner will wait no more (a stopped schedule). Any thread.
  virtual void close() = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  // A timer whose waits complete on `executor` (a strand: its waits never overlap). `name` is the
  // owner's, for a test clock's counts.
  virtual std::shared_ptr<Timer> timer(boost::asio::any_io_executor executor, std::string_view name) = 0;
  // The steady clock: what every service waits on unless a test gives it another.
  static std::shared_ptr<Clock> steady();
};

}  // namespace core::async

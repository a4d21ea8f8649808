#pragma once
// A clock a test moves by hand, for the schedules of a service it starts (or of its own): a
// schedule waits on it instead of the steady clock (core/async/clock.hpp), so hours of schedule
// pass without a sleep, and advance() returns once the runs it caused are over.
//
//   auto clock = std::make_shared<core::testing::ManualClock>();
//   core::testing::RunningService svc(def, database.url(), env, clock);   // its schedules wait on it
//   clock->advance(std::chrono::minutes(15));    // a 5-minute schedule runs three times, each to its end
//   EXPECT_EQ(clock->rounds("psa sync"), 3);
//
// A timer is busy from its creation, and again from the moment a wait of it ends, until its owner
// waits again or closes it: while one is busy, its owner's run is under way. advance() first waits
// until no timer is busy (a service's schedules start on its own threads), then moves time from
// one end of a wait to the next, firing the waits that end there and waiting until their runs are
// over, as a real clock would with instant runs. A wake (Schedule::wake) ends a wait without moving
// time; advance() and settle() wait for the run it causes as well.
#include "core/async/clock.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace core::testing {

class ManualClock final : public async::Clock {
 public:
  ManualClock();
  std::shared_ptr<async::Timer> timer(boost::asio::any_io_executor executor, std::string_view name) override;

  // Moves the clock `by` forward; returns when every run it caused is over. Throws
  // std::runtime_error when a run is not over after `limit` (a hung job, not a slow one).
  void advance(std::chrono::milliseconds by, std::chrono::milliseconds limit = std::chrono::minutes(5));
  // Waits, without moving the clock, until no timer is busy: every run under way is over.
  void settle(std::chrono::milliseconds limit = std::chrono::minutes(5));

  // The time moved so far.
  std::chrono::milliseconds now() const;
  // How many of `name`'s waits have ended by the clock (not by a wake): its scheduled rounds,
  // whether or not the round found anything to do.
  int rounds(std::string_view name) const;
  // How many timers wait on the clock now.
  std::size_t waiting() const;

  struct State;  // shared with the timers, which may outlive the clock

 private:
  std::shared_ptr<State> state_;
};

}  // namespace core::testing

#pragma once
// The PSA's hourly request budget (Autotask: 10,000 requests an hour per database; we keep under
// PSA_REQUESTS_PER_HOUR): a sliding hour over the requests sent.
//
//   RequestBudget budget(9000);
//   for (auto wait = budget.take(now()); wait > 0s; wait = budget.take(now())) co_await sleep_for(wait);
//
// take() records a request and answers zero when one more fits in the hour before `now`; else it
// records nothing and answers how long until the oldest request of that hour leaves it.
// Not thread-safe: the client holds its own lock around it.
#include <chrono>
#include <cstddef>
#include <deque>

namespace ops_console::psa {

class RequestBudget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RequestBudget(std::size_t per_hour) : per_hour_(per_hour) {}

  Clock::duration take(Clock::time_point now) {
    while (!sent_.empty() && sent_.front() <= now - std::chrono::hours(1)) sent_.pop_front();
    if (sent_.size() < per_hour_) {
      sent_.push_back(now);
      return Clock::duration::zero();
    }
    return sent_.front() + std::chrono::hours(1) - now;
  }

 private:
  std::size_t per_hour_;
  std::deque<Clock::time_point> sent_;  // the last hour's requests, oldest first
};

}  // namespace ops_console::psa

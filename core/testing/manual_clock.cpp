#include "core/testing/manual_clock.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace core::testing {

class ManualClockTimer;

struct ManualClock::State {
  mutable std::mutex mutex;
  std::condition_variable idle;  // notified when a timer stops being busy
  std::chrono::milliseconds now{0};
  int busy = 0;
  std::map<std::string, int, std::less<>> rounds;
  std::vector<ManualClockTimer*> timers;

  // Waits (with `lock` held on `mutex`) until no timer is busy.
  void wait_idle(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds limit) {
    if (!idle.wait_for(lock, limit, [this] { return busy == 0; }))
      throw std::runtime_error("ManualClock: a scheduled run is not over after " + std::to_string(limit.count()) +
                               " ms");
  }
};

// A wait is a steady_timer that never expires by itself: it ends when the clock or a wake cancels
// it, on the owner's strand. Its phase and counts are under the clock's mutex.
class ManualClockTimer final : public async::Timer, public std::enable_shared_from_this<ManualClockTimer> {
 public:
  enum class Phase { busy, waiting, closed };

  ManualClockTimer(std::shared_ptr<ManualClock::State> state, boost::asio::any_io_executor executor,
                   std::string_view name)
      : state_(std::move(state)), executor_(executor), timer_(executor), name_(name) {
    const std::lock_guard lock(state_->mutex);
    state_->timers.push_back(this);
    ++state_->busy;  // until its owner first waits
  }

  ~ManualClockTimer() override {
    const std::lock_guard lock(state_->mutex);
    std::erase(state_->timers, this);
    if (phase_ == Phase::busy) not_busy();
  }

  boost::asio::awaitable<void> wait(std::chrono::milliseconds interval) override {
    {
      const std::lock_guard lock(state_->mutex);
      if (phase_ == Phase::closed) co_return;
      if (woken_) {  // woken during the run: the next one starts now
        woken_ = false;
        co_return;
      }
      phase_ = Phase::waiting;
      end_ = state_->now + interval;
      not_busy();
    }
    // Whoever ends the wait posts the cancel to this strand, so it comes after this step.
    timer_.expires_at(std::chrono::steady_clock::time_point::max());
    boost::system::error_code ended;
    co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ended));
    const std::lock_guard lock(state_->mutex);
    woken_ = false;
  }

  void wake() override {
    const std::lock_guard lock(state_->mutex);
    if (phase_ == Phase::waiting)
      end_wait(false);
    else if (phase_ == Phase::busy)
      woken_ = true;
  }

  void close() override {
    const std::lock_guard lock(state_->mutex);
    if (phase_ == Phase::busy) not_busy();
    if (phase_ == Phase::waiting) cancel_soon();
    phase_ = Phase::closed;
  }

  // With the clock's mutex held:
  bool waiting_until(std::chrono::milliseconds t) const { return phase_ == Phase::waiting && end_ <= t; }
  std::chrono::milliseconds end() const { return end_; }
  bool is_waiting() const { return phase_ == Phase::waiting; }
  // The wait ends: busy until the owner waits again.
  void end_wait(bool by_clock) {
    phase_ = Phase::busy;
    ++state_->busy;
    if (by_clock) ++state_->rounds[name_];
    cancel_soon();
  }

 private:
  void not_busy() {
    --state_->busy;
    state_->idle.notify_all();
  }
  void cancel_soon() {
    // Null while this timer is being destroyed: its destructor counts it out.
    if (auto self = weak_from_this().lock()) boost::asio::post(executor_, [self] { self->timer_.cancel(); });
  }

  std::shared_ptr<ManualClock::State> state_;
  boost::asio::any_io_executor executor_;
  boost::asio::steady_timer timer_;  // on executor_ only
  std::string name_;
  // Under the clock's mutex:
  Phase phase_ = Phase::busy;
  bool woken_ = false;
  std::chrono::milliseconds end_{0};
};

ManualClock::ManualClock() : state_(std::make_shared<State>()) {}

std::shared_ptr<async::Timer> ManualClock::timer(boost::asio::any_io_executor executor, std::string_view name) {
  return std::make_shared<ManualClockTimer>(state_, std::move(executor), name);
}

void ManualClock::advance(std::chrono::milliseconds by, std::chrono::milliseconds limit) {
  std::unique_lock lock(state_->mutex);
  state_->wait_idle(lock, limit);
  const auto target = state_->now + by;
  for (;;) {
    std::optional<std::chrono::milliseconds> next;  // the first end of a wait, up to the target
    for (const auto* t : state_->timers)
      if (t->waiting_until(target) && (!next || t->end() < *next)) next = t->end();
    if (!next) break;
    state_->now = std::max(state_->now, *next);
    for (auto* t : state_->timers)
      if (t->waiting_until(state_->now)) t->end_wait(true);
    state_->wait_idle(lock, limit);
  }
  state_->now = target;
}

void ManualClock::settle(std::chrono::milliseconds limit) {
  std::unique_lock lock(state_->mutex);
  state_->wait_idle(lock, limit);
}

std::chrono::milliseconds ManualClock::now() const {
  const std::lock_guard lock(state_->mutex);
  return state_->now;
}

int ManualClock::rounds(std::string_view name) const {
  const std::lock_guard lock(state_->mutex);
  const auto it = state_->rounds.find(name);
  return it == state_->rounds.end() ? 0 : it->second;
}

std::size_t ManualClock::waiting() const {
  const std::lock_guard lock(state_->mutex);
  return static_cast<std::size_t>(std::count_if(state_->timers.begin(), state_->timers.end(),
                                                [](const ManualClockTimer* t) { return t->is_waiting(); }));
}

}  // namespace core::testing

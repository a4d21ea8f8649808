#include "core/async/clock.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace core::async {

namespace {

// A steady_timer, and the flag of a wake that came while no wait was under way; both only touched
// on the executor (wake() posts there).
class SteadyTimer final : public Timer, public std::enable_shared_from_this<SteadyTimer> {
 public:
  explicit SteadyTimer(boost::asio::any_io_executor executor) : executor_(executor), timer_(executor) {}

  boost::asio::awaitable<void> wait(std::chrono::milliseconds interval) override {
    if (!woken_) {
      timer_.expires_after(interval);
      boost::system::error_code cancelled;
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, cancelled));
    }
    woken_ = false;
  }

  void wake() override {
    boost::asio::post(executor_, [self = shared_from_this()] {
      self->woken_ = true;
      self->timer_.cancel();
    });
  }

  void close() override {}

 private:
  boost::asio::any_io_executor executor_;
  boost::asio::steady_timer timer_;
  bool woken_ = false;
};

class SteadyClock final : public Clock {
 public:
  std::shared_ptr<Timer> timer(boost::asio::any_io_executor executor, std::string_view) override {
    return std::make_shared<SteadyTimer>(std::move(executor));
  }
};

}  // namespace

std::shared_ptr<Clock> Clock::steady() {
  static const auto clock = std::make_shared<SteadyClock>();
  return clock;
}

}  // namespace core::async

#pragma once
// An asynchronous counting semaphore for coroutines: bounds how many tasks do something at once
// (model calls in flight, requests per mailbox) without blocking a thread.
//
//   core::async::Semaphore slots(4);
//   auto permit = co_await slots.acquire();   // suspends while 4 permits are out
//   ...                                       // the permit is returned when `permit` is destroyed
//
// Waiters are served first come, first served; a released permit passes straight to the oldest
// waiter, which resumes on its own executor. Safe to use from several threads. The semaphore must
// outlive its waiters and permits.
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace core::async {

class Semaphore {
 public:
  explicit Semaphore(std::size_t permits) : available_(permits) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  class Permit {
   public:
    Permit() = default;
    explicit Permit(Semaphore* owner) : owner_(owner) {}
    Permit(Permit&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
    Permit& operator=(Permit&& other) noexcept {
      if (this != &other) {
        reset();
        owner_ = std::exchange(other.owner_, nullptr);
      }
      return *this;
    }
    ~Permit() { reset(); }
    void reset() {
      if (owner_) std::exchange(owner_, nullptr)->release();
    }

   private:
    Semaphore* owner_ = nullptr;
  };

  boost::asio::awaitable<Permit> acquire() {
    auto take_or_queue = [this](auto handler) { enqueue(std::move(handler)); };
    co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void()>(take_or_queue,
                                                                                        boost::asio::use_awaitable);
    co_return Permit(this);
  }

  std::size_t available() const {
    std::lock_guard lock(mutex_);
    return available_;
  }

 private:
  template <class Handler>
  static void resume(Handler&& handler) {
    auto executor = boost::asio::get_associated_executor(handler);
    boost::asio::post(executor, std::forward<Handler>(handler));
  }

  template <class Handler>
  void enqueue(Handler handler) {
    std::unique_lock lock(mutex_);
    if (available_ > 0 && waiters_.empty()) {
      --available_;
      lock.unlock();
      resume(std::move(handler));
      return;
    }
    // std::function needs a copyable target; the handler is move-only.
    auto shared = std::make_shared<Handler>(std::move(handler));
    waiters_.emplace_back([shared] { resume(std::move(*shared)); });
  }

  void release() {
    std::function<void()> next;
    {
      std::lock_guard lock(mutex_);
      if (waiters_.empty()) {
        ++available_;
        return;
      }
      next = std::move(waiters_.front());
      waiters_.pop_front();
    }
    next();  // the permit passes to the oldest waiter
  }

  mutable std::mutex mutex_;
  std::size_t available_;
  std::deque<std::function<void()>> waiters_;
};

}  // namespace core::async

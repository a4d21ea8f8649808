#pragma once
// Runs coroutines side by side and waits for all of them.
//
//   std::vector<std::function<awaitable<void>()>> tasks = ...;
//   co_await core::async::join_all(executor, std::move(tasks));
//
// Every task runs to its end even when another throws; then the first exception is rethrown.
// Bound how many do real work at once with core::async::Semaphore inside the tasks.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace core::async {

namespace detail {

struct JoinState {
  std::mutex mutex;
  std::size_t pending = 0;
  std::exception_ptr first_error;
  std::function<void()> waiter;

  void failed(std::exception_ptr error) {
    std::lock_guard lock(mutex);
    if (!first_error) first_error = std::move(error);
  }
  void finished() {
    std::function<void()> wake;
    {
      std::lock_guard lock(mutex);
      if (--pending == 0) wake = std::move(waiter);
    }
    if (wake) wake();
  }
};

}  // namespace detail

inline boost::asio::awaitable<void> join_all(boost::asio::any_io_executor executor,
                                             std::vector<std::function<boost::asio::awaitable<void>()>> tasks) {
  if (tasks.empty()) co_return;
  auto state = std::make_shared<detail::JoinState>();
  state->pending = tasks.size();
  // Each task's exception is caught inside its own coroutine and kept for the caller.
  for (auto& task : tasks)
    boost::asio::co_spawn(
        executor,
        [state, &task]() -> boost::asio::awaitable<void> {
          try {
            co_await task();
          } catch (...) {
            state->failed(std::current_exception());
          }
          state->finished();
        },
        boost::asio::detached);
  auto wait_for_all = [state](auto handler) {
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    auto resume = [shared] {
      auto ex = boost::asio::get_associated_executor(*shared);
      boost::asio::post(ex, std::move(*shared));
    };
    std::unique_lock lock(state->mutex);
    if (state->pending == 0) {
      lock.unlock();
      resume();
    } else {
      state->waiter = resume;
    }
  };
  co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void()>(wait_for_all,
                                                                                      boost::asio::use_awaitable);
  if (state->first_error) std::rethrow_exception(state->first_error);  // every task has ended: no lock needed
}

}  // namespace core::async

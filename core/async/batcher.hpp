#pragma once
// Gathers the work of many coroutines into batches run one at a time: group commit.
//
//   core::async::Batcher<Event, Outcome> batches(200, [&](std::vector<Event> events)
//       -> awaitable<std::vector<Outcome>> { ... one statement, one commit, for all of them ... });
//   const Outcome mine = co_await batches.submit(event);   // resumes once its batch has run
//
// A submission to an idle batcher runs at once, alone; one that arrives while a batch runs waits
// for it and then goes with everything else that arrived meanwhile (at most `max_batch` items).
// So the batches grow with the load and shrink to one when it falls. With a `linger`, a batch that
// is not full waits that long first, for more to join it: fewer, larger batches (each pays its
// fixed cost once for more items) at the price of that wait for every item.
// `run` answers one result per item, in order; when it throws, every item of that batch gets the
// exception. Safe to use from several threads; `Result` must be default-constructible. Each
// waiter resumes on its own executor.
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace core::async {

template <class Item, class Result>
class Batcher {
 public:
  using Run = std::function<boost::asio::awaitable<std::vector<Result>>(std::vector<Item>)>;

  Batcher(std::size_t max_batch, Run run, std::chrono::microseconds linger = {})
      : state_(std::make_shared<State>(max_batch, std::move(run), linger)) {}
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  boost::asio::awaitable<Result> submit(Item item) {
    const auto executor = co_await boost::asio::this_coro::executor;
    auto enqueue = [state = state_, executor, &item](auto handler) {
      state->enqueue(executor, std::move(item), std::move(handler));
    };
    co_return co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&,
                                                   void(std::exception_ptr, Result)>(enqueue,
                                                                                     boost::asio::use_awaitable);
  }

  // How many items wait for the batch under way to end (the metrics' queue depth).
  std::size_t waiting() const {
    std::lock_guard lock(state_->mutex);
    return state_->waiting.size();
  }

  // How many items the largest batch so far held (benchmarks and tests read it).
  std::size_t largest_batch() const {
    std::lock_guard lock(state_->mutex);
    return state_->largest;
  }

 private:
  using Answer = std::function<void(std::exception_ptr, Result)>;

  struct State : std::enable_shared_from_this<State> {
    State(std::size_t max_batch, Run run, std::chrono::microseconds linger)
        : max_batch(max_batch == 0 ? 1 : max_batch), linger(linger), run(std::move(run)) {}

    template <class Handler>
    void enqueue(const boost::asio::any_io_executor& executor, Item item, Handler handler) {
      // std::function needs a copyable target; the handler is move-only.
      auto shared = std::make_shared<Handler>(std::move(handler));
      Answer answer = [shared](std::exception_ptr failure, Result result) {
        auto resume = boost::asio::get_associated_executor(*shared);
        boost::asio::post(
            resume, [shared, failure, result = std::move(result)]() mutable { (*shared)(failure, std::move(result)); });
      };
      bool start = false;
      {
        std::lock_guard lock(mutex);
        waiting.emplace_back(std::move(item), std::move(answer));
        start = !std::exchange(draining, true);
      }
      if (start) boost::asio::co_spawn(executor, drain(this->shared_from_this()), boost::asio::detached);
    }

    // Whether a batch is waiting (and, if so, whether it is full); none: the drain ends.
    enum class Next { none, some, full };
    Next next() {
      std::lock_guard lock(mutex);
      if (waiting.empty()) {
        draining = false;
        return Next::none;
      }
      return waiting.size() >= max_batch ? Next::full : Next::some;
    }

    static boost::asio::awaitable<void> drain(std::shared_ptr<State> self) {
      for (;;) {
        const Next next = self->next();
        if (next == Next::none) co_return;
        if (next == Next::some && self->linger.count() > 0) {
          boost::asio::steady_timer wait(co_await boost::asio::this_coro::executor, self->linger);
          boost::system::error_code ignored;  // cancelled only as the executor shuts down
          co_await wait.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
        }
        std::vector<Item> items;
        std::vector<Answer> answers;
        {
          std::lock_guard lock(self->mutex);
          while (!self->waiting.empty() && items.size() < self->max_batch) {
            items.push_back(std::move(self->waiting.front().first));
            answers.push_back(std::move(self->waiting.front().second));
            self->waiting.pop_front();
          }
          if (items.size() > self->largest) self->largest = items.size();
        }
        std::vector<Result> results;
        std::exception_ptr failure;
        try {
          results = co_await self->run(std::move(items));
          if (results.size() != answers.size()) throw std::logic_error("a batch answered a result count of its own");
        } catch (...) {
          failure = std::current_exception();
        }
        for (std::size_t i = 0; i < answers.size(); ++i)
          answers[i](failure, failure ? Result{} : std::move(results[i]));
      }
    }

    mutable std::mutex mutex;
    std::deque<std::pair<Item, Answer>> waiting;
    bool draining = false;
    std::size_t largest = 0;
    const std::size_t max_batch;
    const std::chrono::microseconds linger;
    const Run run;
  };

  std::shared_ptr<State> state_;
};

}  // namespace core::async

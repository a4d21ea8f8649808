#pragma once
// Gathers the work of many coroutines into batches run one at a time: group commit.
//
//   core::async::Batcher<Event, Outcome> batches(200, [&](std::vector<Event> events)
//       -> awaitable<std::vector<Outcome>> { ... one statement, one commit, for all of them ... });
//   const Outcome mine = co_await batches.submit(event);   // resumes once its batch has run
//
// A submission to an idle batcher runs at once, alone; one that arrives while a batch runs waits
// for it and then goes with everything else that arrived meanwhile (at most `max_batch` items).
// No timer holds anything back: the batches grow with the load and shrink to one when it falls.
// `run` answers one result per item, in order; when it throws, every item of that batch gets the
// exception. Safe to use from several threads; `Result` must be default-constructible. Each
// waiter resumes on its own executor.
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

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

  Batcher(std::size_t max_batch, Run run) : state_(std::make_shared<State>(max_batch, std::move(run))) {}
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
    State(std::size_t max_batch, Run run) : max_batch(max_batch == 0 ? 1 : max_batch), run(std::move(run)) {}

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

    static boost::asio::awaitable<void> drain(std::shared_ptr<State> self) {
      for (;;) {
        std::vector<Item> items;
        std::vector<Answer> answers;
        {
          std::lock_guard lock(self->mutex);
          if (self->waiting.empty()) {
            self->draining = false;
            co_return;
          }
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
    const Run run;
  };

  std::shared_ptr<State> state_;
};

}  // namespace core::async

#pragma once
// Gathers the work of many coroutines into batches run one at a time: group commit.
//
//   core::async::Batcher<Event, Outcome> batches(200, [&](std::vector<Event> events)
//       -> awaitable<std::vector<Outcome>> { ... one statement, one commit, for all of them ... },
//       core::db::request_bound_passed_error);
//   const Outcome mine = co_await batches.submit(event);   // resumes once its batch has run
//
// A submission to an idle batcher runs at once, alone; one that arrives while a batch runs waits
// for it and then goes with everything else that arrived meanwhile (at most `max_batch` items).
// No timer holds anything back: the batches grow with the load and shrink to one when it falls.
// `run` answers one result per item, in order; when it throws, every item of that batch gets the
// exception. Safe to use from several threads; `Result` must be default-constructible. Each
// waiter resumes on its own executor, which is an io_context's (its own or a strand of it, as
// every coroutine of the services runs on).
//
// Bounds (core/async/bounded_executor.hpp): each item keeps the bound for the database of the
// coroutine that submitted it, counted from its submission. The batches run on a strand of the
// batcher's own (not the submitter's, such as an HTTP connection's, whose bound is set anew for
// each of its requests), with the bound set for each batch to the earliest among its items (so
// the batch does not wait past what any of them may; none when none has one). An item whose bound
// passed while it waited behind another batch (one the database did not answer) gets `late()`
// without being run: an interactive request's 503 comes within its own bound and grace
// (docs/guarantees.md), not after the batch before it used up its time and then its own batch
// took a fresh bound.
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/async/bounded_executor.hpp"

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
  // The failure of an item whose bound passed while it waited (the services give
  // core::db::request_bound_passed_error: their 503).
  using Late = std::function<std::exception_ptr()>;

  Batcher(std::size_t max_batch, Run run, Late late)
      : state_(std::make_shared<State>(max_batch, std::move(run), std::move(late))) {}
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  boost::asio::awaitable<Result> submit(Item item) {
    const auto executor = co_await boost::asio::this_coro::executor;
    Bound bound;
    if (const auto* bounds = bounds_of(executor); bounds && bounds->database.count() > 0)
      bound = {.answer_by = Clock::now() + bounds->database, .grace = bounds->database_grace};
    auto enqueue = [state = state_, executor, &item, bound](auto handler) {
      state->enqueue(executor, std::move(item), bound, std::move(handler));
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
  using Clock = std::chrono::steady_clock;
  using Answer = std::function<void(std::exception_ptr, Result)>;

  // A submitter's bound for the database: the epoch for none.
  struct Bound {
    Clock::time_point answer_by{};
    std::chrono::milliseconds grace{};
  };

  struct Waiting {
    Item item;
    Bound bound;
    Answer answer;
  };

  struct State : std::enable_shared_from_this<State> {
    State(std::size_t max_batch, Run run, Late late)
        : max_batch(max_batch == 0 ? 1 : max_batch), run(std::move(run)), late(std::move(late)) {}

    template <class Handler>
    void enqueue(const boost::asio::any_io_executor& executor, Item item, Bound bound, Handler handler) {
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
        waiting.push_back(Waiting{std::move(item), bound, std::move(answer)});
        start = !std::exchange(draining, true);
      }
      // The loop runs on a strand of its own, whose bounds it sets for each batch (drain()).
      if (start)
        boost::asio::co_spawn(make_strand(executor, std::make_shared<Bounds>()), drain(this->shared_from_this()),
                              boost::asio::detached);
    }

    static boost::asio::awaitable<void> drain(std::shared_ptr<State> self) {
      for (;;) {
        std::vector<Item> items;
        std::vector<Answer> answers;
        std::vector<Answer> late;  // their bound passed while they waited
        Bound earliest{.answer_by = Clock::time_point::max()};
        const auto now = Clock::now();
        {
          std::lock_guard lock(self->mutex);
          if (self->waiting.empty()) {
            self->draining = false;
            co_return;
          }
          while (!self->waiting.empty() && items.size() < self->max_batch) {
            Waiting& w = self->waiting.front();
            const bool bounded = w.bound.answer_by != Clock::time_point{};
            if (bounded && w.bound.answer_by <= now) {
              late.push_back(std::move(w.answer));
            } else {
              if (bounded && w.bound.answer_by < earliest.answer_by) earliest = w.bound;
              items.push_back(std::move(w.item));
              answers.push_back(std::move(w.answer));
            }
            self->waiting.pop_front();
          }
          if (items.size() > self->largest) self->largest = items.size();
        }
        for (auto& answer : late) answer(self->late(), Result{});
        if (items.empty()) continue;

        std::vector<Result> results;
        std::exception_ptr failure;
        try {
          // Within the earliest bound among the batch's items: at least 1 ms, as the items whose
          // bound had passed at `now` are not in it. None when none has one.
          Bounds* bounds = bounds_of(co_await boost::asio::this_coro::executor);
          *bounds = earliest.answer_by == Clock::time_point::max()
                        ? Bounds{}
                        : Bounds{.database = std::chrono::ceil<std::chrono::milliseconds>(earliest.answer_by - now),
                                 .database_grace = earliest.grace};
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
    std::deque<Waiting> waiting;
    bool draining = false;
    std::size_t largest = 0;
    const std::size_t max_batch;
    const Run run;
    const Late late;
  };

  std::shared_ptr<State> state_;
};

}  // namespace core::async

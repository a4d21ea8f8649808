#pragma once
// What a coroutine may wait for, carried by the strand it runs on.
//
// The HTTP server runs each connection's coroutine on a Strand that carries Bounds and sets them
// before each request (an interactive request waits a few seconds for the database, not the
// pool's 30 s statement timeout). Code that waits reads the bounds of whoever calls it, with no
// parameter to thread through every call:
//
//   const auto* bounds = core::async::bounds_of(co_await boost::asio::this_coro::executor);
//   const auto limit = bounds && bounds->database.count() ? std::min(pool_limit, bounds->database) : pool_limit;
//
// Work spawned on another executor (a background job, a sync started by a route) has no bounds.
// A route that runs long by design (a processing run) lifts its request's bounds: lift_bounds().
//
// Strand is Asio's strand in 16 bytes (below). Boost 1.74's any_io_executor keeps an executor of
// up to 16 bytes in place and a larger one in a heap block of its own, and Asio makes an
// any_io_executor of the strand for every wait and every hand-over of a handler:
// asio::strand<any_io_executor> cost a GET /api/v1/log/{id} about 76 of its 153 allocations
// (bench/RESULTS.md, 2026-11-28).
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace core::async {

struct Bounds {
  // How long one wait for the database may take (a statement, a free connection, a new one);
  // zero: only the pool's own limits.
  std::chrono::milliseconds database{0};
  // How long a statement cancelled at `database` may take to end before its connection is severed.
  std::chrono::milliseconds database_grace{1'000};
};

// An Asio strand (the same implementation: strand_executor_service) on an io_context, in 16
// bytes: one counted pointer to the strand's state (its queue, its io_context, its bounds) and the
// three properties Asio requires of it at run time: blocking.never, relationship.continuation and
// outstanding_work.tracked (a tracked copy counts as work of the io_context while it exists, as
// Asio's own executors do, so that run() does not return while a handler is due on it).
class Strand {
  using Service = boost::asio::detail::strand_executor_service;
  using IoExecutor = boost::asio::io_context::executor_type;
  using Tracked = boost::asio::execution::outstanding_work_t;

 public:
  using inner_executor_type = IoExecutor;

  Strand(boost::asio::io_context& io, std::shared_ptr<Bounds> bounds)
      : shared_(
            new Shared{{1}, &io, boost::asio::use_service<Service>(io).create_implementation(), std::move(bounds)}) {}
  Strand(const Strand& other) noexcept
      : shared_(other.shared_), never_(other.never_), continuation_(other.continuation_), tracked_(other.tracked_) {
    shared_->refs.fetch_add(1, std::memory_order_relaxed);
    if (tracked_) shared_->io->get_executor().on_work_started();
  }
  Strand(Strand&& other) noexcept
      : shared_(std::exchange(other.shared_, nullptr)),
        never_(other.never_),
        continuation_(other.continuation_),
        tracked_(std::exchange(other.tracked_, false)) {}
  Strand& operator=(Strand other) noexcept {
    std::swap(shared_, other.shared_);
    std::swap(never_, other.never_);
    std::swap(continuation_, other.continuation_);
    std::swap(tracked_, other.tracked_);
    return *this;
  }
  ~Strand() {
    if (!shared_) return;
    if (tracked_) shared_->io->get_executor().on_work_finished();
    if (shared_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete shared_;
  }

  template <class F>
  void execute(F&& f) const {
    const IoExecutor ex = get_inner_executor();
    Service::execute(shared_->impl, ex, std::forward<F>(f));
  }

  template <class Property>
  auto query(const Property& p) const noexcept -> decltype(boost::asio::query(std::declval<const IoExecutor&>(), p)) {
    return boost::asio::query(get_inner_executor(), p);
  }
  Tracked query(Tracked) const noexcept { return tracked_ ? Tracked(Tracked::tracked) : Tracked(Tracked::untracked); }
  Strand require(boost::asio::execution::blocking_t::never_t) const noexcept {
    return with(true, continuation_, tracked_);
  }
  Strand require(boost::asio::execution::blocking_t::possibly_t) const noexcept {
    return with(false, continuation_, tracked_);
  }
  Strand require(boost::asio::execution::relationship_t::continuation_t) const noexcept {
    return with(never_, true, tracked_);
  }
  Strand require(boost::asio::execution::relationship_t::fork_t) const noexcept {
    return with(never_, false, tracked_);
  }
  Strand require(Tracked::tracked_t) const noexcept { return with(never_, continuation_, true); }
  Strand require(Tracked::untracked_t) const noexcept { return with(never_, continuation_, false); }

  // The same strand (the same queue), whatever properties each was required with.
  friend bool operator==(const Strand& a, const Strand& b) noexcept { return a.shared_ == b.shared_; }
  friend bool operator!=(const Strand& a, const Strand& b) noexcept { return a.shared_ != b.shared_; }

  bool running_in_this_thread() const noexcept { return Service::running_in_this_thread(shared_->impl); }
  IoExecutor get_inner_executor() const noexcept {
    IoExecutor ex = shared_->io->get_executor();
    if (never_) ex = boost::asio::require(ex, boost::asio::execution::blocking.never);
    if (continuation_) ex = boost::asio::require(ex, boost::asio::execution::relationship.continuation);
    return ex;
  }
  // Null for a strand made without bounds (the pool's own coroutines).
  Bounds* bounds() const noexcept { return shared_->bounds.get(); }

 private:
  struct Shared {
    std::atomic<std::size_t> refs;
    boost::asio::io_context* io;
    Service::implementation_type impl;
    std::shared_ptr<Bounds> bounds;
  };

  Strand with(bool never, bool continuation, bool tracked) const noexcept {
    Strand copy(*this);
    copy.never_ = never;
    copy.continuation_ = continuation;
    if (tracked != copy.tracked_) {
      if (tracked)
        shared_->io->get_executor().on_work_started();
      else
        shared_->io->get_executor().on_work_finished();
      copy.tracked_ = tracked;
    }
    return copy;
  }

  Shared* shared_;
  bool never_ = false;
  bool continuation_ = false;
  bool tracked_ = false;
};

static_assert(sizeof(Strand) <= sizeof(std::shared_ptr<void>), "kept in place by any_io_executor");

// A new strand on the io_context that `executor` is of (its executor, or a Strand of it), carrying
// `bounds` (none: null). Throws std::invalid_argument for any other executor: the services run
// everything on one io_context.
inline Strand make_strand(const boost::asio::any_io_executor& executor, std::shared_ptr<Bounds> bounds = {}) {
  using IoExecutor = boost::asio::io_context::executor_type;
  // Boost 1.74's target<T>() casts without looking at the type: ask for it first.
  if (executor.target_type() == typeid(IoExecutor))
    return Strand(executor.target<IoExecutor>()->context(), std::move(bounds));
  if (executor.target_type() == typeid(Strand))
    return Strand(executor.target<Strand>()->get_inner_executor().context(), std::move(bounds));
  throw std::invalid_argument("make_strand: the executor is not an io_context's, nor a strand of one");
}

// The bounds of a coroutine running on `executor`, or nullptr for none.
inline Bounds* bounds_of(const boost::asio::any_io_executor& executor) {
  if (!executor || executor.target_type() != typeid(Strand)) return nullptr;
  return executor.target<Strand>()->bounds();
}

// For a route that runs long by design: the rest of the calling request waits as long as the
// pool's own limits allow. The next request on the connection is bounded again.
inline boost::asio::awaitable<void> lift_bounds() {
  if (auto* bounds = bounds_of(co_await boost::asio::this_coro::executor)) *bounds = Bounds{.database = {}};
}

}  // namespace core::async

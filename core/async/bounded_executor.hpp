#pragma once
// What a coroutine may wait for, carried by the executor it runs on.
//
// The HTTP server runs each connection's coroutine on a BoundedExecutor and sets its Bounds before
// each request (an interactive request waits a few seconds for the database, not the pool's 30 s
// statement timeout). Code that waits reads the bounds of whoever calls it, with no parameter to
// thread through every call:
//
//   const auto* bounds = core::async::bounds_of(co_await boost::asio::this_coro::executor);
//   const auto limit = bounds && bounds->database.count() ? std::min(pool_limit, bounds->database) : pool_limit;
//
// Work spawned on another executor (a background job, a sync started by a route) has no bounds.
// A route that runs long by design (a processing run) lifts its request's bounds: lift_bounds().
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>

#include <chrono>
#include <memory>
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

// An executor that runs what it is given on `Inner`, and carries Bounds for it.
template <class Inner>
class BoundedExecutor {
 public:
  BoundedExecutor(Inner inner, std::shared_ptr<Bounds> bounds) : inner_(std::move(inner)), bounds_(std::move(bounds)) {}

  template <class F>
  void execute(F&& f) const {
    boost::asio::execution::execute(inner_, std::forward<F>(f));
  }

  template <class Property>
  auto query(const Property& p) const -> decltype(boost::asio::query(std::declval<const Inner&>(), p)) {
    return boost::asio::query(inner_, p);
  }
  template <class Property>
  auto require(const Property& p) const
      -> BoundedExecutor<std::decay_t<decltype(boost::asio::require(std::declval<const Inner&>(), p))>> {
    return {boost::asio::require(inner_, p), bounds_};
  }
  template <class Property>
  auto prefer(const Property& p) const
      -> BoundedExecutor<std::decay_t<decltype(boost::asio::prefer(std::declval<const Inner&>(), p))>> {
    return {boost::asio::prefer(inner_, p), bounds_};
  }

  friend bool operator==(const BoundedExecutor& a, const BoundedExecutor& b) noexcept {
    return a.inner_ == b.inner_ && a.bounds_ == b.bounds_;
  }
  friend bool operator!=(const BoundedExecutor& a, const BoundedExecutor& b) noexcept { return !(a == b); }

  const Inner& inner() const noexcept { return inner_; }
  Bounds* bounds() const noexcept { return bounds_.get(); }

 private:
  Inner inner_;
  std::shared_ptr<Bounds> bounds_;
};

// What the HTTP server runs a connection on.
using BoundedStrand = BoundedExecutor<boost::asio::strand<boost::asio::any_io_executor>>;

// The bounds of a coroutine running on `executor`, or nullptr for none.
inline Bounds* bounds_of(const boost::asio::any_io_executor& executor) {
  // Boost 1.74's target<T>() casts without looking at the type: ask for it first.
  if (!executor || executor.target_type() != typeid(BoundedStrand)) return nullptr;
  return executor.target<BoundedStrand>()->bounds();
}

// For a route that runs long by design: the rest of the calling request waits as long as the
// pool's own limits allow. The next request on the connection is bounded again.
inline boost::asio::awaitable<void> lift_bounds() {
  if (auto* bounds = bounds_of(co_await boost::asio::this_coro::executor)) *bounds = Bounds{.database = {}};
}

}  // namespace core::async

#include "core/db/pool.hpp"

#include "core/async/bounded_executor.hpp"
#include "core/db/pipeline.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <list>
#include <unordered_set>
#include <utility>

namespace core::db {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using namespace std::chrono_literals;

namespace {

// How long a caller's waits may take: the pool's own limits, or an interactive request's shorter
// bound (core/async/bounded_executor.hpp) read from the executor the caller runs on. Bounded, one
// call's waits (a free connection, a new one, its first statement) share one deadline.
struct Limits {
  std::chrono::milliseconds statement;
  std::chrono::milliseconds grace;  // zero: the pool's cancel_grace
  std::chrono::milliseconds acquire;
  std::chrono::milliseconds connect;
  std::chrono::steady_clock::time_point deadline{};  // the epoch: none
};

Limits limits_for(const PoolOptions& o, const asio::any_io_executor& caller) {
  Limits l{o.query_timeout, {}, o.acquire_timeout, o.connect_timeout};
  if (const auto* b = async::bounds_of(caller); b && b->database.count() > 0) {
    l.statement = std::min(l.statement, b->database);
    l.grace = std::min(o.cancel_grace, b->database_grace);
    l.acquire = std::min(l.acquire, b->database);
    l.connect = std::min(l.connect, b->database);
    l.deadline = std::chrono::steady_clock::now() + b->database;
  }
  return l;
}

// What is left of `limit` before `deadline` (the epoch: no deadline, all of it); zero or less once
// the deadline has passed.
std::chrono::milliseconds left_of(std::chrono::milliseconds limit, std::chrono::steady_clock::time_point deadline) {
  if (deadline == std::chrono::steady_clock::time_point{}) return limit;
  return std::min(limit,
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
}

// A statement's timeout: the caller's limit, or what is left of its call's deadline (`first`: the
// lease's, for its first statement). Timeout when nothing is, before anything is sent.
std::chrono::milliseconds statement_timeout(const Limits& limits, std::chrono::steady_clock::time_point first) {
  const auto timeout = left_of(limits.statement, first);
  if (timeout.count() <= 0) throw request_bound_passed();
  return timeout;
}

}  // namespace

// The pool's state, guarded by `mutex`. Waiting happens on `strand`: a waiter registers itself and
// starts its timer within one strand handler, and whoever wakes it posts the timer's cancel to the
// strand, so the cancel can never run before the wait has started.
struct Lease::Shared : std::enable_shared_from_this<Lease::Shared> {
  using Clock = std::chrono::steady_clock;

  struct Waiter {
    explicit Waiter(asio::any_io_executor ex) : timer(std::move(ex)) {}
    asio::steady_timer timer;
    std::unique_ptr<Connection> conn;  // handed over by release()
    bool slot_free = false;            // a connection was dropped: the waiter may open one
  };

  Shared(asio::any_io_executor ex, PoolOptions opts)
      : executor(ex), options(std::move(opts)), strand(asio::make_strand(ex)), sweep_timer(strand) {}

  asio::any_io_executor executor;
  PoolOptions options;
  asio::strand<asio::any_io_executor> strand;
  asio::steady_timer sweep_timer;

  mutable std::mutex mutex;
  struct Idle {
    std::unique_ptr<Connection> conn;
    Clock::time_point since;
  };
  std::vector<Idle> idle;  // most recently used last (so the longest idle first)
  std::list<std::shared_ptr<Waiter>> waiters;
  std::unordered_set<Connection*> all;               // every open connection, idle or leased
  std::vector<std::shared_ptr<Pipeline>> pipelines;  // sharing a connection each (options.pipelines)
  std::size_t open = 0;                              // includes connections being opened
  std::uint64_t acquires = 0;                        // acquire() calls, ever
  // Counted outside the mutex (the metrics, Pool::stats()).
  std::atomic<std::uint64_t> acquire_timeouts{0};
  std::atomic<std::uint64_t> statement_errors{0};
  std::atomic<std::uint64_t> statement_timeouts{0};
  metrics::Histogram acquire_time{metrics::latency_buckets()};
  bool closed = false;

  // Under the mutex.
  void forget(std::unique_ptr<Connection> conn) {
    all.erase(conn.get());
    --open;
  }

  void wake(const std::shared_ptr<Waiter>& w) {
    asio::post(strand, [w] { w->timer.cancel(); });
  }

  awaitable<std::unique_ptr<Connection>> take(Limits limits) {
    const auto deadline = limits.deadline != Clock::time_point{} ? limits.deadline : Clock::now() + limits.acquire;
    for (;;) {
      bool may_open = false;
      {
        std::lock_guard lock(mutex);
        if (closed) throw Unavailable("the database pool is closed");
        while (!idle.empty()) {
          auto conn = std::move(idle.back().conn);
          idle.pop_back();
          if (conn->idle_and_healthy()) co_return conn;
          forget(std::move(conn));  // the server closed it
        }
        if (open < options.max_size) {
          ++open;
          may_open = true;
        }
      }
      // past the deadline, 1 ms: the attempt times out, and open_one() gives the slot back
      if (may_open) co_return co_await open_one(std::max(left_of(limits.connect, limits.deadline), 1ms));
      auto conn = co_await asio::co_spawn(strand, wait(deadline), use_awaitable);
      if (conn) co_return conn;
      if (Clock::now() >= deadline)
        throw Timeout("no database connection became free within " + std::to_string(limits.acquire.count()) + " ms");
    }
  }

  awaitable<std::unique_ptr<Connection>> open_one(std::chrono::milliseconds connect_timeout) {
    std::unique_ptr<Connection> conn;
    try {
      conn = co_await Connection::open(executor, options.conninfo, connect_timeout);
    } catch (...) {
      std::lock_guard lock(mutex);
      --open;
      if (!waiters.empty()) {  // let a waiter try in our place
        auto w = waiters.front();
        waiters.pop_front();
        w->slot_free = true;
        wake(w);
      }
      throw;
    }
    std::lock_guard lock(mutex);
    all.insert(conn.get());
    co_return conn;
  }

  // On the strand. Returns a connection handed over, or null to make the caller look again.
  awaitable<std::unique_ptr<Connection>> wait(Clock::time_point deadline) {
    auto w = std::make_shared<Waiter>(strand);
    {
      std::lock_guard lock(mutex);
      if (closed || !idle.empty() || open < options.max_size) co_return nullptr;
      w->timer.expires_at(deadline);
      waiters.push_back(w);
    }
    boost::system::error_code ec;
    co_await w->timer.async_wait(asio::redirect_error(use_awaitable, ec));
    std::lock_guard lock(mutex);
    waiters.remove(w);
    co_return std::move(w->conn);
  }

  // Under the mutex: the pipeline a single statement joins, or null to start one. Statements fill
  // the busiest pipeline that keeps up (its oldest statement in flight was sent less than
  // options.pipeline_backlog ago), so that one backend works through them back to back and one
  // wake-up of its reader hands back many answers, rather than several backends each sleeping
  // and waking for a few. When none keeps up, another is started while fewer than
  // options.pipelines take statements and a connection is to be had; else the least loaded is
  // joined. A pipeline whose head statement has run longer than options.pipeline_stall is passed
  // over while a connection is to be had (a slow statement holds up only those already behind
  // it). Nobody joins while callers wait for a connection: the pipelines drain and hand theirs
  // over.
  std::shared_ptr<Pipeline> pick_pipeline() const {
    if (!waiters.empty()) return nullptr;
    const bool room = !idle.empty() || open < options.max_size;
    const auto now = Clock::now();
    std::shared_ptr<Pipeline> busiest;  // of those that keep up
    std::shared_ptr<Pipeline> least;
    std::size_t taking = 0;
    for (const auto& p : pipelines) {
      if (!p->accepting() || (room && p->stalled(now, options.pipeline_stall))) continue;
      ++taking;
      if (!least || p->load() < least->load()) least = p;
      if (!p->backed_up(now, options.pipeline_backlog) && (!busiest || p->load() > busiest->load())) busiest = p;
    }
    if (busiest) return busiest;
    if (!least || (taking < options.pipelines && room)) return nullptr;
    return least;
  }

  // A pipeline for one statement: joined, or started on a connection taken as acquire() does.
  awaitable<std::shared_ptr<Pipeline>> pipeline(Limits limits) {
    const auto started = Clock::now();
    {
      std::lock_guard lock(mutex);
      if (closed) throw Unavailable("the database pool is closed");
      if (auto joined = pick_pipeline()) {
        acquire_time.observe(std::chrono::duration<double>(Clock::now() - started).count());
        co_return joined;
      }
    }
    std::unique_ptr<Connection> conn;
    try {
      conn = co_await take(limits);
    } catch (const Timeout&) {
      acquire_timeouts.fetch_add(1, std::memory_order_relaxed);
      throw;
    }
    std::weak_ptr<Shared> weak = shared_from_this();
    auto started_pipeline =
        std::make_shared<Pipeline>(executor, std::move(conn), options.query_timeout,
                                   [weak](Pipeline& closed_pipeline, std::unique_ptr<Connection> c) {
                                     if (auto self = weak.lock()) self->pipeline_closed(closed_pipeline, std::move(c));
                                   });
    {
      std::lock_guard lock(mutex);
      pipelines.push_back(started_pipeline);
    }
    acquire_time.observe(std::chrono::duration<double>(Clock::now() - started).count());
    co_return started_pipeline;
  }

  void pipeline_closed(Pipeline& p, std::unique_ptr<Connection> conn) {
    {
      std::lock_guard lock(mutex);
      std::erase_if(pipelines, [&p](const auto& q) { return q.get() == &p; });
    }
    release(std::move(conn));
  }

  // From any thread.
  void release(std::unique_ptr<Connection> conn) {
    if (!conn) return;
    if (!conn->broken() && conn->in_transaction()) {
      // An exception skipped the commit: roll back before anyone else gets the connection.
      asio::co_spawn(strand, rollback_then_release(shared_from_this(), std::move(conn)), asio::detached);
      return;
    }
    std::lock_guard lock(mutex);
    const bool usable = !conn->broken() && !closed;
    std::shared_ptr<Waiter> w;
    if (!waiters.empty()) {
      w = waiters.front();
      waiters.pop_front();
    }
    if (!usable) {
      forget(std::move(conn));
      if (w) w->slot_free = true;
    } else if (w) {
      w->conn = std::move(conn);
    } else {
      idle.push_back({std::move(conn), Clock::now()});
    }
    if (w) wake(w);
  }

  static awaitable<void> rollback_then_release(std::shared_ptr<Shared> self, std::unique_ptr<Connection> conn) {
    try {
      co_await conn->execute_simple("ROLLBACK", self->options.query_timeout);
    } catch (const std::exception&) {
      // broken() now holds: release() drops it
    }
    self->release(std::move(conn));
  }

  // On the strand, until the pool closes: cancels statements past their timeout.
  static awaitable<void> sweep(std::shared_ptr<Shared> self) {
    for (;;) {
      self->sweep_timer.expires_after(self->options.sweep_interval);
      boost::system::error_code ec;
      co_await self->sweep_timer.async_wait(asio::redirect_error(use_awaitable, ec));
      std::lock_guard lock(self->mutex);
      if (self->closed) co_return;
      const auto now = Clock::now();
      for (Connection* c : self->all) c->expire_if_due(now, self->options.cancel_grace);
      for (const auto& p : self->pipelines) p->expire_if_due(now, self->options.cancel_grace);
      self->close_idle_since(now - self->options.idle_timeout);
    }
  }

  // Under the mutex: closes the connections idle since before `before` (none when idle_timeout is 0).
  void close_idle_since(Clock::time_point before) {
    if (options.idle_timeout.count() <= 0) return;
    auto stale = idle.begin();
    while (stale != idle.end() && stale->since < before) ++stale;
    for (auto it = idle.begin(); it != stale; ++it) forget(std::move(it->conn));
    idle.erase(idle.begin(), stale);
  }
};

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    pool_ = std::move(other.pool_);
    conn_ = std::move(other.conn_);
    first_deadline_ = other.first_deadline_;
  }
  return *this;
}

Lease::~Lease() { release(); }

void Lease::release() {
  if (pool_) pool_->release(std::move(conn_));
  pool_.reset();
}

namespace {

// Counts a statement's failure by its kind, then lets it go on.
template <class Shared>
void count_statement_failure(Shared& pool, const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Timeout&) {
    pool.statement_timeouts.fetch_add(1, std::memory_order_relaxed);
  } catch (...) {
    pool.statement_errors.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

awaitable<Result> Lease::execute(std::string_view sql, std::vector<Param> params) {
  std::exception_ptr failure;
  try {
    const auto limits = limits_for(pool_->options, co_await asio::this_coro::executor);
    const auto timeout = statement_timeout(limits, std::exchange(first_deadline_, {}));
    co_return co_await conn_->execute(sql, params, timeout, limits.grace);
  } catch (...) {
    failure = std::current_exception();
  }
  count_statement_failure(*pool_, failure);
  std::rethrow_exception(failure);
}

awaitable<Result> Lease::execute_simple(std::string_view sql) {
  std::exception_ptr failure;
  try {
    const auto limits = limits_for(pool_->options, co_await asio::this_coro::executor);
    const auto timeout = statement_timeout(limits, std::exchange(first_deadline_, {}));
    co_return co_await conn_->execute_simple(sql, timeout, limits.grace);
  } catch (...) {
    failure = std::current_exception();
  }
  count_statement_failure(*pool_, failure);
  std::rethrow_exception(failure);
}

awaitable<void> Transaction::commit() { co_await lease_.execute_simple("COMMIT"); }

Pool::Pool(asio::any_io_executor executor, PoolOptions options)
    : shared_(std::make_shared<Lease::Shared>(std::move(executor), std::move(options))) {
  asio::co_spawn(shared_->strand, Lease::Shared::sweep(shared_), asio::detached);
}

Pool::~Pool() { close(); }

awaitable<Lease> Pool::acquire() {
  {
    std::lock_guard lock(shared_->mutex);
    ++shared_->acquires;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto limits = limits_for(shared_->options, co_await asio::this_coro::executor);
  std::unique_ptr<Connection> conn;
  try {
    conn = co_await shared_->take(limits);
  } catch (const Timeout&) {
    shared_->acquire_timeouts.fetch_add(1, std::memory_order_relaxed);
    throw;
  }
  shared_->acquire_time.observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  Lease lease(shared_, std::move(conn));
  lease.first_deadline_ = limits.deadline;  // its first statement (BEGIN, or the caller's) shares it
  co_return lease;
}

awaitable<Transaction> Pool::begin() {
  Lease lease = co_await acquire();
  co_await lease.execute_simple("BEGIN");
  co_return Transaction(std::move(lease));
}

awaitable<Result> Pool::execute(std::string_view sql, std::vector<Param> params) {
  if (shared_->options.pipelines == 0) {
    Lease lease = co_await acquire();
    co_return co_await lease.execute(sql, std::move(params));
  }
  {
    std::lock_guard lock(shared_->mutex);
    ++shared_->acquires;
  }
  // A request's bound covers joining a pipeline and the answer (Pipeline: `answer_by`).
  const auto limits = limits_for(shared_->options, co_await asio::this_coro::executor);
  for (;;) {
    const auto pipeline = co_await shared_->pipeline(limits);
    std::exception_ptr failure;
    try {
      if (auto rows = co_await pipeline->execute(sql, params, limits.deadline)) co_return std::move(*rows);
      continue;  // not run there (it closed, or a cancel meant for another hit it): again
    } catch (...) {
      failure = std::current_exception();
    }
    count_statement_failure(*shared_, failure);
    std::rethrow_exception(failure);
  }
}

void Pool::close() {
  std::vector<std::shared_ptr<Lease::Shared::Waiter>> waiting;
  {
    std::lock_guard lock(shared_->mutex);
    if (shared_->closed) return;
    shared_->closed = true;
    for (auto& c : shared_->idle) shared_->all.erase(c.conn.get());
    shared_->open -= shared_->idle.size();
    shared_->idle.clear();
    waiting.assign(shared_->waiters.begin(), shared_->waiters.end());
  }
  for (auto& w : waiting) shared_->wake(w);
  asio::post(shared_->strand, [s = shared_] { s->sweep_timer.cancel(); });
}

Pool::Stats Pool::stats() const {
  std::lock_guard lock(shared_->mutex);
  return {shared_->open,
          shared_->idle.size(),
          shared_->waiters.size(),
          shared_->acquires,
          shared_->acquire_timeouts.load(std::memory_order_relaxed),
          shared_->statement_errors.load(std::memory_order_relaxed),
          shared_->statement_timeouts.load(std::memory_order_relaxed),
          shared_->pipelines.size()};
}

std::size_t Pool::max_size() const { return shared_->options.max_size; }

const metrics::Histogram& Pool::acquire_time() const { return shared_->acquire_time; }

}  // namespace core::db

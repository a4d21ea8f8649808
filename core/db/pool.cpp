#include "core/db/pool.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <future>
#include <list>

namespace core::db {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

// The pool's bookkeeping. Every member below `strand` is touched only on that strand, so no
// lock is needed and a waiter's timer is never raced by the one who wakes it.
struct Lease::Shared : std::enable_shared_from_this<Lease::Shared> {
  struct Waiter {
    explicit Waiter(asio::any_io_executor ex) : timer(ex) {}
    asio::steady_timer timer;
    std::unique_ptr<Connection> conn;  // handed over by release()
    bool slot_free = false;            // a connection was dropped: the waiter may open one
  };

  Shared(asio::any_io_executor ex, PoolOptions opts)
      : executor(ex), options(std::move(opts)), strand(asio::make_strand(ex)) {}

  asio::any_io_executor executor;
  PoolOptions options;
  asio::strand<asio::any_io_executor> strand;
  std::deque<std::unique_ptr<Connection>> idle;
  std::list<Waiter*> waiters;
  std::size_t open = 0;
  bool closed = false;

  awaitable<std::unique_ptr<Connection>> take() {
    const auto deadline = std::chrono::steady_clock::now() + options.acquire_timeout;
    for (;;) {
      if (closed) throw Unavailable("the database pool is closed");
      while (!idle.empty()) {
        auto conn = std::move(idle.front());
        idle.pop_front();
        if (conn->idle_and_healthy()) co_return conn;
        --open;  // dropped: the server closed it
      }
      if (open < options.max_size) {
        ++open;
        try {
          co_return co_await Connection::open(executor, options.conninfo, options.connect_timeout);
        } catch (...) {
          --open;
          throw;
        }
      }
      Waiter w(strand);
      w.timer.expires_at(deadline);
      waiters.push_back(&w);
      boost::system::error_code ec;
      co_await w.timer.async_wait(asio::redirect_error(use_awaitable, ec));
      waiters.remove(&w);
      if (w.conn) co_return std::move(w.conn);
      if (w.slot_free || closed) continue;
      throw Timeout("no database connection became free within " +
                    std::to_string(options.acquire_timeout.count()) + " ms");
    }
  }

  // On the strand: hand a connection to the first waiter, or keep it idle.
  void give_back(std::unique_ptr<Connection> conn) {
    const bool usable = conn && !conn->broken() && !conn->in_transaction() && !closed;
    if (!usable) {
      conn.reset();
      --open;
      if (!waiters.empty()) wake_first([](Waiter& w) { w.slot_free = true; });
      return;
    }
    if (!waiters.empty()) {
      wake_first([&](Waiter& w) { w.conn = std::move(conn); });
      return;
    }
    idle.push_back(std::move(conn));
  }

  template <class F>
  void wake_first(F&& f) {
    Waiter* w = waiters.front();
    waiters.pop_front();
    f(*w);
    w->timer.cancel();
  }

  // Called from any thread. A connection left inside a transaction (an exception skipped the
  // commit) is rolled back before anyone else gets it.
  void release(std::unique_ptr<Connection> conn) {
    auto self = shared_from_this();
    if (conn && !conn->broken() && conn->in_transaction()) {
      asio::co_spawn(strand, rollback_then_return(self, std::move(conn)), asio::detached);
      return;
    }
    asio::post(strand, [self, c = std::move(conn)]() mutable { self->give_back(std::move(c)); });
  }

  static awaitable<void> rollback_then_return(std::shared_ptr<Shared> self, std::unique_ptr<Connection> conn) {
    try {
      co_await conn->execute_simple("ROLLBACK", self->options.query_timeout);
    } catch (const std::exception&) {
      conn.reset();  // a connection that cannot roll back is not reused
    }
    self->give_back(std::move(conn));
  }
};

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    pool_ = std::move(other.pool_);
    conn_ = std::move(other.conn_);
  }
  return *this;
}

Lease::~Lease() { release(); }

void Lease::release() {
  if (pool_) pool_->release(std::move(conn_));
  pool_.reset();
}

awaitable<Result> Lease::execute(std::string_view sql, std::vector<Param> params) {
  co_return co_await conn_->execute(sql, params, pool_->options.query_timeout);
}

awaitable<Result> Lease::execute_simple(std::string_view sql) {
  co_return co_await conn_->execute_simple(sql, pool_->options.query_timeout);
}

awaitable<void> Transaction::commit() { co_await lease_.execute_simple("COMMIT"); }

Pool::Pool(asio::any_io_executor executor, PoolOptions options)
    : shared_(std::make_shared<Lease::Shared>(std::move(executor), std::move(options))) {}

Pool::~Pool() { close(); }

awaitable<Lease> Pool::acquire() {
  auto conn = co_await asio::co_spawn(shared_->strand, shared_->take(), use_awaitable);
  co_return Lease(shared_, std::move(conn));
}

awaitable<Transaction> Pool::begin() {
  Lease lease = co_await acquire();
  co_await lease.execute_simple("BEGIN");
  co_return Transaction(std::move(lease));
}

awaitable<Result> Pool::execute(std::string_view sql, std::vector<Param> params) {
  Lease lease = co_await acquire();
  co_return co_await lease.execute(sql, std::move(params));
}

void Pool::close() {
  asio::post(shared_->strand, [s = shared_] {
    s->closed = true;
    s->open -= s->idle.size();
    s->idle.clear();
    for (auto* w : s->waiters) w->timer.cancel();
  });
}

Pool::Stats Pool::stats() const {
  std::promise<Stats> result;
  auto done = result.get_future();
  asio::post(shared_->strand, [&] {
    result.set_value({shared_->open, shared_->idle.size(), shared_->waiters.size()});
  });
  return done.get();
}

}  // namespace core::db

#pragma once
// A bounded pool of asynchronous PostgreSQL connections.
//
//   auto rows = co_await pool.query(kSql, a, b);             // one statement
//   auto tx = co_await pool.begin();                         // a transaction
//   co_await tx.query(kInsert, x);
//   co_await tx.commit();                                    // destroyed uncommitted: rolled back
//
// Connections are made on demand up to `max_size` and closed after `idle_timeout` unused; a caller
// waits up to `acquire_timeout` for a free one. Taking and returning a connection is a short critical section under a mutex; only a
// caller that must wait goes through the pool's strand. An idle connection the server has closed
// (a restart) is dropped on the next acquire, so once the database is back, requests succeed
// again without restarting the service. While it is down, calls throw Unavailable (503).
//
// Single statements (query(), execute()) of concurrent callers share connections in libpq's
// pipeline mode (core/db/pipeline.hpp): each statement is sent at once with a sync point of its
// own, so it is its own implicit transaction and fails alone, and the results come back in order
// to their callers. A statement joins the busiest pipeline that keeps up (its oldest statement in
// flight was sent less than `pipeline_backlog` ago), so that one backend works through the
// statements back to back; when none keeps up, another is started (on a connection taken as
// acquire() takes one) while fewer than `pipelines` take statements and a connection is to be
// had, else the least loaded is joined. A pipeline hands its connection back when its last
// statement has answered. While a caller waits for a connection, statements join no pipeline but
// queue behind it, so a transaction is never starved. A slow statement delays those already sent
// behind it on the same connection; once it has run `pipeline_stall`, new statements go elsewhere
// (another pipeline, a new one). `pipelines = 0` gives every statement a connection of its own.
// Transactions (begin()) and acquire() always get a connection of their own.
//
// Statement timeouts: a sweeper on the pool's strand looks at the running statements every
// `sweep_interval` and cancels those past `query_timeout` (so a timeout fires up to one interval
// late); one that does not end within `cancel_grace` after the cancel has its socket severed. In a
// pipeline the statement at the head is the one running; its time starts when it gets there.
#include "core/db/connection.hpp"
#include "core/metrics/metrics.hpp"

#include <boost/asio/strand.hpp>

#include <deque>

namespace core::db {

struct PoolOptions {
  std::string conninfo;  // a libpq URL or key=value string
  std::size_t max_size = 16;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds acquire_timeout{5'000};
  std::chrono::milliseconds query_timeout{30'000};
  std::chrono::milliseconds sweep_interval{100};
  std::chrono::milliseconds cancel_grace{5'000};
  // Single statements (query(), execute()) share up to this many connections in pipeline mode
  // (core/db/pipeline.hpp), a second one only while the first falls behind (`pipeline_backlog`);
  // 0: each takes a connection of its own, as a transaction does.
  std::size_t pipelines = 2;
  // A pipeline whose head statement has run this long takes no more statements while another
  // connection is to be had: a slow statement holds up only those already sent behind it.
  std::chrono::milliseconds pipeline_stall{100};
  // A pipeline whose oldest statement in flight was sent this long ago is not keeping up: new
  // statements go to another (started while fewer than `pipelines` take statements). Under the
  // peer benchmark on two shared cores, a point query's wait passes 2 ms whenever its backend is
  // preempted, and spreading on that cost 12 % of the rate; 20 ms spreads only on a real backlog.
  std::chrono::milliseconds pipeline_backlog{20};
  // A connection idle this long is closed by the sweeper; 0: never. The most recently used idle
  // connection is taken first, so after a burst the pool shrinks back to what the steady load
  // keeps busy, and the database's connection slots go back to it.
  std::chrono::milliseconds idle_timeout{60'000};
};

class Pool;

// Note: query() takes its arguments by value (a string literal decays to a pointer), so they
// live in the coroutine's frame for as long as the statement runs.

// Exclusive use of one connection; returns it to the pool when destroyed.
class Lease {
 public:
  Lease() = default;
  Lease(Lease&&) noexcept = default;
  Lease& operator=(Lease&&) noexcept;
  ~Lease();

  template <class... Args>
  boost::asio::awaitable<Result> query(std::string_view sql, Args... args) {
    return execute(sql, params(std::move(args)...));
  }
  boost::asio::awaitable<Result> execute(std::string_view sql, std::vector<Param> params);
  boost::asio::awaitable<Result> execute_simple(std::string_view sql);
  // The connection's quoting and password hashing (core/db/connection.hpp).
  const Connection& connection() const { return *conn_; }

 private:
  friend class Pool;

  struct Shared;
  Lease(std::shared_ptr<Shared> pool, std::unique_ptr<Connection> conn)
      : pool_(std::move(pool)), conn_(std::move(conn)) {}
  void release();
  std::shared_ptr<Shared> pool_;
  std::unique_ptr<Connection> conn_;
  // For an interactive request (core/async/bounded_executor.hpp): taking the connection and its
  // first statement share one deadline; the epoch when there is none.
  std::chrono::steady_clock::time_point first_deadline_{};
};

class Transaction {
 public:
  template <class... Args>
  boost::asio::awaitable<Result> query(std::string_view sql, Args... args) {
    return lease_.execute(sql, params(std::move(args)...));
  }
  // Statements without parameters, several at once (DDL such as CREATE ROLE and GRANT).
  boost::asio::awaitable<Result> execute_simple(std::string_view sql) { return lease_.execute_simple(sql); }
  const Connection& connection() const { return lease_.connection(); }
  boost::asio::awaitable<void> commit();

 private:
  friend class Pool;

  explicit Transaction(Lease lease) : lease_(std::move(lease)) {}
  Lease lease_;
};

class Pool {
 public:
  Pool(boost::asio::any_io_executor executor, PoolOptions options);
  ~Pool();

  boost::asio::awaitable<Lease> acquire();
  boost::asio::awaitable<Transaction> begin();

  template <class... Args>
  boost::asio::awaitable<Result> query(std::string_view sql, Args... args) {
    return execute(sql, params(std::move(args)...));
  }
  boost::asio::awaitable<Result> execute(std::string_view sql, std::vector<Param> params);

  // Refuses new work, closes idle connections, stops the sweeper; waiting callers get Unavailable.
  void close();

  struct Stats {
    std::size_t open = 0;
    std::size_t idle = 0;
    std::size_t waiting = 0;
    std::uint64_t acquires = 0;  // every statement and transaction takes one: tests read "no database work" here
    std::uint64_t acquire_timeouts = 0;    // no connection became free within acquire_timeout
    std::uint64_t statement_errors = 0;    // statements that failed (the server's error, a lost connection)
    std::uint64_t statement_timeouts = 0;  // statements cancelled at query_timeout
    std::size_t pipelines = 0;             // connections in pipeline mode now (counted in `open`)
  };
  Stats stats() const;
  std::size_t max_size() const;
  // How long acquire() took, in seconds (the metrics' db_pool_acquire_duration_seconds).
  const metrics::Histogram& acquire_time() const;

 private:
  std::shared_ptr<Lease::Shared> shared_;
};

}  // namespace core::db

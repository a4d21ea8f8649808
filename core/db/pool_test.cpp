#include "core/db/pool.hpp"

#include "core/async/bounded_executor.hpp"
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <thread>

using namespace core;
using boost::asio::awaitable;
using namespace std::chrono_literals;

namespace {

struct PoolTest : ::testing::Test {
  core::testing::TestDatabase database;
  core::testing::IoThreads io;

  db::Pool make(db::PoolOptions options = {}) {
    options.conninfo = database.url();
    return db::Pool(io.executor(), options);
  }
};

}  // namespace

TEST_F(PoolTest, BindsParametersOfEveryKind) {
  auto pool = make();
  static constexpr std::string_view kEveryKind = R"sql(
    SELECT $1::bigint + 1 AS n, $2::text AS s, $3::boolean AS b, $4::text IS NULL AS was_null,
           $5::text[] AS arr, $6::jsonb AS doc, $7::float8 * 2 AS f
  )sql";
  const std::string quoted = "it's \"quoted\"";
  const std::vector<std::string> items{"a", "b,c", "d\"e"};
  const nlohmann::json doc{{"k", "v"}};
  const auto rows = io.run([&]() -> awaitable<db::Result> {
    co_return co_await pool.query(kEveryKind, std::int64_t{41}, quoted, true, nullptr, items, doc, 0.25);
  }());
  ASSERT_EQ(rows.size(), 1);
  const auto row = rows.front();
  EXPECT_EQ(row.get<std::int64_t>("n"), 42);
  EXPECT_EQ(row.get<std::string>("s"), "it's \"quoted\"");
  EXPECT_TRUE(row.get<bool>("b"));
  EXPECT_TRUE(row.get<bool>("was_null"));
  EXPECT_EQ(row.get<std::vector<std::string>>("arr"), (std::vector<std::string>{"a", "b,c", "d\"e"}));
  EXPECT_EQ(row.get<nlohmann::json>("doc")["k"], "v");
  EXPECT_DOUBLE_EQ(row.get<double>("f"), 0.5);
  EXPECT_EQ(row.get<std::optional<std::string>>(row.column("s")), "it's \"quoted\"");
}

TEST_F(PoolTest, InjectionAttemptIsJustAValue) {
  auto pool = make();
  const auto rows = io.run([&]() -> awaitable<db::Result> {
    co_return co_await pool.query("SELECT $1::text AS v", std::string("'); DROP TABLE schema_migrations; --"));
  }());
  EXPECT_EQ(rows.front().get<std::string>("v"), "'); DROP TABLE schema_migrations; --");
}

TEST_F(PoolTest, StatementsArePreparedOncePerConnection) {
  auto pool = make({.max_size = 1});
  const auto count = io.run([&]() -> awaitable<std::int64_t> {
    auto lease = co_await pool.acquire();
    for (int i = 0; i < 5; ++i) co_await lease.query("SELECT $1::int", i);
    const auto r =
        co_await lease.query("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int%'");
    co_return r.front().get<std::int64_t>(0);
  }());
  EXPECT_EQ(count, 1);
}

TEST_F(PoolTest, ServerErrorsCarrySqlstate) {
  auto pool = make();
  io.run([&]() -> awaitable<void> {
    co_await pool.query("CREATE TABLE t (id int PRIMARY KEY)");
    co_await pool.query("INSERT INTO t VALUES (1)");
    try {
      co_await pool.query("INSERT INTO t VALUES (1)");
      ADD_FAILURE() << "duplicate accepted";
    } catch (const db::Error& e) {
      EXPECT_TRUE(e.unique_violation()) << e.sqlstate;
    }
  }());
}

TEST_F(PoolTest, TransactionCommitsOrRollsBackWhenAbandoned) {
  auto pool = make({.max_size = 1});  // one connection: the rollback must leave it clean
  io.run([&]() -> awaitable<void> {
    co_await pool.query("CREATE TABLE t (v text)");
    {
      auto tx = co_await pool.begin();
      co_await tx.query("INSERT INTO t VALUES ($1)", "kept");
      co_await tx.commit();
    }
    try {
      auto tx = co_await pool.begin();
      co_await tx.query("INSERT INTO t VALUES ($1)", "dropped");
      throw std::runtime_error("handler failed half way");
    } catch (const std::runtime_error&) {
    }
    const auto rows = co_await pool.query("SELECT string_agg(v, ',') FROM t");
    EXPECT_EQ(rows.front().get<std::string>(0), "kept");
  }());
}

TEST_F(PoolTest, StatementTimeoutCancelsAndThePoolCarriesOn) {
  auto pool = make({.max_size = 1, .query_timeout = 200ms, .sweep_interval = 20ms});
  io.run([&]() -> awaitable<void> {
    EXPECT_THROW(co_await pool.query("SELECT pg_sleep(10)"), db::Timeout);
    // The cancelled connection was retired (a late cancel must not hit a later statement);
    // the next statement gets a fresh one.
    const auto rows = co_await pool.query("SELECT 7");
    EXPECT_EQ(rows.front().get<int>(0), 7);
  }());
  EXPECT_EQ(pool.stats().open, 1u);
  EXPECT_EQ(pool.stats().acquires, 2u);  // one per statement
}

TEST_F(PoolTest, SeveredWhenTheServerDoesNotAnswerEvenTheCancel) {
  auto pool = make({.max_size = 1, .query_timeout = 100ms, .sweep_interval = 20ms, .cancel_grace = 300ms});
  const auto backend = io.run(
      [&]() -> awaitable<int> { co_return (co_await pool.query("SELECT pg_backend_pid()")).front().get<int>(0); }());
  // A frozen backend answers nothing, not even the cancel: only severing the socket ends the wait.
  ASSERT_EQ(kill(backend, SIGSTOP), 0);
  EXPECT_THROW(io.run(pool.query("SELECT 1")), db::Timeout);
  kill(backend, SIGCONT);
  EXPECT_EQ(io.run([&]() -> awaitable<int> { co_return (co_await pool.query("SELECT 2")).front().get<int>(0); }()), 2);
}

// An interactive request's bounds (core/async/bounded_executor.hpp), read from the executor of
// the coroutine that calls the pool: its statements end at the bound, not at the pool's timeout,
// also when the server answers nothing; lifted, the pool's own timeout holds again; a caller on
// another executor never had them.
TEST_F(PoolTest, ARequestsBoundsCutItsWaitsShortUntilLifted) {
  // Each statement on a connection of its own: one sent into a pipeline keeps the pool's timeout.
  auto pool = make({.max_size = 2, .query_timeout = 60s, .sweep_interval = 20ms, .cancel_grace = 30s, .pipelines = 0});
  auto bounds = std::make_shared<async::Bounds>(async::Bounds{.database = 200ms, .database_grace = 100ms});
  const auto bounded = async::make_strand(io.executor(), bounds);
  const auto on_bounded = [&](awaitable<void> work) {
    boost::asio::co_spawn(bounded, std::move(work), boost::asio::use_future).get();
  };
  on_bounded([&]() -> awaitable<void> {
    EXPECT_THROW(co_await pool.query("SELECT pg_sleep(3)"), db::Timeout);  // the pool alone lets it run
  }());

  const auto backend = io.run(
      [&]() -> awaitable<int> { co_return (co_await pool.query("SELECT pg_backend_pid()")).front().get<int>(0); }());
  ASSERT_EQ(kill(backend, SIGSTOP), 0);  // answers nothing, not even the cancel
  const auto asked = std::chrono::steady_clock::now();
  on_bounded([&]() -> awaitable<void> { EXPECT_THROW(co_await pool.query("SELECT 1"), db::Timeout); }());
  // 200 ms and 100 ms of grace, not the pool's 60 s and 30 s (a wide margin for a loaded machine)
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 10s);
  kill(backend, SIGCONT);

  on_bounded([&]() -> awaitable<void> {
    co_await async::lift_bounds();
    const auto rows = co_await pool.query("SELECT 7 FROM pg_sleep(0.5)");
    EXPECT_EQ(rows.front().get<int>(0), 7);
  }());
  EXPECT_EQ(bounds->database, 0ms) << "lifted for the rest of that request";
  EXPECT_EQ(io.run([&]() -> awaitable<int> {
    co_return (co_await pool.query("SELECT 8 FROM pg_sleep(0.5)")).front().get<int>(0);
  }()),
            8);
}

// One call's waits share the bound: a query that waited 0.6 s for the only connection has 0.4 s
// of its 1 s left for its statement, not a fresh second (the soak saw 3 s of waiting for a
// connection, then 3 more connecting: issue 37).
TEST_F(PoolTest, ACallsWaitForAConnectionAndItsStatementShareTheBound) {
  auto pool = make({.max_size = 1, .query_timeout = 60s, .sweep_interval = 20ms, .pipelines = 0});
  auto bounds = std::make_shared<async::Bounds>(async::Bounds{.database = 1000ms, .database_grace = 100ms});
  const auto bounded = async::make_strand(io.executor(), bounds);
  auto holder = boost::asio::co_spawn(
      io.executor(), [&]() -> awaitable<void> { co_await pool.query("SELECT pg_sleep(0.6)"); },
      boost::asio::use_future);
  std::this_thread::sleep_for(100ms);  // the holder has the connection
  boost::asio::co_spawn(
      bounded, [&]() -> awaitable<void> { EXPECT_THROW(co_await pool.query("SELECT pg_sleep(0.8)"), db::Timeout); },
      boost::asio::use_future)
      .get();
  holder.get();
}

TEST_F(PoolTest, SizeIsBoundedAndWaitersTimeOut) {
  // Each statement on a connection of its own (a third would otherwise join a pipeline).
  auto pool = make({.max_size = 2, .acquire_timeout = 150ms, .pipelines = 0});
  std::atomic<int> timeouts{0}, done{0};
  auto sleeper = [&]() -> awaitable<void> {
    try {
      co_await pool.query("SELECT pg_sleep(0.6)");
      ++done;
    } catch (const db::Timeout&) {
      ++timeouts;
    }
  };
  auto f1 = boost::asio::co_spawn(io.executor(), sleeper(), boost::asio::use_future);
  auto f2 = boost::asio::co_spawn(io.executor(), sleeper(), boost::asio::use_future);
  auto f3 = boost::asio::co_spawn(io.executor(), sleeper(), boost::asio::use_future);
  f1.get();
  f2.get();
  f3.get();
  EXPECT_EQ(done, 2);
  EXPECT_EQ(timeouts, 1);
  EXPECT_EQ(pool.stats().open, 2u);
}

TEST_F(PoolTest, WaitersGetReleasedConnections) {
  auto pool = make({.max_size = 1, .acquire_timeout = 5s});
  std::vector<std::future<void>> all;
  std::atomic<int> done{0};
  auto worker = [&]() -> awaitable<void> {  // named: the coroutine refers to its captures
    co_await pool.query("SELECT pg_sleep(0.02)");
    ++done;
  };
  for (int i = 0; i < 8; ++i) all.push_back(boost::asio::co_spawn(io.executor(), worker(), boost::asio::use_future));
  for (auto& f : all) f.get();
  EXPECT_EQ(done, 8);
  EXPECT_EQ(pool.stats().open, 1u);
}

// After a burst the pool shrinks back: the connections the burst opened are closed once idle for
// idle_timeout, while the one a steady trickle keeps taking (the most recently used) stays open.
TEST_F(PoolTest, ConnectionsIdleForTheirTimeoutAreClosed) {
  auto pool = make({.max_size = 4, .sweep_interval = 20ms, .pipelines = 0, .idle_timeout = 300ms});
  const auto backends = [&] {
    return core::testing::sql(database.url(),
                              "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                              "AND pid <> pg_backend_pid()");
  };
  auto sleeper = [&]() -> awaitable<void> { co_await pool.query("SELECT pg_sleep(0.1)"); };
  std::vector<std::future<void>> burst;
  for (int i = 0; i < 4; ++i) burst.push_back(boost::asio::co_spawn(io.executor(), sleeper(), boost::asio::use_future));
  for (auto& f : burst) f.get();
  EXPECT_EQ(pool.stats().open, 4u);
  EXPECT_EQ(backends(), "4");
  // A statement every 50 ms for a second: one connection serves them all, the three others age out.
  const auto until = std::chrono::steady_clock::now() + 1s;
  while (std::chrono::steady_clock::now() < until) {
    boost::asio::co_spawn(io.executor(), pool.query("SELECT 1"), boost::asio::use_future).get();
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(pool.stats().open, 1u);
  EXPECT_EQ(backends(), "1");  // closed on the server's side too
  EXPECT_TRUE(core::testing::eventually([&] { return pool.stats().open == 0; }, 5s));
  // A statement after that opens a connection again.
  EXPECT_EQ(
      boost::asio::co_spawn(io.executor(), pool.query("SELECT 2"), boost::asio::use_future).get().front().get<int>(0),
      2);
}

TEST(Pool, UnreachableDatabaseIsUnavailable) {
  core::testing::IoThreads io;
  db::Pool pool(io.executor(),
                {.conninfo = "postgresql://postgres@127.0.0.1:" + std::to_string(core::testing::free_port()) + "/x"});
  EXPECT_THROW(io.run(pool.query("SELECT 1")), db::Unavailable);
}

TEST(Pool, RecoversAfterTheDatabaseRestarts) {
  core::testing::TempCluster cluster;
  core::testing::IoThreads io;
  db::Pool pool(io.executor(), {.conninfo = cluster.url(), .max_size = 4, .connect_timeout = 2s});
  auto ask = [&] {
    return io.run([&]() -> awaitable<int> { co_return (co_await pool.query("SELECT 1")).front().get<int>(0); }());
  };
  EXPECT_EQ(ask(), 1);
  EXPECT_EQ(pool.stats().idle, 1u);

  cluster.stop("fast");
  EXPECT_THROW(ask(), db::Unavailable);
  cluster.start();
  EXPECT_EQ(ask(), 1);  // the stale idle connection is dropped, a new one made
  EXPECT_EQ(ask(), 1);
}

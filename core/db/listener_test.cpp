#include "core/db/listener.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

using namespace core;
using namespace std::chrono_literals;
using core::testing::eventually;

namespace {

// What the callbacks saw (they run on an I/O thread).
struct Seen {
  std::mutex mutex;
  std::vector<std::string> payloads;
  int connects = 0;
  int losses = 0;

  std::function<void(const std::string&)> on_notify() {
    return [this](const std::string& payload) {
      std::lock_guard lock(mutex);
      payloads.push_back(payload);
    };
  }
  std::function<void()> on_connected() {
    return [this] {
      std::lock_guard lock(mutex);
      ++connects;
    };
  }
  std::function<void()> on_lost() {
    return [this] {
      std::lock_guard lock(mutex);
      ++losses;
    };
  }
  int lost() {
    std::lock_guard lock(mutex);
    return losses;
  }
  std::vector<std::string> received() {
    std::lock_guard lock(mutex);
    return payloads;
  }
  int connected() {
    std::lock_guard lock(mutex);
    return connects;
  }
};

// An io_context run by one thread without a work guard: run() returns only once nothing is left
// pending on it, which is what Listener::stop() promises.
struct BareIo {
  boost::asio::io_context io;
  std::future<void> running;

  void run() {
    running = std::async(std::launch::async, [this] { io.run(); });
  }
  // Whether run() returned by itself; if not, stops the context so the test fails instead of hanging.
  bool ends_by_itself() {
    if (running.wait_for(10s) == std::future_status::ready) return true;
    io.stop();
    return false;
  }
};

// Accepts connections and closes them at once, counting them: a database that lets no one in.
struct ClosingServer {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor{io, {boost::asio::ip::make_address("127.0.0.1"), 0}};
  std::atomic<int> attempts{0};
  std::thread thread;

  ClosingServer() {
    accept();
    thread = std::thread([this] { io.run(); });
  }
  ~ClosingServer() {
    io.stop();
    thread.join();
  }
  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket) {
      if (ec) return;
      ++attempts;
      accept();
    });
  }
  std::string url() const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/x";
  }
};

struct ListenerTest : ::testing::Test {
  core::testing::TestDatabase database;
  Seen seen;

  db::ListenerOptions options() {
    return {.conninfo = database.url(), .channel = "Job Queue", .retry_min = 20ms, .retry_max = 100ms};
  }
  void sql(const std::string& statement) { core::testing::sql(database.url(), statement); }
  // Terminates the backends of this test's database that last ran LISTEN; returns how many.
  std::string terminate_listeners() {
    return core::testing::sql(database.url(), R"sql(
      SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%')sql");
  }
};

}  // namespace

TEST_F(ListenerTest, DeliversNotificationsOnItsChannelOnly) {
  core::testing::IoThreads io;
  db::Listener listener(io.executor(), options(), seen.on_notify(), seen.on_connected());
  listener.start();
  ASSERT_TRUE(eventually([&] { return seen.connected() == 1; }));

  // One transaction: delivered together at commit, in order. Channel names are exact ("job queue" differs).
  sql("SELECT pg_notify('job queue', 'wrong case'), pg_notify('other', 'nope');"
      "SELECT pg_notify('Job Queue', 'first'); SELECT pg_notify('Job Queue', 'it''s ü')");
  sql("SELECT pg_notify('Job Queue', 'later')");
  ASSERT_TRUE(eventually([&] { return seen.received().size() >= 3; }));
  EXPECT_EQ(seen.received(), (std::vector<std::string>{"first", "it's ü", "later"}));
  EXPECT_EQ(seen.connected(), 1);
}

TEST_F(ListenerTest, ReconnectsAfterItsBackendIsTerminated) {
  core::testing::IoThreads io;
  db::Listener listener(io.executor(), options(), seen.on_notify(), seen.on_connected(), seen.on_lost());
  listener.start();
  ASSERT_TRUE(eventually([&] { return seen.connected() == 1; }));
  EXPECT_EQ(seen.lost(), 0);

  EXPECT_EQ(terminate_listeners(), "1");
  ASSERT_TRUE(eventually([&] { return seen.connected() == 2; }));
  EXPECT_EQ(seen.lost(), 1);  // told before the reconnect
  sql("SELECT pg_notify('Job Queue', 'after reconnect')");
  ASSERT_TRUE(eventually([&] { return !seen.received().empty(); }));
  EXPECT_EQ(seen.received(), (std::vector<std::string>{"after reconnect"}));
}

TEST_F(ListenerTest, StopWhileWaitingEndsTheLoop) {
  BareIo bare;
  db::Listener listener(bare.io.get_executor(), options(), seen.on_notify(), seen.on_connected());
  listener.start();
  bare.run();
  ASSERT_TRUE(eventually([&] { return seen.connected() == 1; }));

  listener.stop();
  listener.stop();  // idempotent
  EXPECT_TRUE(bare.ends_by_itself());
  EXPECT_TRUE(eventually([&] { return terminate_listeners() == "0"; }));  // the session is gone
  sql("SELECT pg_notify('Job Queue', 'too late')");
  EXPECT_TRUE(seen.received().empty());
  EXPECT_EQ(seen.connected(), 1);
}

TEST_F(ListenerTest, ACallbackMayStopTheListener) {
  BareIo bare;
  db::Listener* self = nullptr;
  db::Listener listener(bare.io.get_executor(), options(), seen.on_notify(), [&] { self->stop(); });
  self = &listener;
  listener.start();
  bare.run();
  EXPECT_TRUE(bare.ends_by_itself());
}

TEST(Listener, KeepsRetryingAnUnreachableServerUntilStopped) {
  ClosingServer server;
  Seen seen;
  BareIo bare;
  db::Listener listener(bare.io.get_executor(),
                        {.conninfo = server.url(), .channel = "jobs", .retry_min = 10ms, .retry_max = 40ms},
                        seen.on_notify(), seen.on_connected());
  listener.start();
  bare.run();
  EXPECT_TRUE(eventually([&] { return server.attempts >= 3; }));

  listener.stop();  // most likely during a backoff wait, which it cancels
  EXPECT_TRUE(bare.ends_by_itself());
  EXPECT_EQ(seen.connected(), 0);
}

TEST(Listener, StopCancelsTheWaitBeforeTheNextAttempt) {
  Seen seen;
  BareIo bare;
  const std::string refused = "postgresql://postgres@127.0.0.1:1/x";
  db::Listener listener(bare.io.get_executor(),
                        {.conninfo = refused, .channel = "jobs", .retry_min = 1h, .retry_max = 1h}, seen.on_notify(),
                        seen.on_connected());
  listener.start();
  bare.run();
  std::this_thread::sleep_for(200ms);  // time for the first attempt to be refused: the wait for the next has begun
  listener.stop();
  EXPECT_TRUE(bare.ends_by_itself());  // not an hour later
  EXPECT_EQ(seen.connected(), 0);
}

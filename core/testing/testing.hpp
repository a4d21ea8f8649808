#pragma once
// Test helpers over real PostgreSQL and real sockets.
//
// TEST_DATABASE_URL (set by scripts/test) names a superuser connection to the test cluster.
#include "core/app/service.hpp"
#include "core/db/migrate.hpp"
#include "core/openapi/conformance.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace core::db {
class BlockingConnection;  // core/db/blocking.hpp
}  // namespace core::db

namespace core::testing {

// The repository's root: $PROJECT_ROOT, else the source tree this was built from.
std::string project_root();

// The admin URL, with the database part replaced by `database`.
std::string database_url(std::string_view database = "postgres");

// Runs one statement on a blocking connection (for test set-up and assertions); returns the
// first column of the first row, or "" when there is none. Throws on error.
std::string sql(const std::string& url, const std::string& statement);

// One blocking connection kept open, for a test that looks many times (a poll of
// pg_stat_activity: a connection for each look starts a backend each time, which on a loaded
// machine can take longer than what it looks for) or holds a lock across statements. Throws when
// it cannot connect.
class Session {
 public:
  explicit Session(const std::string& url);
  ~Session();
  // As sql(url, statement) above, on this connection.
  std::string sql(const std::string& statement);

 private:
  std::unique_ptr<db::BlockingConnection> conn_;
};

// A fresh database for one test, cloned from a template migrated once per migration set (the
// template is built under an advisory lock, so parallel test processes share it). Dropped on
// destruction.
class TestDatabase {
 public:
  explicit TestDatabase(std::span<const db::Migration> migrations = {});
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  const std::string& name() const { return name_; }
  const std::string& url() const { return url_; }

 private:
  std::string name_;
  std::string url_;
};

// A PostgreSQL cluster of the test's own (initdb + start on a free port, via scripts/pg-cluster),
// for tests that stop or restart the server. Removed on destruction.
class TempCluster {
 public:
  TempCluster();
  ~TempCluster();
  void start();
  void stop(std::string_view mode = "fast");
  // Stops every process of the server with SIGSTOP (a database that hangs rather than refuses:
  // connections are accepted by the kernel, nothing answers), and continues them with SIGCONT.
  // Destruction thaws first.
  void freeze();
  void thaw();
  std::string url(std::string_view database = "postgres") const;

 private:
  void signal_all(int signo);
  std::string dir_;
  std::string password_;
  int port_ = 0;
};

// A port on 127.0.0.1 that nothing is bound to now, below the ephemeral range (testing.cpp).
int free_port();

struct HttpResponse {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names lowercased; a repeated header's values joined by '\n'
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
  std::string header(const std::string& name) const;
};

// One keep-alive connection to 127.0.0.1:port, blocking, for tests.
class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port);
  ~HttpClient();

  HttpResponse request(std::string method, std::string target, std::string body = {},
                       std::map<std::string, std::string> headers = {});
  // Sends raw bytes (several pipelined requests, a malformed one ...).
  void send_raw(std::string_view bytes);
  // Reads one response (after send_raw). Throws on timeout or a closed connection.
  HttpResponse read_response();
  // True when the server has closed the connection (reads EOF within the timeout).
  bool closed_by_server(std::chrono::milliseconds wait = std::chrono::milliseconds(2000));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What the tests hold a service's answers to: the OpenAPI document of the service on `port`
// (core/openapi/conformance.hpp). HttpClient checks every answer from a port with a document and
// fails the running test (ADD_FAILURE) on each mismatch; RunningService documents its own port.
// With OPENAPI_RECORD=<directory>, each exchange is also written there as a JSON line (a file
// per process), for scripts/openapi-draft.
void document_port(std::uint16_t port, std::shared_ptr<const openapi::Conformance> document);
void forget_port(std::uint16_t port);

// One request on a fresh connection.
HttpResponse http(std::uint16_t port, std::string method, std::string target, std::string body = {},
                  std::map<std::string, std::string> headers = {});

// `count` requests at once, each on its own thread (`request(i)`, i from 0): each one's answer
// and how long it took, in the order of i. For what requests that come together do, such as
// queueing behind one the database does not answer.
struct TimedResponse {
  HttpResponse response;
  std::chrono::steady_clock::duration took{};
};
std::vector<TimedResponse> at_once(int count, const std::function<HttpResponse(int i)>& request);

// A service running in this process on a free port against `database_url`.
class RunningService {
 public:
  // `clock`: what its schedules wait on (a ManualClock, core/testing/manual_clock.hpp), else the steady clock.
  RunningService(const app::ServiceDefinition& def, const std::string& database_url, config::Environment extra = {},
                 std::shared_ptr<async::Clock> clock = nullptr);
  ~RunningService();
  std::uint16_t port() const { return service_->port(); }
  app::Service& service() { return *service_; }
  HttpResponse get(const std::string& target, std::map<std::string, std::string> headers = {}) {
    return http(port(), "GET", target, {}, std::move(headers));
  }

 private:
  std::unique_ptr<app::Service> service_;
  std::uint16_t documented_port_ = 0;
};

// An io_context on background threads, for tests that drive coroutines directly.
class IoThreads {
 public:
  explicit IoThreads(int threads = 2);
  ~IoThreads();
  boost::asio::any_io_executor executor() { return io_.get_executor(); }
  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return boost::asio::co_spawn(io_, std::move(work), boost::asio::use_future).get();
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
};

// A child process (a service binary), with its stderr collected line by line.
class Process {
 public:
  // `env` is the child's whole environment (PATH is added).
  Process(const std::string& binary, std::vector<std::string> args, std::map<std::string, std::string> env);
  ~Process();  // kills the child if it still runs
  void signal(int signo);
  // The exit code, or nullopt if it did not exit within `limit`.
  std::optional<int> wait_exit(std::chrono::milliseconds limit = std::chrono::seconds(20));
  std::string stderr_text() const;
  // The first JSON log line whose "msg" is `msg`, waiting up to `limit`.
  std::optional<nlohmann::json> wait_for_log(const std::string& msg,
                                             std::chrono::milliseconds limit = std::chrono::seconds(20));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Polls `condition` every 20 ms until it holds or `limit` passes; returns whether it held.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::seconds(10));

// Every row of every table of the database at `url` (its public schema), as text: where a test
// looks when nothing a service stored may hold a value.
std::string everything_stored(const std::string& url);

// This process's stderr (the log sink's lines) from construction until text() (GoogleTest's
// capture: one at a time); the destructor lets go of it when text() was not called.
class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog();
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  std::string text();  // once

 private:
  bool capturing_ = true;
};

// What a service logged, stored and answered while a vendor fake echoed credentials in its errors
// (issue 31, part 4; sandbox/echo.hpp): the check that none of it holds a secret.
struct Said {
  std::string logged;    // its log, captured at debug level
  std::string stored;    // everything_stored()
  std::string answered;  // the bodies of its answers
};
// `logged`, every row of the database at `database_url`, and the statuses and bodies of `answers`.
Said said(std::string logged, const std::string& database_url, const std::vector<HttpResponse>& answers);
// Expects that the fake echoed something, and none of `echoed` or `configured` (the credentials the
// test gave; each at least 8 bytes: shorter ones are not masked) in `said`; no run of `filler_byte`
// longer than a quote keeps (an echoed body of hundreds of kilobytes is cut); no log line over
// 16 KB; and "[redacted]" somewhere: the echo reached the service's words, masked.
void expect_no_secret(const Said& said, const std::vector<std::string>& echoed,
                      const std::vector<std::string>& configured, char filler_byte = 'x');

}  // namespace core::testing

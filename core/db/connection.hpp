#pragma once
// One asynchronous libpq connection driven by Asio: non-blocking connect, prepared statements
// (prepared on first use, cached per connection), bound text parameters, a per-statement timeout.
// A connection is used by one coroutine at a time (the pool guarantees it), or by a Pipeline
// (core/db/pipeline.hpp), which shares it between concurrent statements in libpq's pipeline mode.
#include "core/db/result.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace core::db {

// The passwords a connection string carries (a URL's `postgresql://user:secret@host/db` or the
// keyword form's `password=secret`): as libpq reads it, and as it is written in a URL when that
// differs (percent-encoded). Empty for none, and for a string libpq cannot parse.
std::vector<std::string> conninfo_passwords(const std::string& conninfo);

// One NOTIFY received on a connection that ran LISTEN.
struct Notification {
  std::string channel;
  std::string payload;
};

class Connection {
 public:
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Throws Unavailable when the server cannot be reached or refuses us, Timeout past `timeout`.
  static boost::asio::awaitable<std::unique_ptr<Connection>> open(boost::asio::any_io_executor executor,
                                                                  std::string conninfo,
                                                                  std::chrono::milliseconds timeout);

  // Runs one statement as a prepared statement. Throws Error (server error), Unavailable
  // (connection lost), Timeout (cancelled after `timeout`). The timeout is enforced by whoever
  // calls expire_if_due() periodically: the pool's sweeper. A `grace` other than zero replaces the
  // sweeper's for this statement (an interactive request's shorter one).
  boost::asio::awaitable<Result> execute(std::string_view sql, const std::vector<Param>& params,
                                         std::chrono::milliseconds timeout, std::chrono::milliseconds grace = {});

  // Runs text through the simple-query protocol: several statements, no parameters (BEGIN,
  // COMMIT, SET ...). Returns the last result.
  boost::asio::awaitable<Result> execute_simple(std::string_view sql, std::chrono::milliseconds timeout,
                                                std::chrono::milliseconds grace = {});

  // From any thread: if the running statement is past its deadline, asks the server to cancel
  // it; if it is still running `grace` (or the statement's own) after that, severs the socket. A connection that had a
  // cancel sent is not reused (a late cancel could otherwise hit its next statement).
  void expire_if_due(std::chrono::steady_clock::time_point now, std::chrono::milliseconds grace);

  // Quoting for statements that take no parameters (CREATE ROLE, GRANT ...), by libpq with this
  // connection's encoding. Throw Error when libpq refuses the input (an invalid multibyte string).
  std::string escape_identifier(std::string_view name) const;
  std::string escape_literal(std::string_view text) const;
  // A SCRAM-SHA-256 verifier for `role`'s password, made here by libpq: only the verifier is sent
  // to the server, so the plaintext never reaches it or its log.
  std::string scram_verifier(const std::string& password, const std::string& role) const;

  // For a connection that ran LISTEN: the notifications already received, or, when there are
  // none, the next ones to arrive (waits as long as it takes). Throws Unavailable when the
  // connection is lost or severed.
  boost::asio::awaitable<std::vector<Notification>> notifications();

  // From any thread: shuts the socket down, so a wait on it (notifications(), a statement) ends
  // at once with Unavailable. The connection is unusable afterwards.
  void sever();

  bool broken() const;
  bool in_transaction() const;
  // For an idle connection: false when the server has closed it or sent something unexpected
  // (as it does when shutting down), so the pool drops it instead of failing a request.
  bool idle_and_healthy();

 private:
  friend class Pipeline;  // drives the same libpq connection in pipeline mode

  Connection(boost::asio::any_io_executor executor, PGconn* conn);
  enum class Wait { read, write };
  boost::asio::awaitable<void> wait(Wait what);
  boost::asio::awaitable<void> flush();
  boost::asio::awaitable<Result> collect(std::string_view what);
  boost::asio::awaitable<Result> run(std::string_view what, std::chrono::milliseconds timeout,
                                     std::chrono::milliseconds grace, const std::function<bool()>& send);
  void begin_statement(std::chrono::milliseconds timeout, std::chrono::milliseconds grace);
  bool end_statement();  // returns whether a cancel was sent
  void rebind_socket();
  std::string next_statement_name() { return "s" + std::to_string(++statements_named_); }
  void request_cancel();  // from any thread: asks the server to cancel what it is running

  boost::asio::any_io_executor executor_;
  PGconn* conn_;
  std::shared_ptr<PGcancel> cancel_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> socket_;  // a dup of libpq's, waited on for reading only
  int socket_fd_ = -1;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> prepared_;  // sql → name
  std::size_t statements_named_ = 0;
  bool lost_ = false;

  // The running statement, as the sweeper sees it.
  struct Activity {
    std::mutex mutex;
    std::chrono::steady_clock::time_point deadline{};  // epoch: no statement running
    std::chrono::steady_clock::time_point cancelled_at{};
    std::chrono::milliseconds grace{};  // zero: the sweeper's
    bool cancel_sent = false;
    bool severed = false;
  };
  Activity activity_;
};

}  // namespace core::db

#include "core/db/connection.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

namespace core::db {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

std::string error_text(PGconn* c) {
  std::string msg = PQerrorMessage(c);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

// Runs `action` once if the deadline passes before the watchdog is destroyed. The action runs
// under a mutex that the destructor also takes, so after destruction it can no longer be running
// or start (it touches the connection's socket, which the caller may close next).
class Watchdog {
 public:
  Watchdog(asio::any_io_executor ex, std::chrono::milliseconds after, std::function<void()> action)
      : state_(std::make_shared<State>()), timer_(std::move(ex)) {
    state_->action = std::move(action);
    timer_.expires_after(after);
    timer_.async_wait([s = state_](boost::system::error_code ec) {
      if (ec) return;
      std::lock_guard lock(s->mutex);
      if (!s->armed) return;
      s->fired = true;
      s->action();
    });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(state_->mutex);
      state_->armed = false;
    }
    timer_.cancel();
  }
  bool fired() const {
    std::lock_guard lock(state_->mutex);
    return state_->fired;
  }

 private:
  struct State {
    std::mutex mutex;
    bool armed = true;
    bool fired = false;
    std::function<void()> action;
  };
  std::shared_ptr<State> state_;
  asio::steady_timer timer_;
};

// Makes a blocked wait on the socket return at once: the next libpq call then sees a closed
// connection. The file descriptor stays open (libpq owns it).
void shutdown_socket(int fd) {
  if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

}  // namespace

// From a short-lived thread: PQcancel opens its own connection and blocks, which must not happen
// on an I/O thread.
void Connection::request_cancel() {
  if (!cancel_) return;
  std::thread([cancel = cancel_] {
    char err[256];
    PQcancel(cancel.get(), err, sizeof err);
  }).detach();
}

Connection::Connection(asio::any_io_executor executor, PGconn* conn) : executor_(std::move(executor)), conn_(conn) {}

Connection::~Connection() {
  if (socket_) socket_->close();  // our dup of the descriptor
  if (conn_) PQfinish(conn_);
}

void Connection::rebind_socket() {
  const int fd = PQsocket(conn_);
  if (fd == socket_fd_ && socket_) return;
  if (socket_) socket_->close();
  socket_.reset();
  socket_fd_ = fd;
  if (fd < 0) return;
  // Asio owns (and closes) the descriptor it holds, and libpq owns its own: a dup serves both.
  socket_ = std::make_unique<asio::posix::stream_descriptor>(executor_, ::dup(fd));
}

awaitable<void> Connection::wait(Wait what) {
  if (!socket_) throw Unavailable("database connection has no socket");
  boost::system::error_code ec;
  if (what == Wait::read) {
    co_await socket_->async_wait(asio::posix::descriptor_base::wait_read, asio::redirect_error(use_awaitable, ec));
  } else {
    // Asio's epoll reactor keeps EPOLLOUT in a descriptor's registration once it has waited for
    // writing, and re-arms every registered event with each later wait. Were the connect's waits
    // for writing made on socket_, each wait for an answer after them would also end in a
    // wake-up for writability that nobody asked for. So a wait for writing (connecting, or a
    // full send buffer: both rare) has a descriptor of its own, closed when it ends.
    const int fd = ::dup(socket_fd_);
    if (fd < 0) throw Unavailable("database socket: " + std::string(std::strerror(errno)));
    asio::posix::stream_descriptor writable(socket_->get_executor(), fd);
    co_await writable.async_wait(asio::posix::descriptor_base::wait_write, asio::redirect_error(use_awaitable, ec));
  }
  if (ec && ec != asio::error::operation_aborted) throw Unavailable("database socket: " + ec.message());
}

awaitable<std::unique_ptr<Connection>> Connection::open(asio::any_io_executor executor, std::string conninfo,
                                                        std::chrono::milliseconds timeout) {
  PGconn* raw = PQconnectStart(conninfo.c_str());
  if (!raw) throw Unavailable("out of memory creating a database connection");
  std::unique_ptr<Connection> c(new Connection(executor, raw));
  if (PQstatus(raw) == CONNECTION_BAD) throw Unavailable("cannot connect to the database: " + error_text(raw));
  PQsetnonblocking(raw, 1);

  // libpq may switch sockets while it tries addresses; the watchdog severs the current one.
  auto fd = std::make_shared<std::atomic<int>>(PQsocket(raw));
  Watchdog deadline(executor, timeout, [fd] { shutdown_socket(fd->load()); });
  auto status = PGRES_POLLING_WRITING;
  while (status != PGRES_POLLING_OK) {
    if (status == PGRES_POLLING_FAILED) {
      if (deadline.fired()) throw Timeout("connecting to the database timed out");
      throw Unavailable("cannot connect to the database: " + error_text(raw));
    }
    c->rebind_socket();
    fd->store(c->socket_fd_);
    co_await c->wait(status == PGRES_POLLING_READING ? Wait::read : Wait::write);
    status = PQconnectPoll(raw);
  }
  c->rebind_socket();
  c->cancel_ = std::shared_ptr<PGcancel>(PQgetCancel(raw), PQfreeCancel);
  // Timestamps leave the database as ISO 8601 in UTC ("...+00:00") whatever the server's zone;
  // a user's day boundaries are computed explicitly with AT TIME ZONE.
  co_await c->execute_simple("SET TimeZone = 'UTC'", timeout);
  co_return c;
}

namespace {
// Takes ownership of a string libpq allocated.
std::string take_pq_string(char* text, PGconn* conn, std::string_view what) {
  if (!text) throw Error("22021", std::string(what) + ": " + PQerrorMessage(conn));
  std::string out(text);
  PQfreemem(text);
  return out;
}
}  // namespace

std::vector<std::string> conninfo_passwords(const std::string& conninfo) {
  std::vector<std::string> out;
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (error) PQfreemem(error);
  if (!options) return out;
  for (const PQconninfoOption* o = options; o->keyword; ++o)
    if (std::string_view(o->keyword) == "password" && o->val && *o->val) out.emplace_back(o->val);
  PQconninfoFree(options);
  // The URL's own spelling: between the user's ':' and the '@' of its authority.
  for (const std::string_view scheme : {"postgresql://", "postgres://"}) {
    if (!conninfo.starts_with(scheme)) continue;
    const auto authority = conninfo.substr(scheme.size(), conninfo.find_first_of("/?", scheme.size()) - scheme.size());
    const auto at = authority.rfind('@');
    const auto colon = authority.find(':');
    if (at != std::string::npos && colon < at && colon + 1 < at) {
      std::string written = authority.substr(colon + 1, at - colon - 1);
      if (std::find(out.begin(), out.end(), written) == out.end()) out.push_back(std::move(written));
    }
  }
  return out;
}

std::string Connection::escape_identifier(std::string_view name) const {
  return take_pq_string(PQescapeIdentifier(conn_, name.data(), name.size()), conn_, "cannot quote identifier");
}

std::string Connection::escape_literal(std::string_view text) const {
  return take_pq_string(PQescapeLiteral(conn_, text.data(), text.size()), conn_, "cannot quote literal");
}

std::string Connection::scram_verifier(const std::string& password, const std::string& role) const {
  // With the algorithm named, libpq does not ask the server for password_encryption: no I/O here.
  return take_pq_string(PQencryptPasswordConn(conn_, password.c_str(), role.c_str(), "scram-sha-256"), conn_,
                        "cannot encrypt password");
}

bool Connection::broken() const { return lost_ || PQstatus(conn_) != CONNECTION_OK; }

bool Connection::in_transaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }

bool Connection::idle_and_healthy() {
  if (broken() || in_transaction()) return false;
  pollfd p{PQsocket(conn_), POLLIN, 0};
  if (::poll(&p, 1, 0) != 0) {
    // An idle connection has nothing to read unless the server is closing it (or sent a
    // notice); either way a fresh connection is the safe choice.
    lost_ = true;
    return false;
  }
  return true;
}

awaitable<void> Connection::flush() {
  for (;;) {
    const int r = PQflush(conn_);
    if (r == 0) co_return;
    if (r < 0) throw Unavailable("sending to the database failed: " + error_text(conn_));
    co_await wait(Wait::write);
  }
}

awaitable<Result> Connection::collect(std::string_view what) {
  Result last;
  std::optional<Error> failure;
  for (;;) {
    while (!PQisBusy(conn_)) {
      PGresult* r = PQgetResult(conn_);
      if (!r) {
        if (failure) throw *failure;
        co_return last;
      }
      const auto st = PQresultStatus(r);
      if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR || st == PGRES_BAD_RESPONSE) {
        const char* code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        std::string message = PQresultErrorMessage(r);
        while (!message.empty() && message.back() == '\n') message.pop_back();
        if (!failure) failure.emplace(code ? code : "", std::string(what) + ": " + message);
        PQclear(r);
      } else {
        last = Result(r);
      }
    }
    co_await wait(Wait::read);
    if (!PQconsumeInput(conn_)) throw Unavailable("database connection lost: " + error_text(conn_));
  }
}

void Connection::begin_statement(std::chrono::milliseconds timeout, std::chrono::milliseconds grace) {
  std::lock_guard lock(activity_.mutex);
  activity_.deadline = std::chrono::steady_clock::now() + timeout;
  activity_.grace = grace;
}

bool Connection::end_statement() {
  std::lock_guard lock(activity_.mutex);
  activity_.deadline = {};
  return activity_.cancel_sent;
}

void Connection::expire_if_due(std::chrono::steady_clock::time_point now, std::chrono::milliseconds grace) {
  std::lock_guard lock(activity_.mutex);
  if (activity_.deadline == std::chrono::steady_clock::time_point{} || now < activity_.deadline) return;
  if (!activity_.cancel_sent) {
    activity_.cancel_sent = true;
    activity_.cancelled_at = now;
    request_cancel();
  } else if (!activity_.severed &&
             now >= activity_.cancelled_at + (activity_.grace.count() ? activity_.grace : grace)) {
    activity_.severed = true;
    shutdown_socket(socket_fd_);  // the server does not answer even a cancel: give up on the connection
  }
}

awaitable<Result> Connection::run(std::string_view what, std::chrono::milliseconds timeout,
                                  std::chrono::milliseconds grace, const std::function<bool()>& send) {
  if (broken()) throw Unavailable("database connection lost");
  begin_statement(timeout, grace);
  std::exception_ptr failure;
  Result result;
  try {
    if (!send()) throw Unavailable("sending to the database failed: " + error_text(conn_));
    co_await flush();
    result = co_await collect(what);
  } catch (...) {
    failure = std::current_exception();
  }
  const bool cancelled = end_statement();
  if (cancelled) lost_ = true;  // the cancel may still arrive: this connection is not reused
  if (failure) {
    const auto timed_out = [&] {
      return Timeout("statement timed out after " + std::to_string(timeout.count()) + " ms");
    };
    try {
      std::rethrow_exception(failure);
    } catch (const Error& e) {
      if (cancelled && e.sqlstate == "57014") throw timed_out();
      throw;
    } catch (const Unavailable&) {
      lost_ = true;
      if (cancelled) throw timed_out();
      throw;
    }
  }
  co_return result;
}

awaitable<Result> Connection::execute(std::string_view sql, const std::vector<Param>& params,
                                      std::chrono::milliseconds timeout, std::chrono::milliseconds grace) {
  const int n = static_cast<int>(params.size());
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    const std::string name = next_statement_name();
    const std::string text(sql);
    co_await run("prepare", timeout, grace,
                 [&] { return PQsendPrepare(conn_, name.c_str(), text.c_str(), n, nullptr) == 1; });
    it = prepared_.emplace(text, name).first;
  }
  std::vector<const char*> values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) values[i] = params[i] ? params[i]->c_str() : nullptr;
  const std::string& name = it->second;
  co_return co_await run("query", timeout, grace, [&] {
    return PQsendQueryPrepared(conn_, name.c_str(), n, values.data(), nullptr, nullptr, 0) == 1;
  });
}

awaitable<std::vector<Notification>> Connection::notifications() {
  std::vector<Notification> out;
  for (;;) {
    if (broken()) throw Unavailable("database connection lost");
    while (PGnotify* n = PQnotifies(conn_)) {
      Notification note{n->relname, n->extra};
      PQfreemem(n);
      out.push_back(std::move(note));
    }
    if (!out.empty()) co_return out;
    co_await wait(Wait::read);
    if (!PQconsumeInput(conn_)) {
      lost_ = true;
      throw Unavailable("database connection lost: " + error_text(conn_));
    }
  }
}

void Connection::sever() {
  std::lock_guard lock(activity_.mutex);  // as expire_if_due(), which may sever too
  activity_.severed = true;
  shutdown_socket(socket_fd_);
}

awaitable<Result> Connection::execute_simple(std::string_view sql, std::chrono::milliseconds timeout,
                                             std::chrono::milliseconds grace) {
  const std::string text(sql);
  co_return co_await run("statement", timeout, grace, [&] { return PQsendQuery(conn_, text.c_str()) == 1; });
}

}  // namespace core::db

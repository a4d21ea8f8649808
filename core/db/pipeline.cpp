#include "core/db/pipeline.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace core::db {

namespace asio = boost::asio;
using asio::awaitable;

struct Pipeline::Waiter {
  virtual ~Waiter() = default;
  // Resumes the caller on its own executor; nothing and no failure means "send it again".
  virtual void complete(std::exception_ptr failure, std::optional<Result> rows) = 0;
};

struct Pipeline::Statement {
  std::uint64_t seq = 0;
  std::string name;  // of the prepared statement
  std::string sql;   // kept only by the statement that prepares it
  bool prepares = false;
  int results = 0;                // results received so far
  Clock::time_point deadline{};   // once at the head: its timeout, or its caller's deadline if earlier
  Clock::time_point answer_by{};  // the caller's deadline (the epoch: none)
  Clock::time_point sent_at{};    // when it was sent
  Result rows;
  std::optional<Error> error;
  // The outcome, decided at the statement's sync point (or when the connection is lost).
  std::exception_ptr failure;
  bool again = false;
  std::unique_ptr<Waiter> waiter;  // null once the caller was answered at its deadline
};

namespace {

template <class Handler>
class WaiterFor final : public Pipeline::Waiter {
 public:
  explicit WaiterFor(Handler handler) : handler_(std::move(handler)) {}
  void complete(std::exception_ptr failure, std::optional<Result> rows) override {
    auto executor = asio::get_associated_executor(handler_);
    asio::post(executor, [h = std::move(handler_), failure, rows = std::move(rows)]() mutable {
      std::move(h)(failure, std::move(rows));
    });
  }

 private:
  Handler handler_;
};

std::string error_text_of(PGconn* c) {
  std::string msg = PQerrorMessage(c);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

Error error_of(const PGresult* r, std::string_view what) {
  const char* code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  std::string message = PQresultErrorMessage(r);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return Error(code ? code : "", std::string(what) + ": " + message);
}

}  // namespace

Pipeline::Pipeline(asio::any_io_executor executor, std::unique_ptr<Connection> conn, std::chrono::milliseconds timeout,
                   OnClosed on_closed)
    : strand_(async::make_strand(executor)),
      conn_(std::move(conn)),
      timeout_(timeout),
      on_closed_(std::move(on_closed)) {
  // An idle connection enters pipeline mode without I/O. Should it refuse, the first
  // PQpipelineSync fails and the statement finds the connection lost.
  PQenterPipelineMode(conn_->conn_);
}

Pipeline::~Pipeline() = default;

awaitable<std::optional<Result>> Pipeline::execute(std::string_view sql, const std::vector<Param>& params,
                                                   Clock::time_point answer_by) {
  co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&,
                                          void(std::exception_ptr, std::optional<Result>)>(
      [this, sql, &params, answer_by](auto handler) {
        submit(sql, params, answer_by, std::make_unique<WaiterFor<decltype(handler)>>(std::move(handler)));
      },
      asio::use_awaitable);
}

void Pipeline::submit(std::string_view sql, const std::vector<Param>& params, Clock::time_point answer_by,
                      std::unique_ptr<Waiter> waiter) {
  auto st = std::make_unique<Statement>();
  st->answer_by = answer_by;
  st->waiter = std::move(waiter);
  std::unique_lock lock(mutex_);
  if (closed_ || !accepting()) {
    lock.unlock();
    st->again = true;
    finish(std::move(st));
    return;
  }
  PGconn* pg = conn_->conn_;
  const int n = static_cast<int>(params.size());
  bool sent = true;
  if (auto it = conn_->prepared_.find(sql); it != conn_->prepared_.end()) {
    st->name = it->second;
  } else {
    st->prepares = true;
    st->sql = std::string(sql);
    st->name = conn_->next_statement_name();
    sent = PQsendPrepare(pg, st->name.c_str(), st->sql.c_str(), n, nullptr) == 1;
    if (sent) conn_->prepared_.emplace(st->sql, st->name);
  }
  std::vector<const char*> values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) values[i] = params[i] ? params[i]->c_str() : nullptr;
  sent = sent && PQsendQueryPrepared(pg, st->name.c_str(), n, values.data(), nullptr, nullptr, 0) == 1 &&
         PQpipelineSync(pg) == 1;  // its own sync point; in libpq 15 this also flushes
  if (!sent) {
    // libpq refused: the connection is unusable. The reader fails what is in flight, this too.
    broken_ = true;
    conn_->lost_ = true;
    stop_accepting();
    conn_->sever();
  }
  st->seq = next_seq_++;
  st->sent_at = Clock::now();
  if (sent_.empty()) {
    head_runs(*st, st->sent_at);
    oldest_sent_.store(st->sent_at.time_since_epoch().count(), std::memory_order_relaxed);
  }
  sent_.push_back(std::move(st));
  load_.store(sent_.size(), std::memory_order_relaxed);
  const bool start_reader = !reading_;
  reading_ = true;
  // Whatever the sync's flush could not send without blocking (a large statement, a full socket).
  const bool start_flusher = sent && !flushing_ && PQflush(pg) == 1;
  if (start_flusher) flushing_ = true;
  lock.unlock();
  if (start_reader) asio::co_spawn(strand_, read(shared_from_this()), asio::detached);
  if (start_flusher) asio::co_spawn(strand_, flush(shared_from_this()), asio::detached);
}

void Pipeline::take_results(std::vector<std::unique_ptr<Statement>>& done) {
  PGconn* pg = conn_->conn_;
  int nulls = 0;  // libpq ends each statement's results with a null; two in a row: nothing more yet
  while (!sent_.empty() && !PQisBusy(pg)) {
    PGresult* r = PQgetResult(pg);
    if (!r) {
      if (++nulls > 1) break;
      continue;
    }
    nulls = 0;
    Statement& head = *sent_.front();
    const auto status = PQresultStatus(r);
    if (status == PGRES_PIPELINE_SYNC) {
      PQclear(r);
      auto st = std::move(sent_.front());
      sent_.pop_front();
      decide(*st);
      done.push_back(std::move(st));
      if (!sent_.empty()) {
        head_runs(*sent_.front(), Clock::now());
        oldest_sent_.store(sent_.front()->sent_at.time_since_epoch().count(), std::memory_order_relaxed);
      }
      continue;
    }
    const std::string_view what = head.prepares && head.results == 0 ? "prepare" : "query";
    ++head.results;
    if (status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR || status == PGRES_BAD_RESPONSE) {
      if (!head.error) head.error.emplace(error_of(r, what));
      PQclear(r);
    } else if (status == PGRES_PIPELINE_ABORTED) {
      PQclear(r);  // the prepare before it failed; its error is the statement's
    } else {
      head.rows = Result(r);
    }
  }
  load_.store(sent_.size(), std::memory_order_relaxed);
}

void Pipeline::decide(Statement& st) {
  if (!st.error) return;
  const Error& e = *st.error;
  if (e.sqlstate == "57014" && cancel_target_ != 0) {  // our cancel, meant for the head
    if (st.seq == cancel_target_) {
      st.failure = std::make_exception_ptr(timed_out());
    } else {
      st.again = true;  // a late cancel hit a neighbour, which was rolled back: send it again
    }
    return;
  }
  if (e.sqlstate == "26000") {  // sent behind a prepare that failed: that prepare's error
    if (auto f = failed_prepares_.find(st.name); f != failed_prepares_.end()) {
      st.failure = std::make_exception_ptr(f->second);
      return;
    }
  }
  if (st.prepares) {  // prepared again on next use (the error may have been the prepare's)
    conn_->prepared_.erase(st.sql);
    failed_prepares_.emplace(st.name, e);
  }
  st.failure = std::make_exception_ptr(e);
}

Timeout Pipeline::timed_out() const {
  return Timeout("statement timed out after " + std::to_string(timeout_.count()) + " ms");
}

void Pipeline::fail_all(const std::string& why, std::vector<std::unique_ptr<Statement>>& done) {
  conn_->lost_ = true;
  stop_accepting();
  for (auto& st : sent_) {
    st->failure =
        st->seq == cancel_target_ ? std::make_exception_ptr(timed_out()) : std::make_exception_ptr(Unavailable(why));
    done.push_back(std::move(st));
  }
  sent_.clear();
  load_.store(0, std::memory_order_relaxed);
}

void Pipeline::finish(std::unique_ptr<Statement> st) {
  if (!st->waiter) return;  // answered at its deadline: nobody waits for this outcome
  std::optional<Result> rows;
  if (!st->failure && !st->again) rows.emplace(std::move(st->rows));
  st->waiter->complete(st->failure, std::move(rows));
}

void Pipeline::head_runs(Statement& st, Clock::time_point now) {
  st.deadline = now + timeout_;
  if (st.answer_by != Clock::time_point{}) st.deadline = std::min(st.deadline, st.answer_by);
  head_since_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
}

bool Pipeline::busy_longer_than(const std::atomic<Clock::rep>& since, Clock::time_point now,
                                std::chrono::milliseconds after) const {
  if (load() == 0) return false;
  return now - Clock::time_point{Clock::duration(since.load(std::memory_order_relaxed))} > after;
}

bool Pipeline::stalled(Clock::time_point now, std::chrono::milliseconds after) const {
  return busy_longer_than(head_since_, now, after);
}

bool Pipeline::backed_up(Clock::time_point now, std::chrono::milliseconds after) const {
  return busy_longer_than(oldest_sent_, now, after);
}

void Pipeline::stop_accepting() { accepting_.store(false, std::memory_order_relaxed); }

bool Pipeline::close_if_idle() {
  if (closed_ || !sent_.empty() || reading_ || flushing_) return false;
  closed_ = true;
  stop_accepting();
  PGconn* pg = conn_->conn_;
  if (!conn_->broken() && PQpipelineStatus(pg) != PQ_PIPELINE_OFF && PQexitPipelineMode(pg) != 1) conn_->lost_ = true;
  return true;
}

void Pipeline::hand_back() {
  auto on_closed = std::move(on_closed_);
  on_closed(*this, std::move(conn_));
}

awaitable<void> Pipeline::read(std::shared_ptr<Pipeline> self) {
  std::vector<std::unique_ptr<Statement>> done;
  for (;;) {
    bool close = false;
    bool stop = false;
    {
      std::lock_guard lock(self->mutex_);
      self->take_results(done);
      if (self->sent_.empty()) {
        self->reading_ = false;
        stop = true;
        close = self->close_if_idle();
      }
    }
    if (close) self->hand_back();  // first: a caller resumed next finds the connection back in the pool
    for (auto& st : done) self->finish(std::move(st));
    done.clear();
    if (stop) co_return;

    bool lost = false;
    try {
      co_await self->conn_->wait(Connection::Wait::read);
    } catch (const Unavailable&) {
      lost = true;
    }
    std::lock_guard lock(self->mutex_);
    PGconn* pg = self->conn_->conn_;
    // Severed (by us or after a failed send): no answer can come, whatever the socket says.
    if (lost || self->broken_ || self->severed_ || !PQconsumeInput(pg))
      self->fail_all("database connection lost: " + error_text_of(pg), done);
  }
}

awaitable<void> Pipeline::flush(std::shared_ptr<Pipeline> self) {
  std::vector<std::unique_ptr<Statement>> done;
  for (;;) {
    bool more = false;
    bool close = false;
    {
      std::lock_guard lock(self->mutex_);
      PGconn* pg = self->conn_->conn_;
      const int r = self->sent_.empty() ? 0 : PQflush(pg);
      if (r < 0) {
        self->broken_ = true;
        self->fail_all("sending to the database failed: " + error_text_of(pg), done);
        self->conn_->sever();  // so that the reader's wait ends too
      }
      self->take_results(done);  // PQflush reads what arrives while it cannot write
      more = r == 1;
      if (!more) {
        self->flushing_ = false;
        close = self->close_if_idle();
      }
    }
    if (close) self->hand_back();
    for (auto& st : done) self->finish(std::move(st));
    done.clear();
    if (!more) co_return;
    try {
      co_await self->conn_->wait(Connection::Wait::write);
    } catch (const Unavailable&) {
      // the next PQflush fails and says why
    }
  }
}

void Pipeline::expire_if_due(Clock::time_point now, std::chrono::milliseconds grace) {
  std::lock_guard lock(mutex_);
  if (sent_.empty() || severed_) return;
  for (auto& st : sent_)
    if (st->waiter && st->answer_by != Clock::time_point{} && now >= st->answer_by) {
      st->waiter->complete(std::make_exception_ptr(request_bound_passed()), std::nullopt);
      st->waiter.reset();
    }
  const Statement& head = *sent_.front();
  if (now < head.deadline) return;
  if (head.seq != cancel_target_) {
    cancel_target_ = head.seq;
    cancelled_at_ = now;
    stop_accepting();
    conn_->lost_ = true;  // a late cancel could hit a later statement: the connection is not reused
    conn_->request_cancel();
  } else if (now >= cancelled_at_ + grace) {
    severed_ = true;
    conn_->sever();  // the server does not answer even a cancel: give up on the connection
  }
}

}  // namespace core::db

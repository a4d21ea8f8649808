#pragma once
// One pooled connection in libpq's pipeline mode, shared by concurrent single statements
// (Pool::query outside a transaction), so that they share round trips and wake-ups: the server
// works through the statements queued on its socket without sleeping between them, and one
// wake-up of the reader hands back every result that has arrived.
//
//   if (auto rows = co_await pipeline->execute(sql, params)) use(*rows);
//   else /* not run here: the pool picks a pipeline again */;
//
// How it works:
// - execute() sends its statement at once, from the caller's thread, under the pipeline's
//   mutex: the prepare on the statement's first use on this connection, then Bind/Execute and a
//   sync point of its own (PQpipelineSync). Each statement is therefore its own implicit
//   transaction: an error aborts its own segment only, and its neighbours go on.
// - One reader coroutine, on the pipeline's strand, runs while statements are in flight. Each
//   time the socket is readable it takes every result that has arrived and completes the waiting
//   callers in the order their statements were sent (a statement's results end at its sync).
// - When the last statement in flight has its result, the pipeline closes: the connection leaves
//   pipeline mode and goes back to the pool (`on_closed`). A closed pipeline refuses statements
//   (execute() returns nothing) and the caller picks again.
// - Timeouts: the server runs a pipeline's statements in order, so the one at the head is the one
//   running; its `timeout` starts when it reaches the head. The pool's sweeper calls
//   expire_if_due(): past the deadline the head is cancelled (PQcancel), the pipeline takes no
//   more statements and its connection is not reused. The head then fails with Timeout. A
//   neighbour that the cancel hits instead (it arrived late) was rolled back, being its own
//   transaction: execute() returns nothing for it and the pool sends it again. When the server
//   does not answer even the cancel within `grace`, the socket is severed: the head fails with
//   Timeout, the statements behind it with Unavailable.
// - A request's bound (`answer_by`, from core::async::Bounds through the pool): past it, the
//   caller is answered Timeout at the next sweep, as a statement on a connection of its own is,
//   and its statement's result, when it comes, is dropped. A head whose caller has been answered
//   so is cancelled at once, like one past `timeout` (the server would work on for nobody).
// - A lost connection (the server restarting) fails every statement in flight with Unavailable;
//   the pool drops the connection and the next statement gets a fresh one.
// - A prepare that fails fails its statement with the server's error; statements sent behind it
//   under the same name get that error too (not "prepared statement does not exist").
#include "core/async/bounded_executor.hpp"
#include "core/db/connection.hpp"

#include <atomic>
#include <deque>
#include <functional>
#include <optional>

namespace core::db {

class Pipeline : public std::enable_shared_from_this<Pipeline> {
 public:
  // Called once, from the reader, when the pipeline has closed; the connection is out of pipeline
  // mode, or marked broken when it must not be reused.
  using OnClosed = std::function<void(Pipeline&, std::unique_ptr<Connection>)>;

  Pipeline(boost::asio::any_io_executor executor, std::unique_ptr<Connection> conn, std::chrono::milliseconds timeout,
           OnClosed on_closed);
  ~Pipeline();

  // Runs one statement. Throws Error, Unavailable or Timeout as Connection::execute does;
  // returns nothing when the statement was not run here (see above): send it again.
  // `answer_by`: the caller's deadline (the epoch: none). The caller keeps `sql` and `params`
  // alive until it returns (Pool::execute's frame does).
  boost::asio::awaitable<std::optional<Result>> execute(std::string_view sql, const std::vector<Param>& params,
                                                        std::chrono::steady_clock::time_point answer_by = {});

  // Statements sent and not yet answered; whether execute() may be called. Read without a lock,
  // to choose a pipeline: execute() itself decides under the mutex.
  std::size_t load() const { return load_.load(std::memory_order_relaxed); }
  bool accepting() const { return accepting_.load(std::memory_order_relaxed); }
  // Whether the statement at the head has run longer than `after`: a slow one, which those sent
  // behind it wait for (the pool sends new statements elsewhere).
  bool stalled(std::chrono::steady_clock::time_point now, std::chrono::milliseconds after) const;
  // Whether the oldest statement in flight was sent longer than `after` ago: the server is not
  // keeping up with this pipeline (a backlog of statements, or a slow one at the head).
  bool backed_up(std::chrono::steady_clock::time_point now, std::chrono::milliseconds after) const;

  // From any thread (the pool's sweeper): cancels the head statement past its deadline; severs
  // the socket when the server has not ended it `grace` after the cancel.
  void expire_if_due(std::chrono::steady_clock::time_point now, std::chrono::milliseconds grace);

  // Type-erased completion of one caller (defined in pipeline.cpp).
  struct Waiter;

 private:
  struct Statement;
  using Clock = std::chrono::steady_clock;

  void submit(std::string_view sql, const std::vector<Param>& params, Clock::time_point answer_by,
              std::unique_ptr<Waiter> waiter);
  // Under the mutex: moves every complete statement's outcome into `done`, in order.
  void take_results(std::vector<std::unique_ptr<Statement>>& done);
  void decide(Statement& st);  // under the mutex, at its sync point: its outcome
  // Under the mutex: fails every statement in flight (the connection is gone).
  void fail_all(const std::string& why, std::vector<std::unique_ptr<Statement>>& done);
  void finish(std::unique_ptr<Statement> st);  // outside the mutex: completes its caller
  void stop_accepting();
  void head_runs(Statement& st, Clock::time_point now);  // under the mutex: `st` reached the head
  // Whether statements are in flight and `since` (one of the instants below) is more than `after` ago.
  bool busy_longer_than(const std::atomic<Clock::rep>& since, Clock::time_point now,
                        std::chrono::milliseconds after) const;
  Timeout timed_out() const;
  // Under the mutex: closes when nothing is in flight and neither coroutine runs; then the one
  // that closed it calls hand_back() outside the mutex.
  bool close_if_idle();
  void hand_back();
  static boost::asio::awaitable<void> read(std::shared_ptr<Pipeline> self);
  static boost::asio::awaitable<void> flush(std::shared_ptr<Pipeline> self);

  async::Strand strand_;  // without bounds: the reader serves every caller
  std::unique_ptr<Connection> conn_;
  const std::chrono::milliseconds timeout_;
  OnClosed on_closed_;

  mutable std::mutex mutex_;                     // guards what follows, and every libpq call
  std::deque<std::unique_ptr<Statement>> sent_;  // in flight, oldest first
  std::uint64_t next_seq_ = 1;
  bool reading_ = false;   // the reader coroutine runs
  bool flushing_ = false;  // the flusher coroutine runs (libpq could not send everything)
  bool closed_ = false;
  std::unordered_map<std::string, Error> failed_prepares_;  // statement name → its prepare's error
  std::uint64_t cancel_target_ = 0;                         // seq of the statement cancelled last
  Clock::time_point cancelled_at_{};
  bool severed_ = false;  // by expire_if_due()
  bool broken_ = false;   // a send failed: the connection was severed
  std::atomic<std::size_t> load_{0};
  std::atomic<bool> accepting_{true};
  std::atomic<Clock::rep> head_since_{0};   // when the head statement started to run
  std::atomic<Clock::rep> oldest_sent_{0};  // when the oldest statement in flight was sent
};

}  // namespace core::db

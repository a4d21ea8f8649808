#pragma once
// Runs the queued remote-management executions (issue 33, item 2): rmm_executions (migrations
// 0020, 0026), filled by POST /api/rmm/executions, each run once against Tactical RMM's run-script
// call (TacticalClient::run_script).
//
//   auto worker = RmmExecutor::start(conninfo, executor, client, registry);
//   worker->wake();     // an execution was queued: run it now rather than at the next poll
//   worker->stop();
//
// Like the agent dispatcher (gitforge/dispatch.hpp) the worker has its own small pool and takes
// work with FOR UPDATE SKIP LOCKED and a lease: the claim moves a row from queued to running,
// stamps leased_until (the script's timeout, Tactical's 3 s, and the margin) and leased_by, in
// one statement, so two instances never take the same row. While its worker runs a row, the lease
// is renewed every third of its length (core::db::LeaseKeeper), so it runs out only when the
// worker stopped, however long the call, its 429s or the history read take.
//
// What "retried only where safe" means here (ops_console/README.md, "Remote management"):
//   - a 429 from Tactical (Django REST framework throttles before the view runs: the agent was not
//     asked) puts the row back in the queue after the Retry-After, up to `max_attempts`;
//   - anything else after the call was sent (an error status, a timeout, a broken connection) may
//     have reached the agent: the row fails with the reason, and is never sent again;
//   - a running row whose lease ran out belonged to a worker that died (kill -9, a lost machine)
//     while the call may have been under way: each pass fails it with interrupted = true ("may or
//     may not have run on the agent"), never sends it again. A technician who wants it run again
//     asks again.
// While the integration is switched off (`registry`, key "rmm") queued rows wait; lapsed leases are
// still failed.
#include "core/async/schedule.hpp"
#include "core/db/pool.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/rmm/tactical.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>

namespace ops_console::rmm {

struct ExecutorOptions {
  std::chrono::milliseconds poll{2'000};   // how often the queue and lapsed leases are looked at
  std::chrono::seconds lease_margin{120};  // the lease: the script's timeout + 3 s + this, renewed while it runs
  int max_attempts = 5;                    // 429s in a row, then failed
  std::size_t batch = 4;                   // executions run at once by one worker
  std::size_t connections = 2;             // the worker's own pool
  std::size_t output_limit = 64 * 1024;    // bytes of output kept (the rest cut, marked)
};

class RmmExecutor : public std::enable_shared_from_this<RmmExecutor> {
 public:
  static std::shared_ptr<RmmExecutor> start(std::string_view conninfo, boost::asio::any_io_executor executor,
                                            std::shared_ptr<TacticalClient> client,
                                            std::shared_ptr<integrations::Registry> registry, ExecutorOptions options);
  RmmExecutor(std::string_view conninfo, boost::asio::any_io_executor executor, std::shared_ptr<TacticalClient> client,
              std::shared_ptr<integrations::Registry> registry, ExecutorOptions options);

  void wake();
  void stop();

  // Fails lapsed leases, then runs every queued execution due now; answers how many were run.
  boost::asio::awaitable<std::size_t> run_due();

 private:
  struct Claimed;
  boost::asio::awaitable<void> run_one(Claimed e);

  core::db::Pool db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<TacticalClient> client_;
  std::shared_ptr<integrations::Registry> registry_;
  ExecutorOptions options_;
  std::string instance_;  // leased_by: which process holds a row
  std::shared_ptr<core::async::Schedule> schedule_;
};

}  // namespace ops_console::rmm

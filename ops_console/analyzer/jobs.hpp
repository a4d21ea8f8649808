#pragma once
// The analyzer's job queue and the workers that drain it (README "Ticket analyzer").
//
// Jobs are analysis_jobs rows (migration 0018). enqueue() adds one per ticket (a ticket that
// already has a waiting job answers that job's id) and announces it on the channel
// `analysis_jobs`. A worker takes the oldest job it may run with FOR UPDATE SKIP LOCKED: a waiting
// job whose ticket has no running job, or a running job whose lease ran out (its worker died).
// While the pipeline runs, the worker renews the lease every third of its length; the job ends
// only under a lease the worker still holds (Pipeline::run). A job taken for the fourth time is
// failed instead of run again. Idle workers wake on the announcement, and every ANALYZER_POLL_MS
// to find expired leases.
#include "core/app/service.hpp"
#include "ops_console/analyzer/pipeline.hpp"

#include <memory>
#include <vector>

namespace ops_console::analyzer {

struct QueuedJob {
  std::int64_t id = 0;
  std::int64_t ticket_id = 0;
};

// Queues one job per ticket; `estimates` (by position) are what the cost guard reserved for each.
boost::asio::awaitable<std::vector<QueuedJob>> enqueue(core::db::Transaction& tx, std::vector<std::int64_t> tickets,
                                                       std::vector<double> estimates, std::optional<std::string> route,
                                                       std::int64_t requested_by);

class Workers : public std::enable_shared_from_this<Workers> {
 public:
  // Starts settings.workers workers on ctx's executor, stopped by ctx's stop hooks.
  static std::shared_ptr<Workers> start(core::app::Context& ctx, std::shared_ptr<Pipeline> pipeline,
                                        const AnalyzerSettings& settings);
  Workers(core::db::Pool& db, std::shared_ptr<Pipeline> pipeline, AnalyzerSettings settings);

  // Takes one job this instance may run and runs it; false when there was none.
  boost::asio::awaitable<bool> run_one(std::string owner);

 private:
  core::db::Pool& db_;
  std::shared_ptr<Pipeline> pipeline_;
  AnalyzerSettings settings_;
};

}  // namespace ops_console::analyzer

#include "ops_console/analyzer/jobs.hpp"

#include "core/async/schedule.hpp"
#include "core/db/errors.hpp"
#include "core/db/lease.hpp"
#include "core/db/listener.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

#include <unistd.h>

namespace ops_console::analyzer {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::string_view kChannel = "analysis_jobs";
constexpr int kMaxAttempts = 3;

// A ticket's waiting job absorbs a second request (its estimate is kept, its requester replaced).
constexpr std::string_view kEnqueue = R"sql(
  WITH queued AS (
    INSERT INTO analysis_jobs (ticket_id, requested_by, route, estimate)
    SELECT r.ticket_id, $3, $4, r.estimate
    FROM unnest($1::bigint[], $2::numeric[]) AS r(ticket_id, estimate)
    ON CONFLICT (ticket_id) WHERE status = 'queued' DO UPDATE SET requested_by = EXCLUDED.requested_by
    RETURNING id, ticket_id)
  SELECT id, ticket_id, pg_notify('analysis_jobs', '') IS NULL FROM queued ORDER BY id
)sql";

// The oldest job this worker may run: waiting, with no running job for its ticket, or running
// under a lease that ran out.
constexpr std::string_view kTake = R"sql(
  WITH next AS (
    SELECT j.id FROM analysis_jobs j
    WHERE (j.status = 'queued'
           AND NOT EXISTS (SELECT 1 FROM analysis_jobs r WHERE r.ticket_id = j.ticket_id AND r.status = 'running'))
       OR (j.status = 'running' AND j.lease_until < now())
    ORDER BY j.id
    FOR UPDATE SKIP LOCKED
    LIMIT 1)
  UPDATE analysis_jobs j
  SET status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2),
      attempts = j.attempts + 1, started_at = now()
  FROM next WHERE j.id = next.id
  RETURNING j.id, j.ticket_id, j.route, j.requested_by, j.attempts
)sql";

// The runs a dead worker left open for this job.
constexpr std::string_view kAbandonRuns = R"sql(
  UPDATE pipeline_executions SET status = 'failed', completed_at = now(), error = 'the worker stopped mid-run'
  WHERE status = 'running' AND pipeline_id = 1 AND ticket_id = $2 AND (input_data ->> 'jobId')::bigint = $1
)sql";

constexpr std::string_view kGiveUp = R"sql(
  WITH failed AS (
    INSERT INTO analyses (ticket_id, job_id, requested_by, status, error, completed_at)
    VALUES ($2, $1, $3, 'failed', $4, now()) RETURNING id)
  UPDATE analysis_jobs SET status = 'failed', error = $4, analysis_id = (SELECT id FROM failed),
    finished_at = now(), lease_owner = NULL, lease_until = NULL
  WHERE id = $1
)sql";

constexpr std::string_view kRenew = R"sql(
  UPDATE analysis_jobs SET lease_until = now() + make_interval(secs => $3)
  WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id
)sql";

awaitable<std::optional<Job>> take(core::db::Pool& db, const std::string& owner, std::chrono::seconds lease) {
  core::db::Result rows;
  try {
    rows = co_await db.query(kTake, owner, static_cast<std::int64_t>(lease.count()));
  } catch (const core::db::Error& e) {
    if (!e.unique_violation()) throw;
    // Another worker started this ticket's other job meanwhile: this one waits for the next round.
  }
  if (rows.empty()) co_return std::nullopt;
  const auto& row = rows.front();
  co_return Job{.id = row.get<std::int64_t>(0),
                .ticket_id = row.get<std::int64_t>(1),
                .route = row.get<std::optional<std::string>>(2),
                .requested_by = row.get<std::optional<std::int64_t>>(3),
                .attempts = row.get<int>(4)};
}

}  // namespace

awaitable<std::vector<QueuedJob>> enqueue(core::db::Transaction& tx, std::vector<std::int64_t> tickets,
                                          std::vector<double> estimates, std::optional<std::string> route,
                                          std::int64_t requested_by) {
  estimates.resize(tickets.size(), 0.0);
  const auto rows = co_await tx.query(kEnqueue, tickets, estimates, requested_by, route);
  std::vector<QueuedJob> out;
  for (const auto& row : rows) out.push_back({row.get<std::int64_t>(0), row.get<std::int64_t>(1)});
  co_return out;
}

Workers::Workers(core::db::Pool& db, std::shared_ptr<Pipeline> pipeline, AnalyzerSettings settings)
    : db_(db), pipeline_(std::move(pipeline)), settings_(std::move(settings)) {}

awaitable<bool> Workers::run_one(std::string owner) {
  const auto job = co_await take(db_, owner, settings_.lease);
  if (!job) co_return false;
  if (job->attempts > 1) co_await db_.query(kAbandonRuns, job->id, job->ticket_id);
  if (job->attempts > kMaxAttempts) {
    co_await db_.query(kGiveUp, job->id, job->ticket_id, job->requested_by,
                       "the workers running this job stopped " + std::to_string(kMaxAttempts) + " times");
    co_return true;
  }
  // The database failing in the pipeline ends the renewal with it: the lease runs out and another
  // round takes the job.
  core::db::LeaseKeeper lease(db_, co_await boost::asio::this_coro::executor, kRenew, job->id, owner, settings_.lease,
                              "analyzer");
  co_await pipeline_->run(*job, owner);
  co_return true;
}

std::shared_ptr<Workers> Workers::start(core::app::Context& ctx, std::shared_ptr<Pipeline> pipeline,
                                        const AnalyzerSettings& settings) {
  auto workers = std::make_shared<Workers>(ctx.db, std::move(pipeline), settings);
  auto schedules = std::make_shared<std::vector<std::shared_ptr<core::async::Schedule>>>();
  auto stopping = std::make_shared<bool>(false);
  const std::string instance = core::random_hex(4) + "-" + std::to_string(::getpid());
  for (int n = 0; n < settings.workers; ++n) {
    const std::string owner = instance + "-" + std::to_string(n);
    // A worker's round: jobs one after another until none is left.
    auto drain = [workers, owner, stopping]() -> awaitable<void> {
      while (!*stopping && co_await workers->run_one(owner)) {
      }
    };
    schedules->push_back(
        core::async::Schedule::start(ctx.executor, settings.poll, drain, "analyzer worker", ctx.clock));
  }
  const auto wake_all = [schedules] {
    for (const auto& s : *schedules) s->wake();
  };
  auto listener = std::make_shared<core::db::Listener>(
      ctx.executor, core::db::ListenerOptions{.conninfo = std::string(ctx.conninfo), .channel = std::string(kChannel)},
      [wake_all](const std::string&) { wake_all(); }, wake_all);
  listener->start();
  ctx.stop_hooks.push_back([schedules, listener, stopping] {
    *stopping = true;
    listener->stop();
    for (const auto& s : *schedules) s->stop();
  });
  return workers;
}

}  // namespace ops_console::analyzer

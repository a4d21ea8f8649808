#include "ops_console/rmm/executions.hpp"

#include "core/async/join.hpp"
#include "core/db/lease.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <algorithm>

namespace ops_console::rmm {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Running rows whose worker died holding them: the call may have reached the agent, so they are
// failed, not run again (executions.hpp).
constexpr std::string_view kFailLapsed = R"sql(
  UPDATE rmm_executions
  SET status = 'failed', finished_at = now(), interrupted = true, leased_until = NULL,
      error = 'interrupted: the service running it stopped (held by ' || coalesce(leased_by, 'unknown') ||
              '); it may or may not have run on the agent, and is not run again'
  WHERE status = 'running' AND leased_until < now()
  RETURNING id
)sql";

// The executions due now, leased to this worker: queued -> running in one statement.
constexpr std::string_view kClaimExecutions = R"sql(
  WITH due AS (
    SELECT id FROM rmm_executions
    WHERE status = 'queued' AND next_attempt_at <= now()
    ORDER BY next_attempt_at, id
    LIMIT $1
    FOR UPDATE SKIP LOCKED)
  UPDATE rmm_executions e
  SET status = 'running', started_at = coalesce(e.started_at, now()), attempts = e.attempts + 1, leased_by = $3,
      leased_until = now() + make_interval(secs => e.timeout_seconds + 3 + $2)
  FROM due WHERE e.id = due.id
  RETURNING e.id, e.agent_id, e.script_id, e.args::text, e.timeout_seconds, e.attempts
)sql";

// One outcome; only while this worker still holds the row (a lapsed lease was failed by another).
constexpr std::string_view kFinishExecution = R"sql(
  UPDATE rmm_executions
  SET status = $2, exit_code = $3, output = $4, error = $5, finished_at = now(), leased_until = NULL
  WHERE id = $1 AND status = 'running' AND leased_by = $6
)sql";

// The lease pushed on while its worker runs the execution (core::db::LeaseKeeper).
constexpr std::string_view kRenewExecution = R"sql(
  UPDATE rmm_executions SET leased_until = now() + make_interval(secs => $3)
  WHERE id = $1 AND status = 'running' AND leased_by = $2 RETURNING id
)sql";

constexpr std::string_view kRequeueExecution = R"sql(
  UPDATE rmm_executions
  SET status = 'queued', error = $2, leased_until = NULL, next_attempt_at = now() + make_interval(secs => $3)
  WHERE id = $1 AND status = 'running' AND leased_by = $4
)sql";

}  // namespace

struct RmmExecutor::Claimed {
  std::int64_t id = 0;
  std::string agent_id;
  std::int64_t script_id = 0;
  std::vector<std::string> args;
  int timeout_seconds = 90;
  int attempts = 0;
};

std::shared_ptr<RmmExecutor> RmmExecutor::start(std::string_view conninfo, boost::asio::any_io_executor executor,
                                                std::shared_ptr<TacticalClient> client,
                                                std::shared_ptr<integrations::Registry> registry,
                                                ExecutorOptions options) {
  auto worker = std::make_shared<RmmExecutor>(conninfo, executor, std::move(client), std::move(registry), options);
  std::weak_ptr<RmmExecutor> weak = worker;
  worker->schedule_ = core::async::Schedule::start(
      executor, options.poll,
      [weak]() -> awaitable<void> {
        if (auto self = weak.lock()) co_await self->run_due();
      },
      "rmm executions");
  worker->wake();
  return worker;
}

RmmExecutor::RmmExecutor(std::string_view conninfo, boost::asio::any_io_executor executor,
                         std::shared_ptr<TacticalClient> client, std::shared_ptr<integrations::Registry> registry,
                         ExecutorOptions options)
    : db_(executor, {.conninfo = std::string(conninfo), .max_size = options.connections}),
      executor_(executor),
      client_(std::move(client)),
      registry_(std::move(registry)),
      options_(options),
      instance_("worker-" + core::random_hex(8)) {}

void RmmExecutor::wake() {
  if (schedule_) schedule_->wake();
}

void RmmExecutor::stop() {
  if (schedule_) schedule_->stop();
  db_.close();
}

awaitable<std::size_t> RmmExecutor::run_due() {
  for (const auto& row : co_await db_.query(kFailLapsed))
    core::log::warn("remote-management execution interrupted: not run again",
                    {{"execution", row.get<std::int64_t>(0)}});
  std::size_t ran = 0;
  if (registry_ && (co_await registry_->disabled()).count("rmm")) co_return ran;  // switched off: queued rows wait
  for (;;) {
    const auto rows = co_await db_.query(kClaimExecutions, static_cast<std::int64_t>(options_.batch),
                                         static_cast<std::int64_t>(options_.lease_margin.count()), instance_);
    if (rows.empty()) co_return ran;
    std::vector<std::function<awaitable<void>()>> runs;
    for (const auto& r : rows) {
      Claimed e{.id = r.get<std::int64_t>(0),
                .agent_id = std::string(r.text(1)),
                .script_id = r.get<std::int64_t>(2),
                .timeout_seconds = static_cast<int>(r.get<std::int64_t>(4)),
                .attempts = static_cast<int>(r.get<std::int64_t>(5))};
      for (const auto& a : json::parse(r.text(3))) e.args.push_back(a.get<std::string>());
      runs.push_back([this, e = std::move(e)]() -> awaitable<void> { co_await run_one(e); });
    }
    ran += runs.size();
    co_await core::async::join_all(executor_, std::move(runs));
  }
}

awaitable<void> RmmExecutor::run_one(Claimed e) {
  // The claim's lease, renewed every third of it until the outcome is written: it runs out only
  // when this worker stopped, however long Tactical, its 429s or the history read take.
  core::db::LeaseKeeper lease(db_, co_await boost::asio::this_coro::executor, kRenewExecution, e.id, instance_,
                              std::chrono::seconds(e.timeout_seconds + 3) + options_.lease_margin,
                              "remote-management execution");
  RunResult r;
  try {
    r = co_await client_->run_script(e.agent_id, e.script_id, e.args, e.timeout_seconds);
  } catch (const std::exception& ex) {  // not the call's failure (those are in r): the database, say
    r.kind = RunResult::Kind::failed;
    r.error = core::secrets::quote(ex.what());
  }
  if (r.kind == RunResult::Kind::throttled && e.attempts < options_.max_attempts) {
    const double wait = std::max(1.0, static_cast<double>(r.retry_after.count()) / 1000.0);
    co_await db_.query(kRequeueExecution, e.id, r.error, wait, instance_);
    co_return;
  }
  std::string status = "failed";
  std::optional<std::string> output, error;
  if (r.kind == RunResult::Kind::done) {
    output = core::secrets::quote(r.output, options_.output_limit);
    // Tactical answers these words instead of the output when the agent could not be asked.
    if (r.output == "timeout" || r.output == "natsdown")
      error = "the agent did not answer (" + r.output + ")";
    else if (r.exit_code && *r.exit_code != 0)
      error = "the script exited with " + std::to_string(*r.exit_code);
    else
      status = "succeeded";
  } else {
    error = core::secrets::quote(r.error);
    if (r.kind == RunResult::Kind::throttled) *error += " (after " + std::to_string(e.attempts) + " attempts)";
  }
  if (status != "succeeded")
    core::log::warn("remote-management execution failed", {{"execution", e.id}, {"error", error.value_or("")}});
  co_await db_.query(kFinishExecution, e.id, status, r.exit_code, output, error, instance_);
}

}  // namespace ops_console::rmm

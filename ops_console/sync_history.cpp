#include "ops_console/sync_history.hpp"

#include "core/db/advisory_lock.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <exception>

namespace ops_console {

namespace {

constexpr std::int64_t kAnalyzeAfter = 1000;

constexpr std::string_view kStart =
    "INSERT INTO sync_history (entity_type, kind, run_lock) VALUES ($1, $2, nullif($3, '')) RETURNING id";
// The rows of runs that held the lock $1 and died with their instance (the caller holds it now).
constexpr std::string_view kCloseInterrupted = R"sql(
  UPDATE sync_history SET finished_at = now(), status = 'failed', error = $2 WHERE status = 'running' AND run_lock = $1
)sql";
constexpr std::string_view kFinish = R"sql(
  UPDATE sync_history SET finished_at = now(), status = $2, counts = $3::jsonb, error = $4 WHERE id = $1
)sql";

// Five minutes of overlap: clocks, and transactions that commit late.
constexpr std::string_view kWatermark = R"sql(
  SELECT to_char((modified_upto - interval '5 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  FROM sync_watermarks WHERE entity_type = $1
)sql";
constexpr std::string_view kAdvanceWatermark = R"sql(
  INSERT INTO sync_watermarks (entity_type, modified_upto) VALUES ($1, $2::timestamptz)
  ON CONFLICT (entity_type) DO UPDATE
    SET modified_upto = greatest(sync_watermarks.modified_upto, EXCLUDED.modified_upto), updated_at = now()
)sql";

}  // namespace

boost::asio::awaitable<std::optional<std::string>> read_watermark(core::db::Pool& db, std::string entity_type) {
  const auto rows = co_await db.query(kWatermark, std::move(entity_type));
  if (rows.empty()) co_return std::nullopt;
  co_return std::string(rows.front().text(0));
}

boost::asio::awaitable<void> advance_watermark(core::db::Pool& db, std::string entity_type, std::string upto) {
  co_await db.query(kAdvanceWatermark, std::move(entity_type), std::move(upto));
}

boost::asio::awaitable<void> recorded_run(core::db::Pool& db, std::string held_lock, std::string entity_type,
                                          std::string kind, SyncJob job) {
  if (!held_lock.empty()) co_await db.query(kCloseInterrupted, held_lock, std::string(kInterrupted));
  const auto started = co_await db.query(kStart, entity_type, kind, held_lock);
  const auto id = started.front().get<std::int64_t>(0);
  nlohmann::json counts = nlohmann::json::object();
  std::exception_ptr failure;
  std::string error;
  try {
    co_await job(counts);
  } catch (const std::exception& x) {  // the vendor, or the database: recorded if it can be
    failure = std::current_exception();
    error = core::secrets::quote(x.what());  // a vendor's words: masked and bounded
  }
  if (!failure) {
    co_await db.query(kFinish, id, "succeeded", counts, nullptr);
    co_return;
  }
  co_await db.query(kFinish, id, "failed", counts, error);
  std::rethrow_exception(failure);
}

boost::asio::awaitable<void> analyze_after_bulk_write(core::db::Pool& db, std::string_view table, std::int64_t rows) {
  if (rows < kAnalyzeAfter) co_return;
  auto lease = co_await db.acquire();
  co_await lease.execute_simple("ANALYZE " + std::string(table));
}

namespace {

// The run of start_locked_run(), holding its lock; `job` (and what it keeps) lives in this frame.
boost::asio::awaitable<void> run_holding(core::db::Pool& db, core::db::AdvisoryLock lock, std::string lock_name,
                                         std::string entity_type, std::string kind, SyncJob job) {
  try {
    co_await recorded_run(db, std::move(lock_name), entity_type, std::move(kind), std::move(job));
  } catch (const std::exception& e) {
    core::log::warn("a sync failed", {{"entityType", entity_type}, {"error", e.what()}});
  }
  co_await lock.release();
}

}  // namespace

boost::asio::awaitable<bool> start_locked_run(core::db::Pool& db, boost::asio::any_io_executor executor,
                                              std::string lock, std::string entity_type, std::string kind,
                                              SyncJob job) {
  auto held = co_await core::db::try_advisory_lock(db, lock);
  if (!held) co_return false;
  boost::asio::co_spawn(
      executor,
      run_holding(db, std::move(*held), std::move(lock), std::move(entity_type), std::move(kind), std::move(job)),
      boost::asio::detached);
  co_return true;
}

boost::asio::awaitable<nlohmann::json> locked_sync_status(core::db::Pool& db, std::string lock,
                                                          std::string_view rendered) {
  const bool running = co_await core::db::advisory_lock_held(db, std::move(lock));
  const auto rows = co_await db.query(rendered);
  auto out = nlohmann::json::parse(rows.front().text(0));
  out["inProgress"] = running;
  co_return out;
}

}  // namespace ops_console

#pragma once
// Every run of every sync is a row of sync_history (migration 0009): the PSA's entities, the
// distributor, the accounting connection.
//
//   co_await recorded_run(db, kSyncLock, "distributor", "distributor", [&](nlohmann::json& counts) -> awaitable<void> {
//     counts["companies"] = ...;   // kept also when the run fails part-way
//   });
//
// The row says running while the job runs, then succeeded with the counts the job filled in, or
// failed with the job's error and the counts so far; the job's exception is then rethrown.
//
// A run killed with its instance (kill -9, a lost machine) cannot finish its row. So a run names
// the advisory lock it holds (`held_lock`, kept in the row: migration 0031), and before its own
// row is written closes every row still running under that lock as failed with kInterrupted:
// PostgreSQL released the lock with the dead instance's session, and the caller holds it now, so
// no live run can own those rows. A run under no lock passes "" and closes nothing.
#include "core/db/pool.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace ops_console {

using SyncJob = std::function<boost::asio::awaitable<void>(nlohmann::json& counts)>;

inline constexpr std::string_view kInterrupted =
    "interrupted: the instance running this sync stopped before it ended (the next run closed it)";

boost::asio::awaitable<void> recorded_run(core::db::Pool& db, std::string held_lock, std::string entity_type,
                                          std::string kind, SyncJob job);

// A full sync that runs once across instances, in the background: when the advisory lock `lock` is
// free, takes it, answers true and runs `job` as a recorded_run (above; a failure is logged), then
// releases it; false, and nothing started, while another run holds it. What `job` captures lives
// until the run ends (the endpoint-security and access-gateway syncs keep themselves so).
//
//   if (!co_await start_locked_run(db, executor, kLock, "endpointsec", "full", job)) throw Problem::conflict(...);
//   json state = co_await locked_sync_status(db, kLock, kStatusSql);   // kStatusSql's object + inProgress
boost::asio::awaitable<bool> start_locked_run(core::db::Pool& db, boost::asio::any_io_executor executor,
                                              std::string lock, std::string entity_type, std::string kind, SyncJob job);
// The object `rendered` (SQL answering one JSON object) with inProgress: whether `lock` is held on any instance.
boost::asio::awaitable<nlohmann::json> locked_sync_status(core::db::Pool& db, std::string lock,
                                                          std::string_view rendered);

// Where an incremental sync of `entity_type` resumes (sync_watermarks, migration 0009): the mark
// less five minutes of overlap (clocks, transactions that commit late), UTC,
// "2026-11-01T09:30:00.000Z"; nullopt when it has never completed.
boost::asio::awaitable<std::optional<std::string>> read_watermark(core::db::Pool& db, std::string entity_type);
// Moves the mark to `upto` (timestamptz text), never back.
boost::asio::awaitable<void> advance_watermark(core::db::Pool& db, std::string entity_type, std::string upto);

// After a run wrote `rows` rows of `table`: from 1,000 rows on, ANALYZE it, so the planner's
// statistics match the copy at once rather than when autovacuum next passes. With none (a first
// sync), PostgreSQL takes a large table for a small one and scans it whole where an index finds
// a row (the PSA webhook intake's group statement, the distributor's matching: bench/RESULTS.md).
boost::asio::awaitable<void> analyze_after_bulk_write(core::db::Pool& db, std::string_view table, std::int64_t rows);

}  // namespace ops_console

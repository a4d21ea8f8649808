#pragma once
// Keeping the copy of the PSA current (issue 17): the incremental sync (the full sync when an
// entity's copy has never been synced), the reconciliation of stale tickets and the picklists.
//
//   auto sync = std::make_shared<PsaSync>(db, executor, client, settings);
//   if (!co_await sync->start_incremental()) throw Problem::conflict(...);  // runs in the background
//   auto result = co_await sync->reconcile();   // nullopt: a reconciliation is under way
//
// One sync runs at a time across every instance on the database (a PostgreSQL advisory lock), and
// one reconciliation. Every run of every entity is a sync_history row.
//
// Incremental: per entity, the rows whose last-modified field is at or after the newest value
// the copy holds (sync_watermarks), less five minutes of overlap, are upserted; an entity without
// such a field is read whole each run. Deleted tickets come from the PSA's DeletedTicketLogs.
// Full: an entity never synced is read whole, tickets limited to the last PSA_SYNC_WINDOW_DAYS
// of activity plus every ticket not complete.
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/psa/autotask.hpp"
#include "ops_console/psa/entities.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace ops_console::psa {

// The spec's reconciliation result.
struct ReconcileResult {
  std::int64_t scanned = 0;
  std::int64_t updated = 0;  // refreshed from the PSA, those flipped to complete included
  std::int64_t status_flipped_to_complete = 0;
  std::int64_t soft_deleted = 0;
  std::int64_t errors = 0;
  nlohmann::json to_json() const;
};

inline constexpr int kCompleteStatus = 5;    // Autotask's ticket status Complete
inline constexpr int kReconcileLimit = 500;  // tickets per reconciliation pass
inline constexpr int kStaleAfterDays = 7;    // a ticket synced longer ago is stale

class PsaSync : public std::enable_shared_from_this<PsaSync> {
 public:
  PsaSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<AutotaskClient> psa,
          PsaSettings settings);

  // Takes the sync lock and runs an incremental sync in the background; false when a sync is
  // running (in this instance or another) and nothing was started.
  boost::asio::awaitable<bool> start_incremental();
  // The same, awaited to its end (the schedule, tests); false when a sync was running.
  boost::asio::awaitable<bool> run_incremental();
  // The reconciliation pass, run to its end; nullopt when one is under way.
  boost::asio::awaitable<std::optional<ReconcileResult>> reconcile();
  // Re-reads the company classification picklist and the ticket picklists; the classifications.
  boost::asio::awaitable<nlohmann::json> sync_classifications();
  // The company classifications the copy holds: [{id, label, is_active, sort_order}].
  boost::asio::awaitable<nlohmann::json> classifications();

 private:
  using Job = std::function<boost::asio::awaitable<void>(nlohmann::json& counts)>;
  // `held_lock`: the advisory lock the run holds ("" for none; recorded_run, sync_history.hpp).
  boost::asio::awaitable<void> recorded(std::string held_lock, std::string entity_type, std::string kind, Job job);
  boost::asio::awaitable<void> sync_all(core::db::AdvisoryLock lock);
  boost::asio::awaitable<void> sync_entity(const Entity& entity);
  boost::asio::awaitable<void> sync_deleted_tickets();
  boost::asio::awaitable<void> sync_picklists(std::string held_lock);
  boost::asio::awaitable<ReconcileResult> reconcile_pass();

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<AutotaskClient> psa_;
  PsaSettings settings_;
};

}  // namespace ops_console::psa

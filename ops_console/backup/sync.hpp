#pragma once
// The backup copy (issue 33, item 1): every Datto BCDR device, the agents and shares it protects
// with their backup state, and each backup Datto lists for them as a row of backup_results, which
// the mobile dashboard reads (migrations 0020 and 0025).
//
//   auto sync = std::make_shared<BackupSync>(db, executor, client);
//   if (!co_await sync->start()) throw Problem::conflict(...);   // runs in the background
//   co_await sync->run_if_free();                                 // the schedule's round: skipped while one runs
//   json state = co_await backup_sync_status(db);                 // {inProgress, devices, assets, history}
//
// One run at a time across instances (an advisory lock); each run a sync_history row, entity type
// "backup", kind "full". A run pages /device and matches every device's client name to a PSA
// company (backup_rematch(), once), then reads each device's /device/{serial}/asset (four devices
// at once) and writes ten devices' assets and backups to a transaction; once everything is
// written, it marks deleted the devices and assets Datto no longer returned. A backup already
// stored (the same device, asset and time) is not stored again, and only the backups listed after
// the newest stored one of their asset are sent to the database at all.
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/backup/assets.hpp"  // backup_asset_row
#include "ops_console/backup/datto.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace ops_console::backup {

inline constexpr std::string_view kSyncLock = "ops-console: backup sync";

// {inProgress, devices, assets, unmatched (devices without a company), history: the last 10 runs}.
boost::asio::awaitable<nlohmann::json> backup_sync_status(core::db::Pool& db);

class BackupSync : public std::enable_shared_from_this<BackupSync> {
 public:
  BackupSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<DattoClient> client);

  // Takes the lock and starts a run in the background; false while a run holds it.
  boost::asio::awaitable<bool> start();
  // A run now, awaited, unless one holds the lock (the scheduled round).
  boost::asio::awaitable<void> run_if_free();

 private:
  boost::asio::awaitable<void> run_locked(core::db::AdvisoryLock lock);
  boost::asio::awaitable<void> full_sync(nlohmann::json& counts);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<DattoClient> client_;
};

}  // namespace ops_console::backup

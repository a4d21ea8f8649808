#pragma once
// The remote-management copy (issue 33, item 2): Tactical RMM's clients (with their sites), agents
// and scripts into rmm_clients, rmm_sites, rmm_agents and rmm_scripts (migration 0026).
//
//   auto sync = std::make_shared<RmmSync>(db, executor, client);
//   if (!co_await sync->start()) throw Problem::conflict(...);   // runs in the background
//   json state = co_await rmm_sync_status(db);                   // {inProgress, clients, agents, scripts, history}
//
// One run at a time across instances (an advisory lock); each run a sync_history row, entity type
// "rmm", kind "full". Tactical's lists are not paged: one GET each of /clients/, /agents/
// and /scripts/, side by side; once all are read, they are written, and what Tactical no longer returned is
// marked deleted, in one transaction. Only the fields the copy keeps are sent, and a row is
// written only when one of them changed (its synced_at: when a run last changed it).
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/rmm/tactical.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace ops_console::rmm {

inline constexpr std::string_view kRmmSyncLock = "ops-console: rmm sync";

boost::asio::awaitable<nlohmann::json> rmm_sync_status(core::db::Pool& db);

class RmmSync : public std::enable_shared_from_this<RmmSync> {
 public:
  RmmSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<TacticalClient> client);

  boost::asio::awaitable<bool> start();

 private:
  boost::asio::awaitable<void> run_locked(core::db::AdvisoryLock lock);
  boost::asio::awaitable<void> full_sync(nlohmann::json& counts);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<TacticalClient> client_;
};

}  // namespace ops_console::rmm

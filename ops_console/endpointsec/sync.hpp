#pragma once
// The endpoint-security copy (issue 20): every site with its licences, and its agents counted
// (all, and active), into endpointsec_sites (migration 0015).
//
//   auto sync = std::make_shared<EndpointSecSync>(db, executor, client);
//   if (!co_await sync->start()) throw Problem::conflict(...);   // runs in the background
//   json history = co_await endpointsec_sync_status(db);         // {inProgress, sites, history}
//
// One run at a time across instances (an advisory lock); each run a sync_history row, entity
// type "endpointsec", kind "full". A run pages /sites (ENDPOINTSEC_PAGE_LIMIT, 1,000, a page), asks /agents/count for each
// site (total and active, four sites at once), and, once everything is read, marks deleted the
// sites SentinelOne no longer returned (their mappings stay until an administrator removes them).
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/endpointsec/sentinelone.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace ops_console::endpointsec {

inline constexpr std::string_view kSyncLock = "ops-console: endpointsec sync";

// {inProgress, sites (not deleted), history: the last 10 runs}.
boost::asio::awaitable<nlohmann::json> endpointsec_sync_status(core::db::Pool& db);

class EndpointSecSync : public std::enable_shared_from_this<EndpointSecSync> {
 public:
  EndpointSecSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<SentinelOneClient> client);

  boost::asio::awaitable<bool> start();

 private:
  boost::asio::awaitable<void> full_sync(nlohmann::json& counts);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<SentinelOneClient> client_;
};

}  // namespace ops_console::endpointsec

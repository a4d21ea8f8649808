#pragma once
// The access gateway's copy (issue 33): every Access application of the account with its policies
// (who may reach it), into access_gateway_apps and access_gateway_policies (migration 0027).
//
//   auto sync = std::make_shared<AccessGatewaySync>(db, executor, client);
//   if (!co_await sync->start()) throw Problem::conflict(...);   // runs in the background
//   json state = co_await access_gateway_sync_status(db);        // {inProgress, applications, history}
//
// One run at a time across instances (an advisory lock); each run a sync_history row, entity type
// "access_gateway", kind "full". A run pages /access/apps; for each page it reads the
// applications' policies (four applications at once) and writes the page with them in one
// transaction (replacing the copy's policies of those applications); once everything is read, it
// marks deleted the applications Cloudflare no longer returned.
#include "core/db/pool.hpp"
#include "ops_console/access_gateway/cloudflare.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace ops_console::access_gateway {

inline constexpr std::string_view kAccessGatewaySyncLock = "ops-console: access gateway sync";

// {inProgress, applications (not deleted), history: the last 10 runs}.
boost::asio::awaitable<nlohmann::json> access_gateway_sync_status(core::db::Pool& db);

class AccessGatewaySync : public std::enable_shared_from_this<AccessGatewaySync> {
 public:
  AccessGatewaySync(core::db::Pool& db, boost::asio::any_io_executor executor,
                    std::shared_ptr<CloudflareAccessClient> client);

  boost::asio::awaitable<bool> start();

 private:
  boost::asio::awaitable<void> full_sync(nlohmann::json& counts);
  // A page of applications: their policies read (a few applications at once), then the page, the
  // policies and the delete of the stale ones in one transaction. Answers {applications, policies} stored.
  boost::asio::awaitable<std::pair<std::int64_t, std::int64_t>> store_page(nlohmann::json result, std::string started);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<CloudflareAccessClient> client_;
};

}  // namespace ops_console::access_gateway

#pragma once
// The distributor's copy (issue 19): a full sync of companies, subscriptions and invoice and
// order items, then the matching of every distributor company to a PSA company.
//
//   auto sync = std::make_shared<DistributorSync>(db, executor, client);
//   if (!co_await sync->start()) throw Problem::conflict(...);   // runs in the background
//   const json state = co_await sync_status(db);                  // {inProgress, counts, history}
//
// One sync at a time across every instance on the database (a PostgreSQL advisory lock), each
// run a sync_history row (entity type and kind "distributor"). A run upserts everything it reads
// (each list in one transaction) and, once it has read everything, soft-deletes the rows the
// distributor no longer returned; a run that fails part-way deletes nothing. A table written
// in bulk is analyzed while the next step runs. Matching (ops_console/README.md, "Distributor"): an
// exact match of the normalised name (distributor_normalised_name(), migration 0012) is recorded
// at once; any other company gets a review with up to five candidates by trigram similarity; a
// resolved review is never reopened.
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/distributor/pax8.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace ops_console::distributor {

inline constexpr std::string_view kSyncLock = "ops-console: distributor sync";

// {inProgress (a run holds the lock, on any instance), counts: {companies, subscriptions, items}
// (rows not deleted), history: the last 10 runs}. Needs no distributor: the copy answers.
boost::asio::awaitable<nlohmann::json> sync_status(core::db::Pool& db);

class DistributorSync : public std::enable_shared_from_this<DistributorSync> {
 public:
  DistributorSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<Pax8Client> client);

  // Takes the lock and starts a run in the background; false while a run holds it.
  boost::asio::awaitable<bool> start();

 private:
  boost::asio::awaitable<void> run_locked(core::db::AdvisoryLock lock);
  boost::asio::awaitable<void> full_sync(nlohmann::json& counts);
  boost::asio::awaitable<void> sync_invoice_items(core::db::Transaction& tx, const nlohmann::json& invoices,
                                                  std::int64_t& stored);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<Pax8Client> client_;
};

}  // namespace ops_console::distributor

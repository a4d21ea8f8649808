#pragma once
// The accounting copy (issue 19): receivable invoices, receipts and contacts of the connected
// organisation, pulled from Xero's Accounting API into accounting_* (migration 0013).
//
//   auto sync = std::make_shared<AccountingSync>(db, executor, connection);
//   if (!co_await sync->start(full)) throw Problem::conflict(...);   // runs in the background
//
// One run at a time across every instance (a PostgreSQL advisory lock); each run is a
// sync_history row, entity type "accounting", kind "full" (the first run, or when asked) or
// "incremental". Per list (Contacts, Invoices where Type is ACCREC, Payments where PaymentType is
// ACCRECPAYMENT), pages of 100 in UpdatedDateUTC order are upserted until a short page. An
// incremental run sends If-Modified-Since: the time Xero reported (DateTimeUTC) on the first page
// of the list's last complete pull, less five minutes; the mark moves only when a list's pull
// completes, so a run that fails part-way is read again from the same mark next time. Xero
// deletes nothing it has issued (voided and deleted records keep their status), so the copy
// deletes nothing either.
#include "core/db/advisory_lock.hpp"
#include "core/db/pool.hpp"
#include "ops_console/accounting/connection.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace ops_console::accounting {

inline constexpr std::string_view kSyncLock = "ops-console: accounting sync";

class AccountingSync : public std::enable_shared_from_this<AccountingSync> {
 public:
  AccountingSync(core::db::Pool& db, boost::asio::any_io_executor executor,
                 std::shared_ptr<AccountingConnection> connection);

  // Takes the lock and starts a run in the background; false while a run holds it.
  boost::asio::awaitable<bool> start(bool full);
  // Whether a run holds the lock, on any instance.
  boost::asio::awaitable<bool> running();

 private:
  boost::asio::awaitable<void> run_locked(core::db::AdvisoryLock lock, bool full);
  boost::asio::awaitable<void> pull(std::string tenant, bool full, nlohmann::json& counts);

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<AccountingConnection> connection_;
};

}  // namespace ops_console::accounting

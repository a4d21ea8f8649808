#include "ops_console/accounting/sync.hpp"

#include "core/log/log.hpp"
#include "core/util/strings.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace ops_console::accounting {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Each page upsert takes the page's body as Xero sent it ($1; parsed once, in `page`) and the
// organisation ($2), and answers how many records the page held, how many rows it wrote, the
// page count Xero reported (0 when it did not) and Xero's DateTimeUTC.
constexpr std::string_view kPageTail = R"sql(
  SELECT jsonb_array_length(coalesce(b -> $3, '[]')), (SELECT count(*) FROM stored),
         coalesce((b -> 'pagination' ->> 'pageCount')::int, 0), xero_instant(b ->> 'DateTimeUTC')::text
  FROM page
)sql";

constexpr std::string_view kUpsertContacts = R"sql(
  WITH page AS (SELECT $1::jsonb AS b),
  stored AS (
    INSERT INTO accounting_contacts (tenant_id, id, name, email, status, is_customer, is_supplier, updated_utc,
                                     synced_at)
    SELECT $2::uuid, r."ContactID", r."Name", r."EmailAddress", r."ContactStatus", r."IsCustomer", r."IsSupplier",
           xero_instant(r."UpdatedDateUTC"), now()
    FROM page, jsonb_to_recordset(coalesce(page.b -> $3, '[]')) AS r("ContactID" uuid, "Name" text,
         "EmailAddress" text, "ContactStatus" text, "IsCustomer" boolean, "IsSupplier" boolean, "UpdatedDateUTC" text)
    WHERE r."ContactID" IS NOT NULL
    ON CONFLICT (tenant_id, id) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, status = EXCLUDED.status,
      is_customer = EXCLUDED.is_customer, is_supplier = EXCLUDED.is_supplier, updated_utc = EXCLUDED.updated_utc,
      synced_at = now()
    RETURNING 1)
)sql";

constexpr std::string_view kUpsertInvoices = R"sql(
  WITH page AS (SELECT $1::jsonb AS b),
  stored AS (
    INSERT INTO accounting_invoices (tenant_id, id, number, type, contact_id, contact_name, status, invoice_date,
                                     due_date, currency_code, currency_rate, sub_total, total, amount_due, amount_paid,
                                     fully_paid_on, updated_utc, synced_at)
    SELECT $2::uuid, r."InvoiceID", r."InvoiceNumber", r."Type", (r."Contact" ->> 'ContactID')::uuid,
           r."Contact" ->> 'Name', r."Status", xero_day(r."DateString", r."Date"),
           xero_day(r."DueDateString", r."DueDate"), r."CurrencyCode", coalesce(nullif(r."CurrencyRate", 0), 1),
           coalesce(r."SubTotal", 0), coalesce(r."Total", 0), coalesce(r."AmountDue", 0), coalesce(r."AmountPaid", 0),
           xero_day(NULL, r."FullyPaidOnDate"), xero_instant(r."UpdatedDateUTC"), now()
    FROM page, jsonb_to_recordset(coalesce(page.b -> $3, '[]')) AS r("InvoiceID" uuid, "InvoiceNumber" text,
         "Type" text, "Contact" jsonb, "Status" text, "DateString" text, "Date" text, "DueDateString" text,
         "DueDate" text, "CurrencyCode" text, "CurrencyRate" numeric, "SubTotal" numeric, "Total" numeric,
         "AmountDue" numeric, "AmountPaid" numeric, "FullyPaidOnDate" text, "UpdatedDateUTC" text)
    WHERE r."InvoiceID" IS NOT NULL AND r."Type" IS NOT NULL AND r."Status" IS NOT NULL
    ON CONFLICT (tenant_id, id) DO UPDATE SET number = EXCLUDED.number, type = EXCLUDED.type,
      contact_id = EXCLUDED.contact_id, contact_name = EXCLUDED.contact_name, status = EXCLUDED.status,
      invoice_date = EXCLUDED.invoice_date, due_date = EXCLUDED.due_date, currency_code = EXCLUDED.currency_code,
      currency_rate = EXCLUDED.currency_rate, sub_total = EXCLUDED.sub_total, total = EXCLUDED.total,
      amount_due = EXCLUDED.amount_due, amount_paid = EXCLUDED.amount_paid, fully_paid_on = EXCLUDED.fully_paid_on,
      updated_utc = EXCLUDED.updated_utc, synced_at = now()
    RETURNING 1)
)sql";

constexpr std::string_view kUpsertPayments = R"sql(
  WITH page AS (SELECT $1::jsonb AS b),
  stored AS (
    INSERT INTO accounting_payments (tenant_id, id, invoice_id, payment_type, status, payment_date, amount,
                                     currency_rate, reference, updated_utc, synced_at)
    SELECT $2::uuid, r."PaymentID", (r."Invoice" ->> 'InvoiceID')::uuid, r."PaymentType", r."Status",
           xero_day(NULL, r."Date"), coalesce(r."Amount", 0), coalesce(nullif(r."CurrencyRate", 0), 1), r."Reference",
           xero_instant(r."UpdatedDateUTC"), now()
    FROM page, jsonb_to_recordset(coalesce(page.b -> $3, '[]')) AS r("PaymentID" uuid, "Invoice" jsonb,
         "PaymentType" text, "Status" text, "Date" text, "Amount" numeric, "CurrencyRate" numeric, "Reference" text,
         "UpdatedDateUTC" text)
    WHERE r."PaymentID" IS NOT NULL
    ON CONFLICT (tenant_id, id) DO UPDATE SET invoice_id = EXCLUDED.invoice_id, payment_type = EXCLUDED.payment_type,
      status = EXCLUDED.status, payment_date = EXCLUDED.payment_date, amount = EXCLUDED.amount,
      currency_rate = EXCLUDED.currency_rate, reference = EXCLUDED.reference, updated_utc = EXCLUDED.updated_utc,
      synced_at = now()
    RETURNING 1)
)sql";

constexpr std::string_view kTenant = "SELECT tenant_id::text FROM accounting_connection";
constexpr std::string_view kMarks = "SELECT count(*) FROM sync_watermarks WHERE entity_type LIKE $1 || '%'";
constexpr std::string_view kBaseCurrency = R"sql(
  UPDATE accounting_connection SET base_currency = coalesce($1::jsonb #>> '{Organisations,0,BaseCurrency}', base_currency)
  WHERE tenant_id = $2::uuid
)sql";

struct List {
  const char* name;   // Xero's: the path and the envelope's key
  const char* where;  // Xero's `where` filter, or empty
  std::string_view upsert;
  const char* table;
};

const List kLists[] = {
    {"Contacts", "", kUpsertContacts, "accounting_contacts"},
    {"Invoices", "Type==\"ACCREC\"", kUpsertInvoices, "accounting_invoices"},
    {"Payments", "PaymentType==\"ACCRECPAYMENT\"", kUpsertPayments, "accounting_payments"},
};

std::string mark_prefix(const std::string& tenant) { return "accounting:" + tenant + ":"; }

}  // namespace

AccountingSync::AccountingSync(core::db::Pool& db, boost::asio::any_io_executor executor,
                               std::shared_ptr<AccountingConnection> connection)
    : db_(db), executor_(std::move(executor)), connection_(std::move(connection)) {}

awaitable<bool> AccountingSync::start(bool full) {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return false;
  boost::asio::co_spawn(executor_, run_locked(std::move(*lock), full), boost::asio::detached);
  co_return true;
}

awaitable<bool> AccountingSync::running() {
  co_return co_await core::db::advisory_lock_held(db_, std::string(kSyncLock));
}

awaitable<void> AccountingSync::run_locked(core::db::AdvisoryLock lock, bool full) {
  const auto self = shared_from_this();  // alive while the run is in the background
  try {
    const auto tenants = co_await db_.query(kTenant);
    const std::string tenant = tenants.empty() ? "" : std::string(tenants.front().text(0));
    if (!tenant.empty() && !full) {
      const auto marks = co_await db_.query(kMarks, mark_prefix(tenant));
      full = marks.front().get<std::int64_t>(0) < static_cast<std::int64_t>(std::size(kLists));
    }
    co_await recorded_run(
        db_, std::string(kSyncLock), "accounting", full ? "full" : "incremental",
        [this, tenant, full](json& counts) -> awaitable<void> { co_await pull(tenant, full, counts); });
  } catch (const std::exception& e) {
    core::log::warn("accounting sync failed", {{"error", e.what()}});
  }
  co_await lock.release();
}

awaitable<void> AccountingSync::pull(std::string tenant, bool full, json& counts) {
  if (tenant.empty()) throw not_connected();
  co_await db_.query(kBaseCurrency, co_await connection_->get("Organisation", ""), tenant);
  for (const auto& list : kLists) {
    const std::string mark = mark_prefix(tenant) + list.name;
    std::string since;  // If-Modified-Since as Xero takes it: UTC without a zone, "2026-11-01T09:30:00"
    if (!full)
      if (const auto at = co_await read_watermark(db_, mark)) since = at->substr(0, 19);
    if (!since.empty()) counts["modifiedSince"][list.name] = since;
    std::string query = "&order=" + core::url_encode("UpdatedDateUTC ASC");
    if (*list.where) query += "&where=" + core::url_encode(list.where);
    const std::string statement = std::string(list.upsert) + std::string(kPageTail);
    std::int64_t read = 0, written = 0;
    std::optional<std::string> server_time;
    for (int page = 1;; ++page) {
      std::string body =
          co_await connection_->get(list.name + std::string("?page=") + std::to_string(page) + query, since);
      const auto rows = co_await db_.query(statement, std::move(body), tenant, std::string(list.name));
      const auto& r = rows.front();
      const auto items = r.get<std::int64_t>(0);
      read += items;
      written += r.get<std::int64_t>(1);
      counts[list.name] = read;
      if (page == 1 && !r.is_null(3)) server_time = std::string(r.text(3));
      const auto page_count = r.get<std::int64_t>(2);
      if (items < kPageSize || (page_count > 0 && page >= page_count)) break;
    }
    if (server_time) co_await advance_watermark(db_, mark, *server_time);
    co_await analyze_after_bulk_write(db_, list.table, written);
  }
}

}  // namespace ops_console::accounting

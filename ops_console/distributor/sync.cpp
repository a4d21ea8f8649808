#include "ops_console/distributor/sync.hpp"

#include "core/async/join.hpp"
#include "core/async/semaphore.hpp"
#include "core/log/log.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <chrono>
#include <cmath>

namespace ops_console::distributor {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::size_t kItemCallsAtOnce = 4;         // invoices whose items are read at once
constexpr std::size_t kInvoicesPerStatement = 100;  // invoices whose items are stored in one statement

constexpr std::string_view kNow = "SELECT now()::text";

// The page upserts take a page's body as Pax8 sent it ($1: {content, page}), fields by Pax8's
// names, and answer the page's totalPages, how many items it held, and how many rows they wrote.
constexpr std::string_view kUpsertCompanies = R"sql(
  WITH stored AS (
    INSERT INTO distributor_companies (id, name, status, external_id, updated_date, synced_at, deleted_at)
    SELECT r.id, r.name, r.status, r."externalId", r."updatedDate", now(), NULL
    FROM jsonb_to_recordset($1::jsonb -> 'content')
      AS r(id uuid, name text, status text, "externalId" text, "updatedDate" timestamptz)
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, external_id = EXCLUDED.external_id,
      updated_date = EXCLUDED.updated_date, synced_at = now(), deleted_at = NULL
    RETURNING 1)
  SELECT coalesce(($1::jsonb -> 'page' ->> 'totalPages')::int, 0), jsonb_array_length(coalesce($1::jsonb -> 'content', '[]')),
         (SELECT count(*) FROM stored)
)sql";

constexpr std::string_view kUpsertSubscriptions = R"sql(
  WITH stored AS (
    INSERT INTO distributor_subscriptions (id, company_id, product_id, product_name, quantity, status, billing_term,
                                           price, partner_cost, currency_code, start_date, end_date, synced_at,
                                           deleted_at)
    SELECT r.id, r."companyId", r."productId", r."productName", r.quantity, r.status, r."billingTerm", r.price,
           r."partnerCost", r."currencyCode", r."startDate", r."endDate", now(), NULL
    FROM jsonb_to_recordset($1::jsonb -> 'content') AS r(id uuid, "companyId" uuid, "productId" text,
         "productName" text, quantity numeric, status text, "billingTerm" text, price numeric, "partnerCost" numeric,
         "currencyCode" text, "startDate" timestamptz, "endDate" timestamptz)
    ON CONFLICT (id) DO UPDATE SET company_id = EXCLUDED.company_id, product_id = EXCLUDED.product_id,
      product_name = EXCLUDED.product_name, quantity = EXCLUDED.quantity, status = EXCLUDED.status,
      billing_term = EXCLUDED.billing_term, price = EXCLUDED.price, partner_cost = EXCLUDED.partner_cost,
      currency_code = EXCLUDED.currency_code, start_date = EXCLUDED.start_date, end_date = EXCLUDED.end_date,
      synced_at = now(), deleted_at = NULL
    RETURNING 1)
  SELECT coalesce(($1::jsonb -> 'page' ->> 'totalPages')::int, 0), jsonb_array_length(coalesce($1::jsonb -> 'content', '[]')),
         (SELECT count(*) FROM stored)
)sql";

// The items of many invoices: $1 [{invoice, company, date, page: the items page as Pax8 sent it}].
constexpr std::string_view kUpsertInvoiceItems = R"sql(
  INSERT INTO distributor_items (kind, id, parent_id, company_id, subscription_id, product_id, product_name,
                                 description, quantity, price, cost, cost_total, total, start_period, end_period,
                                 item_date, synced_at, deleted_at)
  SELECT 'invoice', coalesce(r.id, (g ->> 'invoice') || ':' || n), g ->> 'invoice',
         coalesce(r."companyId", (g ->> 'company')::uuid), r."subscriptionId", r."productId", r."productName",
         r.description, r.quantity, r.price, r.cost, r."costTotal", r.total, r."startPeriod", r."endPeriod",
         (g ->> 'date')::timestamptz, now(), NULL
  FROM jsonb_array_elements($1::jsonb) AS g,
       jsonb_array_elements(coalesce(g -> 'page' -> 'content', '[]'::jsonb)) WITH ORDINALITY AS e(item, n),
       jsonb_to_record(e.item) AS r(id text, "companyId" uuid, "subscriptionId" uuid, "productId" text,
       "productName" text, description text, quantity numeric, price numeric, cost numeric, "costTotal" numeric,
       total numeric, "startPeriod" timestamptz, "endPeriod" timestamptz)
  ON CONFLICT (kind, id) DO UPDATE SET parent_id = EXCLUDED.parent_id, company_id = EXCLUDED.company_id,
    subscription_id = EXCLUDED.subscription_id, product_id = EXCLUDED.product_id,
    product_name = EXCLUDED.product_name, description = EXCLUDED.description, quantity = EXCLUDED.quantity,
    price = EXCLUDED.price, cost = EXCLUDED.cost, cost_total = EXCLUDED.cost_total, total = EXCLUDED.total,
    start_period = EXCLUDED.start_period, end_period = EXCLUDED.end_period, item_date = EXCLUDED.item_date,
    synced_at = now(), deleted_at = NULL
)sql";

// A page of orders, each with its lineItems.
constexpr std::string_view kUpsertOrderItems = R"sql(
  WITH stored AS (
    INSERT INTO distributor_items (kind, id, parent_id, company_id, subscription_id, product_id, quantity, item_date,
                                   synced_at, deleted_at)
    SELECT 'order', coalesce(li ->> 'id', (o ->> 'id') || ':' || n), o ->> 'id', (o ->> 'companyId')::uuid,
           nullif(li ->> 'subscriptionId', '')::uuid, li ->> 'productId', (li ->> 'quantity')::numeric,
           (o ->> 'createdDate')::timestamptz, now(), NULL
    FROM jsonb_array_elements($1::jsonb -> 'content') AS o,
         jsonb_array_elements(coalesce(o -> 'lineItems', '[]'::jsonb)) WITH ORDINALITY AS l(li, n)
    ON CONFLICT (kind, id) DO UPDATE SET parent_id = EXCLUDED.parent_id, company_id = EXCLUDED.company_id,
      subscription_id = EXCLUDED.subscription_id, product_id = EXCLUDED.product_id, quantity = EXCLUDED.quantity,
      item_date = EXCLUDED.item_date, synced_at = now(), deleted_at = NULL
    RETURNING 1)
  SELECT coalesce(($1::jsonb -> 'page' ->> 'totalPages')::int, 0), jsonb_array_length(coalesce($1::jsonb -> 'content', '[]')),
         (SELECT count(*) FROM stored)
)sql";

// What this run did not see ($1: when it started) is gone at the distributor.
constexpr std::string_view kSoftDelete = R"sql(
  WITH companies AS (
    UPDATE distributor_companies SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
    RETURNING 1),
  subscriptions AS (
    UPDATE distributor_subscriptions SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
    RETURNING 1),
  items AS (
    UPDATE distributor_items SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
    RETURNING 1)
  SELECT (SELECT count(*) FROM companies), (SELECT count(*) FROM subscriptions), (SELECT count(*) FROM items)
)sql";

// Every distributor company not matched yet and without a resolved review: matched when its
// normalised name is exactly one PSA company's, else (re)given a review with up to five
// candidates, nearest first. Answers how many were matched, reviews opened, and reviews kept open.
constexpr std::string_view kMatch = R"sql(
  WITH open AS (
    SELECT d.id, d.normalised_name AS norm
    FROM distributor_companies d
    WHERE d.deleted_at IS NULL AND d.matched_company_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM distributor_company_matches m WHERE m.distributor_company_id = d.id AND m.resolved)),
  exact AS (
    SELECT o.id, min(c.id) AS company_id
    FROM open o JOIN companies c ON c.normalised_name = o.norm AND c.deleted_at IS NULL
    GROUP BY o.id HAVING count(*) = 1),
  matched AS (
    UPDATE distributor_companies d SET matched_company_id = e.company_id, match_method = 'exact', matched_at = now()
    FROM exact e WHERE d.id = e.id
    RETURNING d.id),
  settled AS (
    DELETE FROM distributor_company_matches m USING matched WHERE m.distributor_company_id = matched.id AND NOT m.resolved
    RETURNING 1),
  reviewed AS (
    INSERT INTO distributor_company_matches AS m (distributor_company_id, candidates)
    SELECT o.id, coalesce((
      SELECT jsonb_agg(jsonb_build_object('companyId', k.id, 'name', k.company_name,
                                          'confidence', round(similarity(k.normalised_name, o.norm)::numeric, 2))
                       ORDER BY k.distance, k.id)
      FROM (SELECT c.id, c.company_name, c.normalised_name, c.normalised_name <-> o.norm AS distance
            FROM companies c WHERE c.deleted_at IS NULL
            ORDER BY c.normalised_name <-> o.norm  -- the GiST index, nearest first
            LIMIT 5) k
      WHERE k.distance < 1), '[]'::jsonb)
    FROM open o WHERE NOT EXISTS (SELECT 1 FROM exact e WHERE e.id = o.id)
    ON CONFLICT (distributor_company_id) DO UPDATE SET candidates = EXCLUDED.candidates, updated_at = now()
      WHERE NOT m.resolved
    RETURNING (xmax = 0) AS opened)
  SELECT (SELECT count(*) FROM matched), (SELECT count(*) FROM reviewed WHERE opened), (SELECT count(*) FROM reviewed),
         (SELECT count(*) FROM settled)
)sql";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kStatus = R"sql(
  SELECT json_build_object(
    'counts', json_build_object(
      'companies', (SELECT count(*) FROM distributor_companies WHERE deleted_at IS NULL),
      'subscriptions', (SELECT count(*) FROM distributor_subscriptions WHERE deleted_at IS NULL),
      'items', (SELECT count(*) FROM distributor_items WHERE deleted_at IS NULL)),
    'history', (SELECT coalesce(json_agg(sync_history_json(h) ORDER BY h.started_at DESC, h.id DESC), '[]'::json)
                FROM (SELECT * FROM sync_history WHERE entity_type = 'distributor'
                      ORDER BY started_at DESC, id DESC LIMIT 10) h))
)sql";

}  // namespace

DistributorSync::DistributorSync(core::db::Pool& db, boost::asio::any_io_executor executor,
                                 std::shared_ptr<Pax8Client> client)
    : db_(db), executor_(std::move(executor)), client_(std::move(client)) {}

awaitable<bool> DistributorSync::start() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return false;
  boost::asio::co_spawn(executor_, run_locked(std::move(*lock)), boost::asio::detached);
  co_return true;
}

awaitable<void> DistributorSync::run_locked(core::db::AdvisoryLock lock) {
  const auto self = shared_from_this();  // alive while the run is in the background
  try {
    co_await recorded_run(db_, std::string(kSyncLock), "distributor", "distributor",
                          [this](json& counts) -> awaitable<void> { co_await full_sync(counts); });
  } catch (const std::exception& e) {
    core::log::warn("distributor sync failed", {{"error", e.what()}});
  }
  co_await lock.release();
}

awaitable<json> sync_status(core::db::Pool& db) {
  const bool running = co_await core::db::advisory_lock_held(db, std::string(kSyncLock));
  const auto rows = co_await db.query(kStatus);
  json out = json::parse(rows.front().text(0));
  out["inProgress"] = running;
  co_return out;
}

awaitable<void> DistributorSync::full_sync(json& counts) {
  const std::string started = std::string((co_await db_.query(kNow)).front().text(0));
  std::int64_t companies = 0, subscriptions = 0, invoice_items = 0, order_items = 0;
  json invoices = json::array();
  // How long each step took, in the run's counts: where a slow run spent its time.
  auto step_started = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 100) / 100;
  };
  const auto took = [&](const char* step) {
    counts["seconds"][step] = seconds_since(step_started);
    step_started = std::chrono::steady_clock::now();
  };
  // A step side by side with the ANALYZE of the table the step before wrote
  // (analyze_after_bulk_write): PostgreSQL's work and the distributor's reads overlap.
  double analyzing = 0;
  const auto beside_analyze = [&](std::string_view table, std::int64_t rows,
                                  std::function<awaitable<void>()> step) -> awaitable<void> {
    std::vector<std::function<awaitable<void>()>> both;
    both.push_back([&, table, rows]() -> awaitable<void> {
      const auto t = std::chrono::steady_clock::now();
      co_await analyze_after_bulk_write(db_, table, rows);
      analyzing += seconds_since(t);
    });
    both.push_back(std::move(step));
    co_await core::async::join_all(executor_, std::move(both));
  };

  // A page's body goes to PostgreSQL as it came: jsonb parses it once, the console not at all.
  // Each list is stored in one transaction: a commit per list, not per page.
  const auto store_list = [this](std::string path, std::string_view sql, std::int64_t& written,
                                 json& count) -> awaitable<void> {
    auto tx = co_await db_.begin();
    co_await client_->each_raw_page(
        std::move(path), {}, [&tx, sql, &written, &count](std::string body) -> awaitable<Pax8Client::RawPageSeen> {
          const auto rows = co_await tx.query(sql, std::move(body));
          written += rows.front().get<std::int64_t>(2);
          count = written;
          co_return Pax8Client::RawPageSeen{.total_pages = static_cast<int>(rows.front().get<std::int64_t>(0)),
                                            .items = rows.front().get<std::int64_t>(1)};
        });
    co_await tx.commit();
  };
  json& company_count = counts["companies"];
  json& subscription_count = counts["subscriptions"];
  json& order_count = counts["orderItems"];
  co_await store_list("/v1/companies", kUpsertCompanies, companies, company_count);
  took("companies");
  co_await beside_analyze("distributor_companies", companies, [&]() -> awaitable<void> {
    co_await store_list("/v1/subscriptions", kUpsertSubscriptions, subscriptions, subscription_count);
  });
  took("subscriptions");
  // Invoices (and their items) and orders are independent: read side by side.
  double invoices_took = 0, orders_took = 0;
  co_await beside_analyze("distributor_subscriptions", subscriptions, [&]() -> awaitable<void> {
    std::vector<std::function<awaitable<void>()>> both;
    both.push_back([&]() -> awaitable<void> {
      const auto t = std::chrono::steady_clock::now();
      co_await client_->each_page("/v1/invoices", {}, [&](json page) -> awaitable<void> {
        for (auto& invoice : page) invoices.push_back(std::move(invoice));
        co_return;
      });
      auto tx = co_await db_.begin();
      co_await sync_invoice_items(tx, invoices, invoice_items);
      co_await tx.commit();
      invoices_took = seconds_since(t);
    });
    both.push_back([&]() -> awaitable<void> {
      const auto t = std::chrono::steady_clock::now();
      co_await store_list("/v1/orders", kUpsertOrderItems, order_items, order_count);
      orders_took = seconds_since(t);
    });
    co_await core::async::join_all(executor_, std::move(both));
  });
  counts["invoices"] = invoices.size();
  counts["invoiceItems"] = invoice_items;
  took("invoicesAndOrders");
  counts["seconds"]["invoices"] = invoices_took;
  counts["seconds"]["orders"] = orders_took;

  const auto deleted = co_await db_.query(kSoftDelete, started);
  counts["softDeleted"] = {{"companies", deleted.front().get<std::int64_t>(0)},
                           {"subscriptions", deleted.front().get<std::int64_t>(1)},
                           {"items", deleted.front().get<std::int64_t>(2)}};
  took("softDelete");
  json matching;
  co_await beside_analyze("distributor_items", invoice_items + order_items, [&]() -> awaitable<void> {
    const auto matched = co_await db_.query(kMatch);
    matching = {{"exact", matched.front().get<std::int64_t>(0)},
                {"reviewsOpened", matched.front().get<std::int64_t>(1)},
                {"reviewsOpen", matched.front().get<std::int64_t>(2)}};
  });
  counts["matching"] = std::move(matching);
  took("matching");
  counts["seconds"]["analyze"] = analyzing;  // beside the steps, not after them
}

// Each invoice's items: the invoices in groups, each group's items read a few invoices at once
// and stored in one statement. The item pages are not parsed here: each goes into the group's
// JSON text as Pax8 sent it, beside its invoice's id, company and date.
awaitable<void> DistributorSync::sync_invoice_items(core::db::Transaction& tx, const json& invoices,
                                                    std::int64_t& stored) {
  for (std::size_t first = 0; first < invoices.size(); first += kInvoicesPerStatement) {
    const std::size_t last = std::min(invoices.size(), first + kInvoicesPerStatement);
    core::async::Semaphore slots(kItemCallsAtOnce);
    std::vector<std::string> pages_of(last - first);  // each read fills its own slot: ",{...}" per page
    std::vector<std::function<awaitable<void>()>> reads;
    for (std::size_t i = first; i < last; ++i) {
      const json& invoice = invoices[i];
      if (!invoice.contains("id")) continue;
      reads.push_back([this, &slots, &slot = pages_of[i - first], &invoice]() -> awaitable<void> {
        auto permit = co_await slots.acquire();
        const std::string id = invoice["id"].is_string() ? invoice["id"].get<std::string>() : invoice["id"].dump();
        const std::string meta = json{{"invoice", id},
                                      {"company", invoice.value("companyId", json(nullptr))},
                                      {"date", invoice.value("invoiceDate", json(nullptr))}}
                                     .dump();
        co_await client_->each_raw_page(
            "/v1/invoices/" + id + "/items", {},
            [&slot, &meta](std::string body) -> awaitable<Pax8Client::RawPageSeen> {
              // {"invoice":…,"company":…,"date":…,"page":<body>}; the page's size is read back by the statement
              slot += "," + meta.substr(0, meta.size() - 1) + ",\"page\":" + body + "}";
              const auto page = json::parse(body, nullptr, false);  // small: one invoice's items
              if (!page.is_object() || !page.contains("content") || !page["content"].is_array())
                throw DistributorError("the distributor answered an invoice's items without content");
              co_return Pax8Client::RawPageSeen{
                  .total_pages = page.contains("page") ? page["page"].value("totalPages", 0) : 0,
                  .items = static_cast<std::int64_t>(page["content"].size())};
            });
      });
    }
    co_await core::async::join_all(executor_, std::move(reads));
    std::string group = "[";
    for (const auto& pages : pages_of) group += pages.empty() ? "" : pages.substr(group.size() == 1 ? 1 : 0);
    group += "]";
    if (group.size() > 2) stored += (co_await tx.query(kUpsertInvoiceItems, std::move(group))).affected();
  }
}

}  // namespace ops_console::distributor

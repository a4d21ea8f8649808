#include "ops_console/psa/sync.hpp"

#include "core/db/deadlock.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ops_console::psa {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::string_view kSyncLock = "ops-console: psa sync";
constexpr std::string_view kReconcileLock = "ops-console: psa reconcile";

// The ticket picklists the views label with, and the company classifications.
constexpr std::string_view kUpsertPicklist = R"sql(
  INSERT INTO psa_picklists (entity, field, value, label, is_active, sort_order, parent_value)
  SELECT $1, r.field, r.value, r.label, coalesce(r.is_active, true), coalesce(r.sort_order, 0), r.parent_value
  FROM jsonb_to_recordset($2::jsonb) AS r(field text, value integer, label text, is_active boolean,
                                          sort_order integer, parent_value integer)
  ON CONFLICT (entity, field, value) DO UPDATE
    SET label = EXCLUDED.label, is_active = EXCLUDED.is_active, sort_order = EXCLUDED.sort_order,
        parent_value = EXCLUDED.parent_value, synced_at = now()
)sql";
constexpr std::string_view kUpsertClassifications = R"sql(
  INSERT INTO company_classifications (id, label, is_active, sort_order)
  SELECT r.value, r.label, coalesce(r.is_active, true), coalesce(r.sort_order, 0)
  FROM jsonb_to_recordset($1::jsonb) AS r(value bigint, label text, is_active boolean, sort_order integer)
  ON CONFLICT (id) DO UPDATE
    SET label = EXCLUDED.label, is_active = EXCLUDED.is_active, sort_order = EXCLUDED.sort_order, synced_at = now()
  RETURNING id
)sql";
constexpr std::string_view kClassifications = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', id, 'label', label, 'is_active', is_active,
                                             'sort_order', sort_order) ORDER BY sort_order, id), '[]'::json)
  FROM company_classifications
)sql";

constexpr std::string_view kSoftDeleteTickets = R"sql(
  UPDATE tickets SET deleted_at = now(), synced_at = now() WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL
)sql";

// The reconciliation's selection (spec): not deleted, status not 5, synced over 7 days ago, at
// most 500, oldest first.
constexpr std::string_view kStaleTickets = R"sql(
  SELECT id FROM tickets
  WHERE deleted_at IS NULL AND status IS DISTINCT FROM 5 AND synced_at < now() - make_interval(days => $1)
  ORDER BY synced_at, id
  LIMIT $2
)sql";

const std::vector<std::string_view> kTicketPicklists{"status",    "priority",     "queueID",
                                                     "issueType", "subIssueType", "source"};

// The newest last-modified value in the copy of `e`: the next run's watermark.
std::string newest_sql(const Entity& e) {
  for (const auto& f : e.fields)
    if (f.psa == e.modified) return "SELECT max(" + std::string(f.column) + ")::text FROM " + std::string(e.table);
  return "";
}

// An Autotask filter expression.
json condition(std::string_view op, std::string_view field, json value) {
  return {{"op", op}, {"field", field}, {"value", std::move(value)}};
}

// The picklist values of `field` in an entityInformation/fields answer, as rows for
// kUpsertPicklist.
json picklist_rows(const json& fields, std::string_view field) {
  json rows = json::array();
  for (const auto& f : fields) {
    if (!f.is_object() || !core::iequals(f.value("name", ""), field)) continue;
    const json values =
        f.contains("picklistValues") && f["picklistValues"].is_array() ? f["picklistValues"] : json::array();
    for (const auto& v : values) {
      // Autotask sends values as strings ("5"); "" stands for none.
      if (!v.is_object() || !v.contains("value") || v["value"] == "" || v["value"].is_null()) continue;
      json row{{"field", f.value("name", "")},
               {"value", v["value"]},
               {"label", v.value("label", "")},
               {"is_active", v.value("isActive", true)},
               {"sort_order", v.value("sortOrder", 0)}};
      if (v.contains("parentValue") && !v["parentValue"].is_null() && v["parentValue"] != "")
        row["parent_value"] = v["parentValue"];
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

json ReconcileResult::to_json() const {
  return {{"scanned", scanned},
          {"updated", updated},
          {"statusFlippedToComplete", status_flipped_to_complete},
          {"softDeleted", soft_deleted},
          {"errors", errors}};
}

PsaSync::PsaSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<AutotaskClient> psa,
                 PsaSettings settings)
    : db_(db), executor_(std::move(executor)), psa_(std::move(psa)), settings_(std::move(settings)) {}

awaitable<bool> PsaSync::start_incremental() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return false;
  boost::asio::co_spawn(executor_, sync_all(std::move(*lock)), boost::asio::detached);
  co_return true;
}

awaitable<bool> PsaSync::run_incremental() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kSyncLock));
  if (!lock) co_return false;
  co_await sync_all(std::move(*lock));
  co_return true;
}

// Every step in turn; one that fails is recorded (recorded()) and logged, and the others still run.
awaitable<void> PsaSync::sync_all(core::db::AdvisoryLock lock) {
  const auto self = shared_from_this();  // alive while the run is in the background
  std::vector<std::pair<std::string, std::function<awaitable<void>()>>> steps;
  steps.emplace_back("CompanyClassifications",
                     [this]() -> awaitable<void> { co_await sync_picklists(std::string(kSyncLock)); });
  for (const auto& entity : entities())
    steps.emplace_back(entity.name, [this, &entity]() -> awaitable<void> { co_await sync_entity(entity); });
  steps.emplace_back("DeletedTicketLogs", [this]() -> awaitable<void> { co_await sync_deleted_tickets(); });
  for (auto& [name, step] : steps) {
    try {
      co_await step();
    } catch (const std::exception& e) {
      core::log::warn("psa sync failed", {{"entity", name}, {"error", e.what()}});
    }
  }
  co_await lock.release();
}

// A sync_history row around `job` (ops_console/sync_history.hpp); a failure is rethrown as a
// PsaError, which the routes answer as 502.
awaitable<void> PsaSync::recorded(std::string held_lock, std::string entity_type, std::string kind, Job job) {
  std::string error;
  try {
    co_await recorded_run(db_, std::move(held_lock), std::move(entity_type), std::move(kind), std::move(job));
    co_return;
  } catch (const std::exception& x) {
    error = x.what();
  }
  throw PsaError(error);
}

awaitable<void> PsaSync::sync_entity(const Entity& e) {
  const std::string name(e.name);
  std::optional<std::string> since;
  if (!e.modified.empty()) {
    if (auto mark = co_await read_watermark(db_, name)) since = std::move(*mark);
  }
  json filter = json::array();
  if (since)
    filter.push_back(condition("gte", e.modified, *since));
  else if (e.name == "Tickets")  // the window, and every ticket still open whatever its age
    filter.push_back({{"op", "or"},
                      {"items",
                       {condition("gte", "lastActivityDate",
                                  core::format_rfc3339(core::now() - std::chrono::days(settings_.window_days))),
                        condition("noteq", "status", kCompleteStatus)}}});
  else
    filter.push_back(condition("gte", "id", 0));
  json query{{"Filter", std::move(filter)}, {"IncludeFields", e.include_fields()}};

  const std::string kind = since || e.modified.empty() ? "incremental" : "full";
  co_await recorded(std::string(kSyncLock), name, kind, [&](json& counts) -> awaitable<void> {
    std::int64_t upserted = 0;
    auto store = [&](json items) -> awaitable<void> {
      const json rows = to_rows(e, items);
      // A page deadlocked with another writer of its rows (the webhook intake's groups) is written again.
      const auto done = co_await core::db::retry_deadlocked([&] { return db_.query(e.upsert_sql, rows); });
      upserted += done.affected();
      counts["upserted"] = upserted;
    };
    counts["fetched"] = co_await psa_->query_all(name, std::move(query), store);
    counts["upserted"] = upserted;
    co_await analyze_after_bulk_write(db_, e.table, upserted);
    if (const auto newest_query = newest_sql(e); !newest_query.empty()) {
      const auto newest = co_await db_.query(newest_query);
      if (!newest.front().is_null(0)) co_await advance_watermark(db_, name, std::string(newest.front().text(0)));
    }
  });
}

// Tickets deleted in the PSA since the last run, from its DeletedTicketLogs. The first run
// only sets the watermark: a copy made now holds no deleted ticket.
awaitable<void> PsaSync::sync_deleted_tickets() {
  const std::string name = "DeletedTicketLogs";
  const auto mark = co_await read_watermark(db_, name);
  if (!mark) {
    co_await advance_watermark(db_, name, core::format_rfc3339(core::now()));
    co_return;
  }
  json filter = json::array({condition("gte", "deletedDateTime", *mark)});
  json query{{"Filter", std::move(filter)}, {"IncludeFields", {"id", "ticketID", "deletedDateTime"}}};
  co_await recorded(std::string(kSyncLock), name, "incremental", [&](json& counts) -> awaitable<void> {
    std::vector<std::string> ids;
    std::optional<core::Timestamp> newest;
    auto collect = [&](json items) -> awaitable<void> {
      for (const auto& item : items) {
        if (item.contains("ticketID") && item["ticketID"].is_number_integer())
          ids.push_back(std::to_string(item["ticketID"].get<std::int64_t>()));
        const auto at = core::parse_rfc3339(item.value("deletedDateTime", ""));
        if (at && (!newest || *at > *newest)) newest = at;
      }
      co_return;
    };
    co_await psa_->query_all(name, std::move(query), collect);
    const auto deleted = co_await core::db::retry_deadlocked([&] { return db_.query(kSoftDeleteTickets, ids); });
    if (newest) co_await advance_watermark(db_, name, core::format_rfc3339(*newest));
    counts = {{"fetched", ids.size()}, {"deleted", deleted.affected()}};
  });
}

// The company classification picklist and the ticket picklists the views label with.
awaitable<void> PsaSync::sync_picklists(std::string held_lock) {
  co_await recorded(std::move(held_lock), "CompanyClassifications", "classifications",
                    [&](json& counts) -> awaitable<void> {
                      const json company_fields = co_await psa_->fields("Companies");
                      const json classifications = picklist_rows(company_fields, "classification");
                      const auto stored = co_await db_.query(kUpsertClassifications, classifications);
                      const json ticket_fields = co_await psa_->fields("Tickets");
                      json ticket_rows = json::array();
                      for (const auto field : kTicketPicklists)
                        for (auto& row : picklist_rows(ticket_fields, field)) ticket_rows.push_back(std::move(row));
                      co_await db_.query(kUpsertPicklist, "Tickets", ticket_rows);
                      counts = {{"classifications", stored.size()}, {"ticket_picklist_values", ticket_rows.size()}};
                    });
}

awaitable<json> PsaSync::sync_classifications() {
  co_await sync_picklists("");  // the administrator's re-read, under no lock
  co_return co_await classifications();
}

awaitable<json> PsaSync::classifications() {
  const auto listed = co_await db_.query(kClassifications);
  co_return json::parse(listed.front().text(0));
}

awaitable<std::optional<ReconcileResult>> PsaSync::reconcile() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kReconcileLock));
  if (!lock) co_return std::nullopt;
  // The pass runs on its own: a caller that hangs up does not stop it half-way. The caller waits
  // for its result.
  auto result = co_await boost::asio::co_spawn(executor_, reconcile_pass(), boost::asio::use_awaitable);
  co_await lock->release();
  co_return result;
}

awaitable<ReconcileResult> PsaSync::reconcile_pass() {
  const auto self = shared_from_this();
  const Entity& tickets = *entity_named("Tickets");
  ReconcileResult r;
  co_await recorded(std::string(kReconcileLock), "Tickets", "reconcile", [&](json& counts) -> awaitable<void> {
    const auto stale = co_await db_.query(kStaleTickets, kStaleAfterDays, kReconcileLimit);
    for (const auto& row : stale) {
      const auto id = row.get<std::int64_t>(0);
      ++r.scanned;
      try {
        const auto found = co_await psa_->get("Tickets", id);
        if (!found) {
          co_await db_.query(tickets.delete_sql, id);
          ++r.soft_deleted;
          continue;
        }
        const json rows = json::array({to_row(tickets, *found)});
        co_await db_.query(tickets.upsert_sql, rows);
        ++r.updated;
        const auto status = found->find("status");
        if (status != found->end() && status->is_number_integer() && status->get<int>() == kCompleteStatus)
          ++r.status_flipped_to_complete;
      } catch (const PsaError& e) {
        ++r.errors;
        core::log::warn("reconciliation could not refresh a ticket", {{"ticket", id}, {"error", e.what()}});
      }
    }
    counts = r.to_json();
  });
  co_return r;
}

}  // namespace ops_console::psa

#include "ops_console/access_gateway/sync.hpp"

#include "core/util/strings.hpp"
#include "ops_console/sync_history.hpp"

namespace ops_console::access_gateway {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::string_view kGatewayNow = "SELECT now()::text";

// A page of applications ($1: result as Cloudflare sent it); answers their ids.
constexpr std::string_view kUpsertApps = R"sql(
  INSERT INTO access_gateway_apps AS a (id, name, domain, app_type, session_duration, vendor_updated_at, synced_at,
                                        deleted_at)
  SELECT r.id, r.name, r.domain, r.type, r.session_duration, r.updated_at, now(), NULL
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, name text, domain text, type text, session_duration text,
                                          updated_at timestamptz)
  WHERE r.id IS NOT NULL AND r.name IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, domain = EXCLUDED.domain, app_type = EXCLUDED.app_type,
    session_duration = EXCLUDED.session_duration, vendor_updated_at = EXCLUDED.vendor_updated_at, synced_at = now(),
    deleted_at = NULL
  RETURNING a.id
)sql";

// $1: the application, $2: its policies as Cloudflare sent them (every page).
constexpr std::string_view kUpsertPolicies = R"sql(
  INSERT INTO access_gateway_policies AS p (app_id, id, name, decision, precedence, include, exclude, require, synced_at)
  SELECT $1, r.id, r.name, r.decision, r.precedence, coalesce(r.include, '[]'), coalesce(r.exclude, '[]'),
         coalesce(r.require, '[]'), now()
  FROM jsonb_to_recordset($2::jsonb) AS r(id text, name text, decision text, precedence integer, include jsonb,
                                          exclude jsonb, require jsonb)
  WHERE r.id IS NOT NULL AND r.decision IS NOT NULL
  ON CONFLICT (app_id, id) DO UPDATE SET name = EXCLUDED.name, decision = EXCLUDED.decision,
    precedence = EXCLUDED.precedence, include = EXCLUDED.include, exclude = EXCLUDED.exclude,
    require = EXCLUDED.require, synced_at = now()
)sql";

// The policies of $1 this run did not see ($2: when it started).
constexpr std::string_view kDropStalePolicies =
    "DELETE FROM access_gateway_policies WHERE app_id = $1 AND synced_at < $2::timestamptz";

constexpr std::string_view kSoftDeleteApps = R"sql(
  WITH gone AS (UPDATE access_gateway_apps SET deleted_at = now()
                WHERE synced_at < $1::timestamptz AND deleted_at IS NULL RETURNING 1)
  SELECT count(*) FROM gone
)sql";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kGatewayStatus = R"sql(
  SELECT json_build_object(
    'applications', (SELECT count(*) FROM access_gateway_apps WHERE deleted_at IS NULL),
    'history', (SELECT coalesce(json_agg(sync_history_json(h) ORDER BY h.started_at DESC, h.id DESC), '[]'::json)
                FROM (SELECT * FROM sync_history WHERE entity_type = 'access_gateway'
                      ORDER BY started_at DESC, id DESC LIMIT 10) h))
)sql";

}  // namespace

AccessGatewaySync::AccessGatewaySync(core::db::Pool& db, boost::asio::any_io_executor executor,
                                     std::shared_ptr<CloudflareAccessClient> client)
    : db_(db), executor_(std::move(executor)), client_(std::move(client)) {}

awaitable<bool> AccessGatewaySync::start() {
  return start_locked_run(db_, executor_, std::string(kAccessGatewaySyncLock), "access_gateway", "full",
                          [self = shared_from_this()](json& counts) { return self->full_sync(counts); });
}

awaitable<json> access_gateway_sync_status(core::db::Pool& db) {
  return locked_sync_status(db, std::string(kAccessGatewaySyncLock), kGatewayStatus);
}

awaitable<void> AccessGatewaySync::full_sync(json& counts) {
  const std::string started = std::string((co_await db_.query(kGatewayNow)).front().text(0));
  std::vector<std::string> apps;
  co_await client_->each_page("/access/apps", [&](json result) -> awaitable<void> {
    const auto rows = co_await db_.query(kUpsertApps, result.dump());
    for (const auto& row : rows) apps.emplace_back(row.text(0));
  });
  counts["applications"] = apps.size();
  std::int64_t policies = 0;
  for (const auto& app : apps) {
    json all = json::array();
    co_await client_->each_page("/access/apps/" + core::url_encode(app) + "/policies",
                                [&](json result) -> awaitable<void> {
                                  for (auto& p : result) all.push_back(std::move(p));
                                  co_return;
                                });
    policies += static_cast<std::int64_t>(all.size());
    co_await db_.query(kUpsertPolicies, app, all.dump());
    co_await db_.query(kDropStalePolicies, app, started);
  }
  counts["policies"] = policies;
  const auto deleted = co_await db_.query(kSoftDeleteApps, started);
  counts["applicationsDeleted"] = deleted.front().get<std::int64_t>(0);
}

}  // namespace ops_console::access_gateway

#include "ops_console/rmm/sync.hpp"

#include "core/log/log.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace ops_console::rmm {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::string_view kRmmNow = "SELECT now()::text";

// $1: /clients/ as Tactical sent it (each client with its sites).
constexpr std::string_view kUpsertRmmClients = R"sql(
  WITH c AS (
    INSERT INTO rmm_clients AS t (id, name, synced_at, deleted_at)
    SELECT r.id, r.name, now(), NULL FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, synced_at = now(), deleted_at = NULL
    RETURNING 1),
  s AS (
    INSERT INTO rmm_sites AS t (id, client_id, name, synced_at, deleted_at)
    SELECT (site->>'id')::bigint, (site->>'client')::bigint, site->>'name', now(), NULL
    FROM jsonb_array_elements($1::jsonb) AS client, jsonb_array_elements(coalesce(client->'sites', '[]')) AS site
    WHERE site->>'id' IS NOT NULL AND site->>'name' IS NOT NULL AND site->>'client' IS NOT NULL
    ON CONFLICT (id) DO UPDATE SET client_id = EXCLUDED.client_id, name = EXCLUDED.name, synced_at = now(),
      deleted_at = NULL
    RETURNING 1)
  SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM s)
)sql";

constexpr std::string_view kUpsertRmmAgents = R"sql(
  WITH a AS (
    INSERT INTO rmm_agents AS t (agent_id, hostname, client_name, site_name, plat, status, last_seen, synced_at,
                                 deleted_at)
    SELECT r.agent_id, r.hostname, r.client_name, r.site_name, r.plat, r.status, r.last_seen, now(), NULL
    FROM jsonb_to_recordset($1::jsonb) AS r(agent_id text, hostname text, client_name text, site_name text,
         plat text, status text, last_seen timestamptz)
    WHERE r.agent_id IS NOT NULL AND r.hostname IS NOT NULL
    ON CONFLICT (agent_id) DO UPDATE SET hostname = EXCLUDED.hostname, client_name = EXCLUDED.client_name,
      site_name = EXCLUDED.site_name, plat = EXCLUDED.plat, status = EXCLUDED.status,
      last_seen = EXCLUDED.last_seen, synced_at = now(), deleted_at = NULL
    RETURNING 1)
  SELECT count(*) FROM a
)sql";

constexpr std::string_view kUpsertRmmScripts = R"sql(
  WITH s AS (
    INSERT INTO rmm_scripts AS t (id, name, shell, category, default_timeout, synced_at, deleted_at)
    SELECT r.id, r.name, r.shell, r.category, r.default_timeout, now(), NULL
    FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text, shell text, category text, default_timeout integer)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, shell = EXCLUDED.shell, category = EXCLUDED.category,
      default_timeout = EXCLUDED.default_timeout, synced_at = now(), deleted_at = NULL
    RETURNING 1)
  SELECT count(*) FROM s
)sql";

constexpr std::string_view kRmmSoftDelete = R"sql(
  WITH c AS (UPDATE rmm_clients SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
             RETURNING 1),
       s AS (UPDATE rmm_sites SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
             RETURNING 1),
       a AS (UPDATE rmm_agents SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
             RETURNING 1),
       x AS (UPDATE rmm_scripts SET deleted_at = now() WHERE synced_at < $1::timestamptz AND deleted_at IS NULL
             RETURNING 1)
  SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM s) + (SELECT count(*) FROM a) + (SELECT count(*) FROM x)
)sql";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kRmmStatus = R"sql(
  SELECT json_build_object(
    'clients', (SELECT count(*) FROM rmm_clients WHERE deleted_at IS NULL),
    'agents', (SELECT count(*) FROM rmm_agents WHERE deleted_at IS NULL),
    'scripts', (SELECT count(*) FROM rmm_scripts WHERE deleted_at IS NULL),
    'history', (SELECT coalesce(json_agg(sync_history_json(h) ORDER BY h.started_at DESC, h.id DESC), '[]'::json)
                FROM (SELECT * FROM sync_history WHERE entity_type = 'rmm'
                      ORDER BY started_at DESC, id DESC LIMIT 10) h))
)sql";

}  // namespace

RmmSync::RmmSync(core::db::Pool& db, boost::asio::any_io_executor executor, std::shared_ptr<TacticalClient> client)
    : db_(db), executor_(std::move(executor)), client_(std::move(client)) {}

awaitable<bool> RmmSync::start() {
  auto lock = co_await core::db::try_advisory_lock(db_, std::string(kRmmSyncLock));
  if (!lock) co_return false;
  boost::asio::co_spawn(executor_, run_locked(std::move(*lock)), boost::asio::detached);
  co_return true;
}

awaitable<void> RmmSync::run_locked(core::db::AdvisoryLock lock) {
  const auto self = shared_from_this();
  try {
    co_await recorded_run(db_, "rmm", "full", [this](json& counts) -> awaitable<void> { co_await full_sync(counts); });
  } catch (const std::exception& e) {
    core::log::warn("remote-management sync failed", {{"error", e.what()}});
  }
  co_await lock.release();
}

awaitable<json> rmm_sync_status(core::db::Pool& db) {
  const bool running = co_await core::db::advisory_lock_held(db, std::string(kRmmSyncLock));
  const auto rows = co_await db.query(kRmmStatus);
  json out = json::parse(rows.front().text(0));
  out["inProgress"] = running;
  co_return out;
}

awaitable<void> RmmSync::full_sync(json& counts) {
  const std::string started = std::string((co_await db_.query(kRmmNow)).front().text(0));
  // Everything is read before anything is written: a failed read leaves the copy as it was.
  const json clients = co_await client_->list("/clients/");
  const json agents = co_await client_->list("/agents/");
  const json scripts = co_await client_->list("/scripts/");
  const auto c = co_await db_.query(kUpsertRmmClients, clients.dump());
  counts["clients"] = c.front().get<std::int64_t>(0);
  counts["sites"] = c.front().get<std::int64_t>(1);
  counts["agents"] = (co_await db_.query(kUpsertRmmAgents, agents.dump())).front().get<std::int64_t>(0);
  counts["scripts"] = (co_await db_.query(kUpsertRmmScripts, scripts.dump())).front().get<std::int64_t>(0);
  counts["deleted"] = (co_await db_.query(kRmmSoftDelete, started)).front().get<std::int64_t>(0);
}

}  // namespace ops_console::rmm

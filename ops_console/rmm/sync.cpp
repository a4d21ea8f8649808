#include "ops_console/rmm/sync.hpp"

#include "core/async/join.hpp"
#include "core/log/log.hpp"
#include "ops_console/sync_history.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ops_console::rmm {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// What the copy keeps of each list, the only fields read (core::json::kept_items): PostgreSQL
// parses a parameter whole when it is bound, and an agent of /agents/ has about 30 fields, of which
// the copy keeps 7.
const core::json::Kept kRmmClientsKept{.fields = {"id", "name", "sites"}, .nested = {"id", "client", "name"}};
const core::json::Kept kRmmAgentsKept{
    .fields = {"agent_id", "hostname", "client_name", "site_name", "plat", "status", "last_seen"}};
const core::json::Kept kRmmScriptsKept{.fields = {"id", "name", "shell", "category", "default_timeout"}};

// The whole copy in one statement ($1 /clients/ with their sites, $2 /agents/, $3 /scripts/, each
// trimmed), so that each list is parsed once, when it is bound. A row is written only when
// something it keeps changed or it comes back from deleted: the rows listed as they are stored are
// left out before the upsert (a hash anti-join), so an unchanged row is neither locked nor
// rewritten, and its synced_at says when a run last changed it. What the lists no longer hold is
// marked deleted. The counts are of the rows listed that the copy keeps, changed or not, then of
// the rows marked deleted. The upserts and the deletes touch different rows (listed or not), and
// all of them see the copy as it was before the statement.
constexpr std::string_view kRmmWriteCopy = R"sql(
  WITH listed_clients AS (
    SELECT r.id, r.name FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL),
  listed_sites AS (
    SELECT (site->>'id')::bigint AS id, (site->>'client')::bigint AS client_id, site->>'name' AS name
    FROM jsonb_array_elements($1::jsonb) AS client, jsonb_array_elements(coalesce(client->'sites', '[]')) AS site
    WHERE site->>'id' IS NOT NULL AND site->>'name' IS NOT NULL AND site->>'client' IS NOT NULL),
  listed_agents AS (
    SELECT r.* FROM jsonb_to_recordset($2::jsonb) AS r(agent_id text, hostname text, client_name text, site_name text,
                                                       plat text, status text, last_seen timestamptz)
    WHERE r.agent_id IS NOT NULL AND r.hostname IS NOT NULL),
  listed_scripts AS (
    SELECT r.* FROM jsonb_to_recordset($3::jsonb) AS r(id bigint, name text, shell text, category text,
                                                       default_timeout integer)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL),
  c AS (
    INSERT INTO rmm_clients AS t (id, name, synced_at, deleted_at)
    SELECT l.id, l.name, now(), NULL FROM listed_clients l
    WHERE NOT EXISTS (SELECT 1 FROM rmm_clients o WHERE o.id = l.id AND o.deleted_at IS NULL AND o.name = l.name)
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, synced_at = now(), deleted_at = NULL),
  s AS (
    INSERT INTO rmm_sites AS t (id, client_id, name, synced_at, deleted_at)
    SELECT l.id, l.client_id, l.name, now(), NULL FROM listed_sites l
    WHERE NOT EXISTS (SELECT 1 FROM rmm_sites o WHERE o.id = l.id AND o.deleted_at IS NULL
                        AND (o.client_id, o.name) = (l.client_id, l.name))
    ON CONFLICT (id) DO UPDATE SET client_id = EXCLUDED.client_id, name = EXCLUDED.name, synced_at = now(),
      deleted_at = NULL),
  a AS (
    INSERT INTO rmm_agents AS t (agent_id, hostname, client_name, site_name, plat, status, last_seen, synced_at,
                                 deleted_at)
    SELECT l.agent_id, l.hostname, l.client_name, l.site_name, l.plat, l.status, l.last_seen, now(), NULL
    FROM listed_agents l
    WHERE NOT EXISTS (SELECT 1 FROM rmm_agents o WHERE o.agent_id = l.agent_id AND o.deleted_at IS NULL
                        AND (o.hostname, o.client_name, o.site_name, o.plat, o.status, o.last_seen)
                            IS NOT DISTINCT FROM (l.hostname, l.client_name, l.site_name, l.plat, l.status, l.last_seen))
    ON CONFLICT (agent_id) DO UPDATE SET hostname = EXCLUDED.hostname, client_name = EXCLUDED.client_name,
      site_name = EXCLUDED.site_name, plat = EXCLUDED.plat, status = EXCLUDED.status,
      last_seen = EXCLUDED.last_seen, synced_at = now(), deleted_at = NULL),
  x AS (
    INSERT INTO rmm_scripts AS t (id, name, shell, category, default_timeout, synced_at, deleted_at)
    SELECT l.id, l.name, l.shell, l.category, l.default_timeout, now(), NULL FROM listed_scripts l
    WHERE NOT EXISTS (SELECT 1 FROM rmm_scripts o WHERE o.id = l.id AND o.deleted_at IS NULL
                        AND (o.name, o.shell, o.category, o.default_timeout)
                            IS NOT DISTINCT FROM (l.name, l.shell, l.category, l.default_timeout))
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, shell = EXCLUDED.shell, category = EXCLUDED.category,
      default_timeout = EXCLUDED.default_timeout, synced_at = now(), deleted_at = NULL),
  gone_clients AS (
    UPDATE rmm_clients SET deleted_at = now()
    WHERE deleted_at IS NULL AND id NOT IN (SELECT id FROM listed_clients) RETURNING 1),
  gone_sites AS (
    UPDATE rmm_sites SET deleted_at = now()
    WHERE deleted_at IS NULL AND id NOT IN (SELECT id FROM listed_sites) RETURNING 1),
  gone_agents AS (
    UPDATE rmm_agents SET deleted_at = now()
    WHERE deleted_at IS NULL AND agent_id NOT IN (SELECT agent_id FROM listed_agents) RETURNING 1),
  gone_scripts AS (
    UPDATE rmm_scripts SET deleted_at = now()
    WHERE deleted_at IS NULL AND id NOT IN (SELECT id FROM listed_scripts) RETURNING 1)
  SELECT (SELECT count(*) FROM listed_clients), (SELECT count(*) FROM listed_sites),
         (SELECT count(*) FROM listed_agents), (SELECT count(*) FROM listed_scripts),
         (SELECT count(*) FROM gone_clients) + (SELECT count(*) FROM gone_sites) + (SELECT count(*) FROM gone_agents)
           + (SELECT count(*) FROM gone_scripts)
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
    co_await recorded_run(db_, std::string(kRmmSyncLock), "rmm", "full",
                          [this](json& counts) -> awaitable<void> { co_await full_sync(counts); });
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
  // Four calls a run; one health write for them.
  const auto burst = client_->health_burst();
  // Everything is read before anything is written: a failed read leaves the copy as it was. The
  // three lists are read side by side: three requests either way.
  std::string clients, agents, scripts;
  std::vector<std::function<awaitable<void>()>> reads;
  reads.push_back([&]() -> awaitable<void> { clients = co_await client_->list_text("/clients/", kRmmClientsKept); });
  reads.push_back([&]() -> awaitable<void> { agents = co_await client_->list_text("/agents/", kRmmAgentsKept); });
  reads.push_back([&]() -> awaitable<void> { scripts = co_await client_->list_text("/scripts/", kRmmScriptsKept); });
  co_await core::async::join_all(executor_, std::move(reads));
  // One statement: the copy changes at once, with one commit.
  const auto rows = co_await db_.query(kRmmWriteCopy, clients, agents, scripts);
  const auto& written = rows.front();
  counts["clients"] = written.get<std::int64_t>(0);
  counts["sites"] = written.get<std::int64_t>(1);
  counts["agents"] = written.get<std::int64_t>(2);
  counts["scripts"] = written.get<std::int64_t>(3);
  counts["deleted"] = written.get<std::int64_t>(4);
}

}  // namespace ops_console::rmm

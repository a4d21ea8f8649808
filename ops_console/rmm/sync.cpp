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

// What the copy keeps of each list (rmm_trimmed()): PostgreSQL parses a parameter whole when it
// is bound, and an agent of /agents/ has about 30 fields, of which the copy keeps 7.
const std::vector<std::string> kRmmClientFields = {"id", "name", "sites"};
const std::vector<std::string> kRmmSiteFields = {"id", "client", "name"};
const std::vector<std::string> kRmmAgentFields = {"agent_id", "hostname", "client_name", "site_name",
                                                  "plat",     "status",   "last_seen"};
const std::vector<std::string> kRmmScriptFields = {"id", "name", "shell", "category", "default_timeout"};

// A row is written only when something it keeps changed (or it comes back from deleted): an
// unchanged row keeps its version and its synced_at, which says when a run last changed it. The
// counts are of the rows listed that the copy keeps, changed or not.

// $1: /clients/ (each client with its sites: id, client, name), trimmed.
constexpr std::string_view kUpsertRmmClients = R"sql(
  WITH listed AS (
    SELECT r.id, r.name FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL),
  listed_sites AS (
    SELECT (site->>'id')::bigint AS id, (site->>'client')::bigint AS client_id, site->>'name' AS name
    FROM jsonb_array_elements($1::jsonb) AS client, jsonb_array_elements(coalesce(client->'sites', '[]')) AS site
    WHERE site->>'id' IS NOT NULL AND site->>'name' IS NOT NULL AND site->>'client' IS NOT NULL),
  c AS (
    INSERT INTO rmm_clients AS t (id, name, synced_at, deleted_at)
    SELECT id, name, now(), NULL FROM listed
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, synced_at = now(), deleted_at = NULL
    WHERE (t.name, t.deleted_at) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.deleted_at)),
  s AS (
    INSERT INTO rmm_sites AS t (id, client_id, name, synced_at, deleted_at)
    SELECT id, client_id, name, now(), NULL FROM listed_sites
    ON CONFLICT (id) DO UPDATE SET client_id = EXCLUDED.client_id, name = EXCLUDED.name, synced_at = now(),
      deleted_at = NULL
    WHERE (t.client_id, t.name, t.deleted_at) IS DISTINCT FROM (EXCLUDED.client_id, EXCLUDED.name, EXCLUDED.deleted_at))
  SELECT (SELECT count(*) FROM listed), (SELECT count(*) FROM listed_sites)
)sql";

// $1: /agents/, trimmed.
constexpr std::string_view kUpsertRmmAgents = R"sql(
  WITH listed AS (
    SELECT r.* FROM jsonb_to_recordset($1::jsonb) AS r(agent_id text, hostname text, client_name text, site_name text,
                                                       plat text, status text, last_seen timestamptz)
    WHERE r.agent_id IS NOT NULL AND r.hostname IS NOT NULL),
  a AS (
    INSERT INTO rmm_agents AS t (agent_id, hostname, client_name, site_name, plat, status, last_seen, synced_at,
                                 deleted_at)
    SELECT agent_id, hostname, client_name, site_name, plat, status, last_seen, now(), NULL FROM listed
    ON CONFLICT (agent_id) DO UPDATE SET hostname = EXCLUDED.hostname, client_name = EXCLUDED.client_name,
      site_name = EXCLUDED.site_name, plat = EXCLUDED.plat, status = EXCLUDED.status,
      last_seen = EXCLUDED.last_seen, synced_at = now(), deleted_at = NULL
    WHERE (t.hostname, t.client_name, t.site_name, t.plat, t.status, t.last_seen, t.deleted_at)
          IS DISTINCT FROM (EXCLUDED.hostname, EXCLUDED.client_name, EXCLUDED.site_name, EXCLUDED.plat,
                            EXCLUDED.status, EXCLUDED.last_seen, EXCLUDED.deleted_at))
  SELECT count(*) FROM listed
)sql";

// $1: /scripts/, trimmed.
constexpr std::string_view kUpsertRmmScripts = R"sql(
  WITH listed AS (
    SELECT r.* FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text, shell text, category text,
                                                       default_timeout integer)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL),
  s AS (
    INSERT INTO rmm_scripts AS t (id, name, shell, category, default_timeout, synced_at, deleted_at)
    SELECT id, name, shell, category, default_timeout, now(), NULL FROM listed
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, shell = EXCLUDED.shell, category = EXCLUDED.category,
      default_timeout = EXCLUDED.default_timeout, synced_at = now(), deleted_at = NULL
    WHERE (t.name, t.shell, t.category, t.default_timeout, t.deleted_at)
          IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.shell, EXCLUDED.category, EXCLUDED.default_timeout,
                            EXCLUDED.deleted_at))
  SELECT count(*) FROM listed
)sql";

// What the lists no longer hold, marked deleted ($1 clients, $2 agents, $3 scripts: the lists the
// upserts above took, with their filters): an unchanged row's synced_at no longer says the run saw it.
constexpr std::string_view kRmmSoftDelete = R"sql(
  WITH c AS (UPDATE rmm_clients SET deleted_at = now()
             WHERE deleted_at IS NULL AND id NOT IN (
               SELECT r.id FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, name text)
               WHERE r.id IS NOT NULL AND r.name IS NOT NULL)
             RETURNING 1),
       s AS (UPDATE rmm_sites SET deleted_at = now()
             WHERE deleted_at IS NULL AND id NOT IN (
               SELECT (site->>'id')::bigint
               FROM jsonb_array_elements($1::jsonb) AS client,
                    jsonb_array_elements(coalesce(client->'sites', '[]')) AS site
               WHERE site->>'id' IS NOT NULL AND site->>'name' IS NOT NULL AND site->>'client' IS NOT NULL)
             RETURNING 1),
       a AS (UPDATE rmm_agents SET deleted_at = now()
             WHERE deleted_at IS NULL AND agent_id NOT IN (
               SELECT r.agent_id FROM jsonb_to_recordset($2::jsonb) AS r(agent_id text, hostname text)
               WHERE r.agent_id IS NOT NULL AND r.hostname IS NOT NULL)
             RETURNING 1),
       x AS (UPDATE rmm_scripts SET deleted_at = now()
             WHERE deleted_at IS NULL AND id NOT IN (
               SELECT r.id FROM jsonb_to_recordset($3::jsonb) AS r(id bigint, name text)
               WHERE r.id IS NOT NULL AND r.name IS NOT NULL)
             RETURNING 1)
  SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM s) + (SELECT count(*) FROM a) + (SELECT count(*) FROM x)
)sql";

// The fields of each item of `list` the copy keeps; anything that is not an object stays as it is
// (and fails the statement, as it did untrimmed).
json rmm_trimmed(const json& list, const std::vector<std::string>& fields) {
  if (!list.is_array()) return list;
  json out = json::array();
  for (const auto& item : list) {
    if (!item.is_object()) {
      out.push_back(item);
      continue;
    }
    json kept = json::object();
    for (const auto& field : fields)
      if (const auto it = item.find(field); it != item.end()) kept[field] = *it;
    out.push_back(std::move(kept));
  }
  return out;
}

// A client with its sites, each site trimmed.
json rmm_trimmed_clients(const json& clients) {
  json out = rmm_trimmed(clients, kRmmClientFields);
  if (out.is_array())
    for (auto& client : out)
      if (client.is_object() && client.contains("sites"))
        client["sites"] = rmm_trimmed(client["sites"], kRmmSiteFields);
  return out;
}

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
  // Four calls a run; one health write for them.
  const auto burst = client_->health_burst();
  // Everything is read before anything is written: a failed read leaves the copy as it was. The
  // three lists are read side by side: three requests either way.
  std::string clients, agents, scripts;
  std::vector<std::function<awaitable<void>()>> reads;
  reads.push_back(
      [&]() -> awaitable<void> { clients = rmm_trimmed_clients(co_await client_->list("/clients/")).dump(); });
  reads.push_back(
      [&]() -> awaitable<void> { agents = rmm_trimmed(co_await client_->list("/agents/"), kRmmAgentFields).dump(); });
  reads.push_back([&]() -> awaitable<void> {
    scripts = rmm_trimmed(co_await client_->list("/scripts/"), kRmmScriptFields).dump();
  });
  co_await core::async::join_all(executor_, std::move(reads));
  // One transaction: the copy changes at once, with one commit.
  auto tx = co_await db_.begin();
  const auto c = co_await tx.query(kUpsertRmmClients, clients);
  counts["clients"] = c.front().get<std::int64_t>(0);
  counts["sites"] = c.front().get<std::int64_t>(1);
  counts["agents"] = (co_await tx.query(kUpsertRmmAgents, agents)).front().get<std::int64_t>(0);
  counts["scripts"] = (co_await tx.query(kUpsertRmmScripts, scripts)).front().get<std::int64_t>(0);
  counts["deleted"] = (co_await tx.query(kRmmSoftDelete, clients, agents, scripts)).front().get<std::int64_t>(0);
  co_await tx.commit();
}

}  // namespace ops_console::rmm

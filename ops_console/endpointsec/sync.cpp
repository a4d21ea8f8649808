#include "ops_console/endpointsec/sync.hpp"

#include "core/async/join.hpp"
#include "core/async/semaphore.hpp"
#include "ops_console/sync_history.hpp"

namespace ops_console::endpointsec {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::size_t kCountsAtOnce = 4;

constexpr std::string_view kNow = "SELECT now()::text";

// A page of sites ($1: data.sites as SentinelOne sent them); answers their ids.
constexpr std::string_view kUpsertSites = R"sql(
  INSERT INTO endpointsec_sites AS s (id, name, account_id, account_name, state, site_type, total_licenses,
                                      active_licenses, unlimited_licenses, synced_at, deleted_at)
  SELECT r.id, r.name, r."accountId", r."accountName", r.state, r."siteType", r."totalLicenses", r."activeLicenses",
         r."unlimitedLicenses", now(), NULL
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, name text, "accountId" text, "accountName" text, state text,
       "siteType" text, "totalLicenses" integer, "activeLicenses" integer, "unlimitedLicenses" boolean)
  WHERE r.id IS NOT NULL AND r.name IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, account_id = EXCLUDED.account_id,
    account_name = EXCLUDED.account_name, state = EXCLUDED.state, site_type = EXCLUDED.site_type,
    total_licenses = EXCLUDED.total_licenses, active_licenses = EXCLUDED.active_licenses,
    unlimited_licenses = EXCLUDED.unlimited_licenses, synced_at = now(), deleted_at = NULL
  RETURNING s.id
)sql";

// $1: [{id, agents, active}].
constexpr std::string_view kAgentCounts = R"sql(
  UPDATE endpointsec_sites s SET agents = r.agents, active_agents = r.active
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, agents integer, active integer) WHERE s.id = r.id
)sql";

constexpr std::string_view kSoftDelete = R"sql(
  WITH gone AS (UPDATE endpointsec_sites SET deleted_at = now()
                WHERE synced_at < $1::timestamptz AND deleted_at IS NULL RETURNING 1)
  SELECT count(*) FROM gone
)sql";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kStatus = R"sql(
  SELECT json_build_object(
    'sites', (SELECT count(*) FROM endpointsec_sites WHERE deleted_at IS NULL),
    'history', (SELECT coalesce(json_agg(sync_history_json(h) ORDER BY h.started_at DESC, h.id DESC), '[]'::json)
                FROM (SELECT * FROM sync_history WHERE entity_type = 'endpointsec'
                      ORDER BY started_at DESC, id DESC LIMIT 10) h))
)sql";

}  // namespace

EndpointSecSync::EndpointSecSync(core::db::Pool& db, boost::asio::any_io_executor executor,
                                 std::shared_ptr<SentinelOneClient> client)
    : db_(db), executor_(std::move(executor)), client_(std::move(client)) {}

awaitable<bool> EndpointSecSync::start() {
  return start_locked_run(db_, executor_, std::string(kSyncLock), "endpointsec", "full",
                          [self = shared_from_this()](json& counts) { return self->full_sync(counts); });
}

awaitable<json> endpointsec_sync_status(core::db::Pool& db) {
  return locked_sync_status(db, std::string(kSyncLock), kStatus);
}

awaitable<void> EndpointSecSync::full_sync(json& counts) {
  const std::string started = std::string((co_await db_.query(kNow)).front().text(0));
  std::vector<std::string> sites;
  co_await client_->each_page("/sites", {}, [&](json page) -> awaitable<void> {
    const auto& data = page["data"];
    if (!data.is_object() || !data.contains("sites") || !data["sites"].is_array())
      throw EndpointSecError("the endpoint-security service answered /sites without data.sites");
    const auto rows = co_await db_.query(kUpsertSites, data["sites"].dump());
    for (const auto& row : rows) sites.emplace_back(row.text(0));
  });
  counts["sites"] = sites.size();

  json agent_counts = json::array();
  std::vector<std::pair<std::int64_t, std::int64_t>> found(sites.size());
  core::async::Semaphore slots(kCountsAtOnce);
  std::vector<std::function<awaitable<void>()>> reads;
  for (std::size_t i = 0; i < sites.size(); ++i)
    reads.push_back([this, &slots, &site = sites[i], &out = found[i]]() -> awaitable<void> {
      auto permit = co_await slots.acquire();
      out.first = co_await client_->agent_count(site, false);
      out.second = co_await client_->agent_count(site, true);
    });
  co_await core::async::join_all(executor_, std::move(reads));
  std::int64_t agents = 0;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    agent_counts.push_back({{"id", sites[i]}, {"agents", found[i].first}, {"active", found[i].second}});
    agents += found[i].first;
  }
  co_await db_.query(kAgentCounts, agent_counts.dump());
  counts["agents"] = agents;
  const auto deleted = co_await db_.query(kSoftDelete, started);
  counts["sitesDeleted"] = deleted.front().get<std::int64_t>(0);
}

}  // namespace ops_console::endpointsec

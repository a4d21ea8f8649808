#include "ops_console/access_gateway/sync.hpp"

#include "core/async/join.hpp"
#include "core/async/semaphore.hpp"
#include "core/util/strings.hpp"
#include "ops_console/sync_history.hpp"

#include <map>

namespace ops_console::access_gateway {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::string_view kGatewayNow = "SELECT now()::text";

// How many applications' policies are read at once. Cloudflare's limit counts requests (1,200 in
// five minutes per user, sandbox/cloudflare_access_fake.hpp), not requests in flight: reading four
// at once asks no more of it than one after the other, and a 429 is waited out (Retry-After).
constexpr std::size_t kPoliciesAtOnce = 4;

// A page of applications with their policies, in one statement ($1: the page's result as Cloudflare
// sent it; $2: the policies of its applications as Cloudflare sent them, each with "_app", its
// application's id); answers the ids of the applications stored. Only the policies of those are
// stored (a policy references its application, inserted by the statement's first part).
constexpr std::string_view kUpsertAppsAndPolicies = R"sql(
  WITH apps AS (
    INSERT INTO access_gateway_apps AS a (id, name, domain, app_type, session_duration, vendor_updated_at, synced_at,
                                          deleted_at)
    SELECT r.id, r.name, r.domain, r.type, r.session_duration, r.updated_at, now(), NULL
    FROM jsonb_to_recordset($1::jsonb) AS r(id text, name text, domain text, type text, session_duration text,
                                            updated_at timestamptz)
    WHERE r.id IS NOT NULL AND r.name IS NOT NULL
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, domain = EXCLUDED.domain, app_type = EXCLUDED.app_type,
      session_duration = EXCLUDED.session_duration, vendor_updated_at = EXCLUDED.vendor_updated_at,
      synced_at = now(), deleted_at = NULL
    RETURNING a.id),
  policies AS (
    INSERT INTO access_gateway_policies AS p (app_id, id, name, decision, precedence, include, exclude, require,
                                              synced_at)
    SELECT r._app, r.id, r.name, r.decision, r.precedence, coalesce(r.include, '[]'), coalesce(r.exclude, '[]'),
           coalesce(r.require, '[]'), now()
    FROM jsonb_to_recordset($2::jsonb) AS r(_app text, id text, name text, decision text, precedence integer,
                                            include jsonb, exclude jsonb, require jsonb)
    WHERE r.id IS NOT NULL AND r.decision IS NOT NULL AND r._app IN (SELECT id FROM apps)
    ON CONFLICT (app_id, id) DO UPDATE SET name = EXCLUDED.name, decision = EXCLUDED.decision,
      precedence = EXCLUDED.precedence, include = EXCLUDED.include, exclude = EXCLUDED.exclude,
      require = EXCLUDED.require, synced_at = now()
    RETURNING 1)
  SELECT id FROM apps
)sql";

// The policies of the applications $1 (a JSON array of ids) this run did not see ($2: when it
// started); in the transaction of kUpsertAppsAndPolicies, after it.
constexpr std::string_view kDropStalePolicies = R"sql(
  DELETE FROM access_gateway_policies
  WHERE app_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND synced_at < $2::timestamptz
)sql";

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
  // A call or more per application: the health row is written a few times a run, not once a call.
  const auto burst = client_->health_burst();
  const std::string started = std::string((co_await db_.query(kGatewayNow)).front().text(0));
  std::int64_t applications = 0, policies = 0;
  co_await client_->each_page("/access/apps", [&](json result) -> awaitable<void> {
    const auto [stored, stored_policies] = co_await store_page(std::move(result), started);
    applications += stored;
    policies += stored_policies;
  });
  counts["applications"] = applications;
  counts["policies"] = policies;
  const auto deleted = co_await db_.query(kSoftDeleteApps, started);
  counts["applicationsDeleted"] = deleted.front().get<std::int64_t>(0);
}

awaitable<std::pair<std::int64_t, std::int64_t>> AccessGatewaySync::store_page(json result, std::string started) {
  // The applications the upsert keeps (an id and a name), each with every page of its policies.
  std::vector<std::string> ids;
  if (result.is_array())
    for (const auto& app : result)
      if (app.is_object() && app.contains("id") && !app["id"].is_null() && app.contains("name") &&
          !app["name"].is_null())
        ids.push_back(app["id"].is_string() ? app["id"].get<std::string>() : app["id"].dump());
  std::vector<json> listed(ids.size(), json::array());
  core::async::Semaphore slots(kPoliciesAtOnce);
  std::vector<std::function<awaitable<void>()>> reads;
  for (std::size_t i = 0; i < ids.size(); ++i)
    reads.push_back([this, &slots, &id = ids[i], &all = listed[i]]() -> awaitable<void> {
      auto permit = co_await slots.acquire();
      co_await client_->each_page("/access/apps/" + core::url_encode(id) + "/policies",
                                  [&](json page) -> awaitable<void> {
                                    for (auto& p : page) all.push_back(std::move(p));
                                    co_return;
                                  });
    });
  co_await core::async::join_all(executor_, std::move(reads));

  std::map<std::string, std::size_t> listed_of;  // id: how many policies Cloudflare listed
  json rows = json::array();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    listed_of[ids[i]] += listed[i].size();
    for (auto& p : listed[i]) {
      if (p.is_object()) p["_app"] = ids[i];
      rows.push_back(std::move(p));  // anything else fails the statement, as it always did
    }
  }
  // One transaction a page: the upsert of its applications and their policies, and the delete of
  // the policies they no longer have.
  auto tx = co_await db_.begin();
  const auto stored = co_await tx.query(kUpsertAppsAndPolicies, result.dump(), rows.dump());
  json stored_ids = json::array();
  std::int64_t stored_policies = 0;
  for (const auto& row : stored) {
    std::string id(row.text(0));
    if (const auto it = listed_of.find(id); it != listed_of.end())
      stored_policies += static_cast<std::int64_t>(it->second);
    stored_ids.push_back(std::move(id));
  }
  co_await tx.query(kDropStalePolicies, stored_ids.dump(), started);
  co_await tx.commit();
  co_return std::pair{static_cast<std::int64_t>(stored.size()), stored_policies};
}

}  // namespace ops_console::access_gateway

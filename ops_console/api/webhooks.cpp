#include "ops_console/api/webhooks.hpp"

#include "core/app/json_rows.hpp"
#include "core/db/statement.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/time.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/psa/entities.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::int64_t kDefaultWebhookPage = 50;
constexpr std::int64_t kMaxWebhookPage = 500;

const core::json::StringRule kWebhookEventStatus{.one_of = {"processed", "failed"}};
const core::json::StringRule kEntityType{.min_length = 1, .max_length = 64};

// A log row as the routes show it; the payload's fields are not kept.
constexpr std::string_view kEventJson = R"sql(
  json_build_object('id', e.id, 'event_id', e.event_id, 'guid', e.guid, 'entity_type', e.entity_type,
                    'entity_id', e.entity_id, 'action', e.action, 'status', e.status,
                    'error_message', e.error_message, 'source_ip', e.source_ip, 'user_agent', e.user_agent,
                    'event_time', e.event_time, 'received_at', e.received_at)
)sql";

// Counts of the last 24 hours and of the last 7 days, by status and by entity type.
constexpr std::string_view kStats = R"sql(
  WITH recent AS (
    SELECT status, coalesce(entity_type, 'unknown') AS entity_type, received_at > now() - interval '24 hours' AS today
    FROM webhook_events WHERE received_at > now() - interval '7 days')
  SELECT json_build_object(
    'last24h', json_build_object(
      'total', (SELECT count(*) FROM recent WHERE today),
      'by_status', (SELECT coalesce(json_object_agg(status, n), '{}'::json)
                    FROM (SELECT status, count(*) AS n FROM recent WHERE today GROUP BY status) s),
      'by_entity_type', (SELECT coalesce(json_object_agg(entity_type, n), '{}'::json)
                         FROM (SELECT entity_type, count(*) AS n FROM recent WHERE today GROUP BY entity_type) t)),
    'last7d', json_build_object(
      'total', (SELECT count(*) FROM recent),
      'by_status', (SELECT coalesce(json_object_agg(status, n), '{}'::json)
                    FROM (SELECT status, count(*) AS n FROM recent GROUP BY status) s),
      'by_entity_type', (SELECT coalesce(json_object_agg(entity_type, n), '{}'::json)
                         FROM (SELECT entity_type, count(*) AS n FROM recent GROUP BY entity_type) t)),
    'last_event_at', (SELECT max(received_at) FROM webhook_events))
)sql";

// The entity type as the log spells it ("tickets" and "Ticket" both read "Ticket").
std::string logged_entity_type(const std::string& given) {
  const auto* entity = psa::webhook_entity(given);
  return entity ? std::string(entity->webhook) : given;
}

struct LogFilter {
  std::optional<std::string> entity_type, status, since;
  std::optional<std::int64_t> before;
  std::int64_t limit = kDefaultWebhookPage;
};

core::db::Composed compose_logs(const LogFilter& f) {
  core::db::Composed st;
  std::string where;
  if (f.entity_type) core::db::restrict(where, "e.entity_type = " + st.bind(logged_entity_type(*f.entity_type)));
  if (f.status) core::db::restrict(where, "e.status = " + st.bind(*f.status));
  if (f.since) core::db::restrict(where, "e.received_at >= " + st.bind(*f.since) + "::timestamptz");
  if (f.before) core::db::restrict(where, "e.id < " + st.bind(*f.before));
  const std::string limit = st.bind(f.limit);
  st.sql = "SELECT json_build_object('items', coalesce(json_agg(" + std::string(kEventJson) +
           " ORDER BY e.id DESC), '[]'::json), 'next_before', CASE WHEN count(*) = " + limit +
           "::bigint THEN min(e.id) END) FROM (SELECT * FROM webhook_events e" + where + " ORDER BY e.id DESC LIMIT " +
           limit + "::bigint) e";
  return st;
}

core::db::Composed compose_ips(std::int64_t hours, const std::optional<std::string>& entity_type) {
  core::db::Composed st;
  std::string where = " WHERE received_at > now() - make_interval(hours => " + st.bind(hours) + "::integer)";
  if (entity_type) core::db::restrict(where, "entity_type = " + st.bind(logged_entity_type(*entity_type)));
  st.sql = R"sql(
  SELECT coalesce(json_agg(json_build_object(
      'source_ip', g.source_ip, 'total', g.total, 'successful', g.successful, 'failed', g.failed,
      'first_seen', g.first_seen, 'last_seen', g.last_seen,
      'entity_types', g.entity_types, 'user_agents', g.user_agents) ORDER BY g.total DESC, g.source_ip), '[]'::json)
  FROM (
    SELECT source_ip, count(*) AS total,
           count(*) FILTER (WHERE status = 'processed') AS successful,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           min(received_at) AS first_seen, max(received_at) AS last_seen,
           coalesce(array_agg(DISTINCT entity_type) FILTER (WHERE entity_type IS NOT NULL), '{}') AS entity_types,
           coalesce(array_agg(DISTINCT user_agent) FILTER (WHERE user_agent IS NOT NULL), '{}') AS user_agents
    FROM webhook_events)sql" +
           where + " GROUP BY source_ip) g";
  return st;
}

}  // namespace

void install_webhook_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                            std::shared_ptr<psa::WebhookIntake> intake) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.post("/api/webhooks/psa", Access::open(), [intake](Request& req) -> awaitable<Response> {
    psa::Callout callout{
        .body = req.body, .source_ip = psa::source_ip_of(req), .user_agent = std::string(req.header("user-agent"))};
    if (const auto signature = req.header("x-hook-signature"); !signature.empty())
      callout.signature = std::string(signature);
    const auto outcome = co_await intake->receive(std::move(callout));
    if (outcome.problem) throw *outcome.problem;
    co_return Response::json(outcome.body);
  });

  routes.get("/api/webhooks/logs", [&db](Request& req) {
    core::json::QueryReader in(req.query);
    LogFilter f{.entity_type = in.optional_string("entityType", kEntityType),
                .status = in.optional_string("status", kWebhookEventStatus),
                .since = in.optional_string("since", {.max_length = 64}),
                .before = in.optional_integer("before", {.min = 1}),
                .limit = in.integer("limit", kDefaultWebhookPage, {.min = 1, .max = kMaxWebhookPage})};
    if (f.since && !core::parse_rfc3339(*f.since)) in.add("since", "must be an RFC 3339 date-time with an offset");
    in.finish();
    return core::app::json_document(db, compose_logs(f));
  });

  routes.get("/api/webhooks/stats", [&db](Request&) { return core::app::json_document(db, kStats); });

  routes.get("/api/webhooks/ips", [&db](Request& req) {
    core::json::QueryReader in(req.query);
    const auto hours = in.integer("hours", 168, {.min = 1, .max = 24 * 366});
    const auto entity_type = in.optional_string("entityType", kEntityType);
    in.finish();
    return core::app::json_document(db, compose_ips(hours, entity_type));
  });
}

}  // namespace ops_console

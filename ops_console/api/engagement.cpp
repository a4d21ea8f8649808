#include "ops_console/api/engagement.hpp"

#include "core/app/json_rows.hpp"
#include "core/async/schedule.hpp"
#include "core/graph/directory.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "ops_console/engagement/usage_pull.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

namespace {

constexpr std::int64_t kUsersMost = 200;  // the users list's cap

// Every statement's days: from the UTC date of the bound instant ($1) back over $2 days; the rows of
// engagement_user_days() (migration 0021) for them. $3, $4: minutes per e-mail sent and received.

// {configured, period, activeUsers, totalPlatformHours, totalPsaHours, hoursPerActiveUser, source}
constexpr std::string_view kSummary = R"sql(
  WITH b AS (SELECT ($1::timestamptz AT TIME ZONE 'UTC')::date AS last_day),
  d AS (SELECT e.* FROM b, engagement_user_days(b.last_day - ($2::int - 1), b.last_day) e),
  per_user AS (
    SELECT sum(sent) AS sent, sum(received) AS received, sum(psa_hours) AS psa FROM d GROUP BY user_email
  ),
  totals AS (
    SELECT coalesce(sum(sent * $3::numeric + received * $4::numeric), 0) / 60 AS platform,
           coalesce(sum(psa), 0) AS psa,
           count(*) FILTER (WHERE sent + received > 0 OR psa > 0) AS active
    FROM per_user
  )
  SELECT json_build_object(
    'configured', $5::boolean,
    'period', $6::text,
    'activeUsers', active,
    'totalPlatformHours', round(platform, 2)::float8,
    'totalPsaHours', round(psa, 2)::float8,
    'hoursPerActiveUser', CASE WHEN active = 0 THEN 0 ELSE round((platform + psa) / active, 2)::float8 END,
    'source', (SELECT coalesce(json_agg(s ORDER BY s DESC), '[]')
               FROM (SELECT DISTINCT source AS s FROM d WHERE source IS NOT NULL) used))
  FROM totals
)sql";

// {configured, period, points: [{date, sent, received, platformHours, psaHours, activeUsers, source}]},
// one point a day, oldest first, zero-filled.
constexpr std::string_view kTrend = R"sql(
  WITH b AS (SELECT ($1::timestamptz AT TIME ZONE 'UTC')::date AS last_day),
  d AS (SELECT e.* FROM b, engagement_user_days(b.last_day - ($2::int - 1), b.last_day) e),
  per_day AS (
    SELECT day, sum(sent) AS sent, sum(received) AS received, sum(psa_hours) AS psa,
           count(*) FILTER (WHERE sent + received > 0 OR psa_hours > 0) AS active, max(source) AS source
    FROM d GROUP BY day
  ),
  days AS (
    SELECT generate_series(b.last_day - ($2::int - 1), b.last_day, interval '1 day')::date AS day FROM b
  )
  SELECT json_build_object(
    'configured', $5::boolean,
    'period', $6::text,
    'points', json_agg(json_build_object(
      'date', to_char(days.day, 'YYYY-MM-DD'),
      'sent', coalesce(p.sent, 0),
      'received', coalesce(p.received, 0),
      'platformHours', round(coalesce(p.sent * $3::numeric + p.received * $4::numeric, 0) / 60, 2)::float8,
      'psaHours', round(coalesce(p.psa, 0), 2)::float8,
      'activeUsers', coalesce(p.active, 0),
      'source', p.source) ORDER BY days.day))
  FROM days LEFT JOIN per_day p ON p.day = days.day
)sql";

// {configured, period, users: [{userId, email, name, sent, received, platformHours, psaHours,
// totalHours}], count, total, truncated}: the active users, most hours first, at most $7.
constexpr std::string_view kUsers = R"sql(
  WITH b AS (SELECT ($1::timestamptz AT TIME ZONE 'UTC')::date AS last_day),
  d AS (SELECT e.* FROM b, engagement_user_days(b.last_day - ($2::int - 1), b.last_day) e),
  per_user AS (
    SELECT user_email, sum(sent) AS sent, sum(received) AS received, sum(psa_hours) AS psa,
           (sum(sent) * $3::numeric + sum(received) * $4::numeric) / 60 AS platform
    FROM d GROUP BY user_email
    HAVING sum(sent) + sum(received) > 0 OR sum(psa_hours) > 0
  ),
  ranked AS (
    SELECT *, row_number() OVER (ORDER BY platform + psa DESC, sent + received DESC, user_email) AS rank
    FROM per_user
  )
  SELECT json_build_object(
    'configured', $5::boolean,
    'period', $6::text,
    'users', coalesce(json_agg(json_build_object(
        'userId', user_email,
        'email', user_email,
        'name', engagement_user_name(user_email),
        'sent', sent,
        'received', received,
        'platformHours', round(platform, 2)::float8,
        'psaHours', round(psa, 2)::float8,
        'totalHours', round(platform + psa, 2)::float8) ORDER BY rank) FILTER (WHERE rank <= $7), '[]'),
    'count', count(*) FILTER (WHERE rank <= $7),
    'total', count(*),
    'truncated', count(*) > $7)
  FROM ranked
)sql";

// One user ($2, lowercased) over the 90 days: {configured, userId, email, name, emails: {d7, d30,
// d90} each {sent, received}, platformHours and psaHours: {d7, d30, d90}, lastActivityDate}; no row
// when nothing is known about the address (engagement_user_known(), migration 0021).
constexpr std::string_view kUser = R"sql(
  WITH b AS (SELECT ($1::timestamptz AT TIME ZONE 'UTC')::date AS last_day),
  d AS (SELECT e.* FROM b, engagement_user_days(b.last_day - 89, b.last_day) e WHERE e.user_email = $2),
  w AS (
    SELECT win.name, win.days, coalesce(sum(d.sent), 0) AS sent, coalesce(sum(d.received), 0) AS received,
           coalesce(sum(d.psa_hours), 0) AS psa
    FROM b CROSS JOIN (VALUES ('d7', 7), ('d30', 30), ('d90', 90)) AS win(name, days)
    LEFT JOIN d ON d.day > b.last_day - win.days
    GROUP BY win.name, win.days
  )
  SELECT json_build_object(
    'configured', $5::boolean,
    'userId', $2::text,
    'email', $2::text,
    'name', engagement_user_name($2),
    'emails', json_object_agg(w.name, json_build_object('sent', w.sent, 'received', w.received) ORDER BY w.days),
    'platformHours', json_object_agg(w.name, round((w.sent * $3::numeric + w.received * $4::numeric) / 60, 2)::float8
                                     ORDER BY w.days),
    'psaHours', json_object_agg(w.name, round(w.psa, 2)::float8 ORDER BY w.days),
    'lastActivityDate', (SELECT to_char(max(day), 'YYYY-MM-DD') FROM d WHERE sent + received > 0 OR psa_hours > 0))
  FROM w
  HAVING engagement_user_known($2)
)sql";

struct Period {
  std::string name;
  int days;
};

// `period`: D7, D30 or D90, exactly, once; anything else (absent or repeated included) is a 400
// naming it.
Period read_period(const Request& req) {
  core::json::QueryReader in(req.query);
  const auto values = in.all("period", {.one_of = {"D7", "D30", "D90"}});
  if (in.ok() && values.size() != 1)
    in.add("period", values.empty() ? "is required: D7, D30 or D90" : "must be given once");
  in.finish();
  const std::string& period = values.front();
  return {period, period == "D7" ? 7 : period == "D30" ? 30 : 90};
}

// The userId of a path: a GUID or a user principal name (core/graph/directory.hpp), lowercased.
std::string read_user_id(const Request& req) {
  auto user = core::graph::directory_user_id(req.param("userId"));
  if (!user)
    throw Problem::invalid_field("userId",
                                 "must be a user's object id (a GUID) or user principal name (an e-mail address)");
  return std::move(*user);
}

}  // namespace

void install_engagement(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                        std::shared_ptr<integrations::Registry> registry,
                        const engagement::EngagementSettings& settings, const mailsec::MailsecSettings& mailsec,
                        const core::graph::GraphSettings& graph, std::shared_ptr<core::graph::GraphClient> graph_client,
                        const dashboard::Clock& clock, const integrations::Health& health) {
  const auto missing = graph.missing();
  std::shared_ptr<core::graph::DirectoryClient> directory;
  if (graph_client) directory = std::make_shared<core::graph::DirectoryClient>(std::move(graph_client));
  if (directory && settings.usage_interval.count() > 0) {
    auto usage = std::make_shared<engagement::UsagePull>(ctx.db, directory, health);
    auto pull = core::async::Schedule::start(
        ctx.executor, settings.usage_interval,
        [registry, usage]() -> awaitable<void> { co_await engagement::scheduled_usage_pull(*registry, *usage); },
        "mail platform usage", ctx.clock);
    pull->wake();
    ctx.stop_hooks.push_back([pull] { pull->stop(); });
  }

  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const bool configured = !mailsec.tenants.empty() || missing.empty();
  const double sent = settings.minutes_per_sent, received = settings.minutes_per_received;

  // Summary and trend: the same parameters, each its own statement.
  for (const auto& [path, sql] :
       {std::pair{"/api/mobile/engagement/summary", kSummary}, std::pair{"/api/mobile/engagement/trend", kTrend}}) {
    routes.get(path, [&db, clock, sent, received, configured, sql](Request& req) {
      const auto period = read_period(req);
      return core::app::json_document(db, sql, clock.at, period.days, sent, received, configured, period.name);
    });
  }
  routes.get("/api/mobile/engagement/users", [&db, clock, sent, received, configured](Request& req) {
    const auto period = read_period(req);
    return core::app::json_document(db, kUsers, clock.at, period.days, sent, received, configured, period.name,
                                    kUsersMost);
  });
  routes.get("/api/mobile/engagement/user/{userId}", [&db, clock, sent, received, configured](Request& req) {
    const auto user = read_user_id(req);
    return core::app::json_resource(db, {.missing = Problem::not_found("nothing is known about this user")}, kUser,
                                    clock.at, user, sent, received, configured);
  });

  // The photo: 403 switched off, 503 no directory credentials, 400 a malformed id, 404 no photo,
  // 502 any other upstream failure; neither of these bodies names the user or says what Graph said.
  routes.get("/api/mobile/engagement/user/{userId}/photo",
             [registry, directory, missing, health](Request& req) -> awaitable<Response> {
               co_await registry->require_enabled("mailplatform", "mail platform");
               if (!directory)
                 throw integrations::not_configured("the mail platform directory (Microsoft Graph)", missing);
               const auto user = read_user_id(req);
               std::optional<core::graph::Photo> photo;
               std::optional<std::string> failure;
               integrations::Health recorder = health;
               try {
                 photo = co_await recorder.observe<std::optional<core::graph::Photo>>(
                     "mailplatform", [directory, user] { return directory->photo(user, engagement::kPhotoMostBytes); });
               } catch (const std::exception& e) {
                 failure = core::secrets::quote(e.what());  // the platform's words: masked, bounded
               }
               if (failure) {
                 core::log::warn("the mail platform did not supply a photo", {{"error", *failure}});
                 throw Problem(core::http::Status::bad_gateway, "mail-platform-failed",
                               "the mail platform could not supply the photo");
               }
               if (!photo) throw Problem::not_found("no photo");
               Response res;
               res.headers.set(core::http::bhttp::field::content_type, photo->content_type);
               res.headers.set(core::http::bhttp::field::cache_control, "private, max-age=3600");
               res.headers.set("X-Content-Type-Options", "nosniff");
               res.body = std::move(photo->bytes);
               co_return res;
             });
}

}  // namespace ops_console

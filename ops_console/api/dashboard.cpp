#include "ops_console/api/dashboard.hpp"

#include "core/app/json_rows.hpp"
#include "core/async/schedule.hpp"
#include "ops_console/dashboard/kept_days.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;

namespace {

// The figures render in SQL: dashboard_overview_json() (migration 0039),
// dashboard_trends() (migration 0040), integration_board_json() (migration 0020),
// worker_status_json() (migration 0039).
constexpr std::string_view kOverview = "SELECT dashboard_overview_json($1, $2::timestamptz)";
// answer: the body; past: the 29 days before today when it read them (not when $3, the zone's kept
// entry, served), to keep.
constexpr std::string_view kTrends = "SELECT answer, past FROM dashboard_trends($1, $2::timestamptz, $3::json)";
// The zones of the signed-in users ($1: a user's zone when they chose none), whose trends' past
// days are read at start.
constexpr std::string_view kSignedInZones =
    "SELECT DISTINCT coalesce(u.timezone, $1) FROM sessions s JOIN users u ON u.id = s.user_id "
    "WHERE s.expires_at > now()";
constexpr std::string_view kIntegrationHealth =
    "SELECT json_build_object('integrations', integration_board_json($1::text[]))";
constexpr std::string_view kWorkers =
    "SELECT json_build_object('at', $1::timestamptz, "
    "'workers', worker_status_json($1::timestamptz))";

// The trends' figures for `zone`, with the kept days when there are (`kept` null: all 30 days read);
// the days read are kept.
awaitable<std::string> trends(core::db::Pool& db, dashboard::KeptDays& kept, const std::string& zone,
                              const dashboard::Clock& clock, std::optional<std::string> past) {
  const auto rows = co_await db.query(kTrends, zone, clock.at, std::move(past));
  const auto& row = rows.front();
  if (!row.is_null(1)) kept.keep(zone, std::string(row.text(1)));
  co_return std::string(row.text(0));
}

}  // namespace

void install_dashboard_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                              std::shared_ptr<integrations::Registry> registry, dashboard::Clock clock,
                              std::chrono::seconds trends_keep) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/dashboard/overview", [&db, clock](Request& req) {
    return core::app::json_document(db, kOverview, identity::current_timezone(req), clock.at);
  });

  auto kept = std::make_shared<dashboard::KeptDays>(trends_keep);
  routes.get("/api/dashboard/trends", [&db, clock, kept](Request& req) -> awaitable<Response> {
    const std::string zone = identity::current_timezone(req);
    co_return Response::json_text(co_await trends(db, *kept, zone, clock, kept->find(zone)));
  });
  // In the background: at start the zones of the users signed in then, and every half keep the
  // zones asked for in the last ten minutes (none: no query), so that a request reads all 30 days
  // only for a zone nobody asked for lately.
  if (trends_keep.count() > 0) {
    auto started = std::make_shared<bool>(false);  // the schedule's runs never overlap
    auto renew = core::async::Schedule::start(
        ctx.executor, std::max<std::chrono::milliseconds>(trends_keep / 2, std::chrono::seconds(1)),
        [&db, clock, kept, started]() -> awaitable<void> {
          std::vector<std::string> zones;
          if (!*started) {
            *started = true;
            for (const auto& row : co_await db.query(kSignedInZones, std::string(identity::kDefaultTimezone)))
              zones.emplace_back(row.text(0));
          } else {
            zones = kept->asked(std::chrono::minutes(10));
          }
          for (const auto& zone : zones) co_await trends(db, *kept, zone, clock, std::nullopt);
        },
        "dashboard trends days", ctx.clock);
    renew->wake();
    ctx.stop_hooks.push_back([renew] { renew->stop(); });
  }

  routes.get("/api/dashboard/integration-health", [&db, registry](Request&) -> awaitable<Response> {
    co_return co_await core::app::json_document(db, kIntegrationHealth, co_await registry->disabled());
  });

  routes.get("/api/status/workers",
             [&db, clock](Request&) { return core::app::json_document(db, kWorkers, clock.at); });
}

}  // namespace ops_console

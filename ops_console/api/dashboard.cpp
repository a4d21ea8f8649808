#include "ops_console/api/dashboard.hpp"

#include "core/app/json_rows.hpp"
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
constexpr std::string_view kIntegrationHealth =
    "SELECT json_build_object('integrations', integration_board_json($1::text[]))";
constexpr std::string_view kWorkers =
    "SELECT json_build_object('at', $1::timestamptz, "
    "'workers', worker_status_json($1::timestamptz))";

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
    const auto rows = co_await db.query(kTrends, zone, clock.at, kept->find(zone));
    const auto& row = rows.front();
    if (!row.is_null(1)) kept->keep(zone, std::string(row.text(1)));
    co_return Response::json_text(std::string(row.text(0)));
  });

  routes.get("/api/dashboard/integration-health", [&db, registry](Request&) -> awaitable<Response> {
    co_return co_await core::app::json_document(db, kIntegrationHealth, co_await registry->disabled());
  });

  routes.get("/api/status/workers",
             [&db, clock](Request&) { return core::app::json_document(db, kWorkers, clock.at); });
}

}  // namespace ops_console

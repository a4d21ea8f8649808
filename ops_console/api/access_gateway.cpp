#include "ops_console/api/access_gateway.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;
using nlohmann::json;

namespace {

constexpr std::string_view kGatewayKey = "access_gateway";
constexpr std::string_view kGatewayName = "access-gateway";

// Applications render as access_gateway_app_json() (migration 0027).
constexpr std::string_view kGatewayApps = R"sql(
  SELECT coalesce(json_agg(access_gateway_app_json(a) ORDER BY lower(a.name), a.id), '[]'::json)
  FROM access_gateway_apps a WHERE a.deleted_at IS NULL
)sql";

}  // namespace

void install_access_gateway_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                   std::shared_ptr<integrations::Registry> registry,
                                   std::shared_ptr<access_gateway::AccessGatewaySync> sync,
                                   const access_gateway::AccessGatewaySettings& settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const auto missing = settings.missing();

  // The configuration-only health row: what is set, never a call.
  routes.get("/api/access-gateway/health", [registry, missing](Request&) -> awaitable<Response> {
    const bool off = (co_await registry->disabled()).contains(std::string(kGatewayKey));
    co_return Response::json(
        {{"key", kGatewayKey}, {"configured", missing.empty()}, {"missing", missing}, {"switchedOff", off}});
  });

  // Public, as the spec says (an outside scheduler may start it): it starts a run and says so, nothing more.
  routes.post("/api/access-gateway/sync", Access::open(),
              integrations::start_sync_handler(registry,
                                               {.key = std::string(kGatewayKey),
                                                .name = std::string(kGatewayName),
                                                .service = "the access gateway",
                                                .run = "an access-gateway sync",
                                                .missing = missing},
                                               sync ? std::function([sync] { return sync->start(); }) : nullptr));

  routes.get("/api/access-gateway/sync", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled(std::string(kGatewayKey), std::string(kGatewayName));
    co_return Response::json(co_await access_gateway::access_gateway_sync_status(db));
  });

  routes.get("/api/access-gateway/applications", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled(std::string(kGatewayKey), std::string(kGatewayName));
    co_return co_await core::app::json_document(db, kGatewayApps);
  });
}

}  // namespace ops_console

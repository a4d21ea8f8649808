#include "ops_console/api/sync.hpp"

#include "core/http/problem.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

// 403 while the PSA integration is switched off, 503 while the PSA is not configured: the
// checks every PSA route makes first.
awaitable<void> require_psa(integrations::Registry& registry, const psa::PsaSync* sync) {
  co_await registry.require_enabled("psa", "PSA");
  if (!sync) throw Problem::unavailable("the PSA is not configured (PSA_BASE_URL and its credentials are unset)");
}

}  // namespace

awaitable<void> scheduled_psa_sync(integrations::Registry& registry, psa::PsaSync& sync) {
  const auto disabled = co_await registry.disabled();
  if (disabled.contains("psa")) co_return;
  co_await sync.run_incremental();
}

void install_sync_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                         std::shared_ptr<integrations::Registry> registry, std::shared_ptr<psa::PsaSync> sync) {
  identity::Routes routes(ctx.router, id);

  routes.post("/api/sync/incremental", Access::open(), [registry, sync](Request&) -> awaitable<Response> {
    co_await require_psa(*registry, sync.get());
    if (!co_await sync->start_incremental()) throw Problem::conflict("a PSA sync is already under way");
    co_return Response::json({{"started", true}}, core::http::Status::accepted);
  });

  routes.post("/api/sync/reconcile-tickets", Access::open(), [registry, sync](Request&) -> awaitable<Response> {
    co_await require_psa(*registry, sync.get());
    const auto result = co_await sync->reconcile();
    if (!result) throw Problem::conflict("a ticket reconciliation is already under way");
    co_return Response::json(result->to_json());
  });

  routes.get("/api/sync/classifications", [registry, sync](Request&) -> awaitable<Response> {
    co_await require_psa(*registry, sync.get());
    co_return Response::json(co_await sync->classifications());
  });

  routes.post("/api/sync/classifications", Access::admin(), [registry, sync](Request&) -> awaitable<Response> {
    co_await require_psa(*registry, sync.get());
    try {
      const auto list = co_await sync->sync_classifications();
      co_return Response::json(list);
    } catch (const psa::PsaError& e) {
      throw e.problem();
    }
  });
}

}  // namespace ops_console

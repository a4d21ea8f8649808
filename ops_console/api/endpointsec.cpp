#include "ops_console/api/endpointsec.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/company_mappings.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::string_view kMappings = R"sql(
  SELECT coalesce(json_agg(json_build_object('siteId', m.site_id, 'siteName', s.name, 'companyId', m.company_id,
                                             'companyName', c.company_name, 'mappedAt', m.mapped_at)
                           ORDER BY lower(s.name), m.site_id), '[]'::json)
  FROM endpointsec_company_mappings m
  JOIN endpointsec_sites s ON s.id = m.site_id
  JOIN companies c ON c.id = m.company_id
)sql";

constexpr std::string_view kSiteExists = "SELECT 1 FROM endpointsec_sites WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kMap = R"sql(
  INSERT INTO endpointsec_company_mappings (site_id, company_id, mapped_by) VALUES ($1, $2, $3)
  ON CONFLICT (site_id) DO UPDATE SET company_id = EXCLUDED.company_id, mapped_by = EXCLUDED.mapped_by,
    mapped_at = now()
  RETURNING json_build_object('siteId', site_id, 'companyId', company_id, 'mappedAt', mapped_at)
)sql";
constexpr std::string_view kUnmap = "DELETE FROM endpointsec_company_mappings WHERE site_id = $1 RETURNING 1";

// Sites render as endpointsec_site_json() (migration 0015).
constexpr std::string_view kCoverage = R"sql(
  SELECT coalesce(json_agg(endpointsec_site_json(s) ORDER BY lower(s.name), s.id), '[]'::json)
  FROM endpointsec_sites s WHERE s.deleted_at IS NULL
)sql";

}  // namespace

void install_endpointsec_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                std::shared_ptr<integrations::Registry> registry,
                                std::shared_ptr<endpointsec::EndpointSecSync> sync,
                                endpointsec::EndpointSecSettings settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const auto missing = settings.missing();

  routes.post("/api/endpointsec/sync", Access::admin(),
              integrations::start_sync_handler(registry,
                                               {.key = "endpointsec",
                                                .name = "endpoint-security",
                                                .service = "the endpoint-security service",
                                                .run = "an endpoint-security sync",
                                                .missing = missing},
                                               sync ? std::function([sync] { return sync->start(); }) : nullptr));

  routes.get("/api/endpointsec/sync", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("endpointsec", "endpoint-security");
    co_return Response::json(co_await endpointsec::endpointsec_sync_status(db));
  });

  routes.get("/api/endpointsec/company-mappings", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("endpointsec", "endpoint-security");
    co_return co_await core::app::json_document(db, kMappings);
  });

  integrations::install_company_mapping_routes(routes, db, registry,
                                               {.path = "/api/endpointsec/company-mappings",
                                                .key = "endpointsec",
                                                .name = "endpoint-security",
                                                .key_field = "siteId",
                                                .max_key_length = 40,
                                                .noun = "site",
                                                .unknown_key = "names no endpoint-security site (run a sync first?)",
                                                .exists = kSiteExists,
                                                .map = kMap,
                                                .unmap = kUnmap});

  routes.get("/api/endpointsec/coverage", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("endpointsec", "endpoint-security");
    co_return co_await core::app::json_document(db, kCoverage);
  });
}

}  // namespace ops_console

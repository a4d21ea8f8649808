#include "ops_console/api/data.hpp"

#include "core/app/json_rows.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using core::http::Request;

namespace {

constexpr std::string_view kCompanyCategories = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'is_active', is_active)
                           ORDER BY lower(name), id), '[]'::json)
  FROM company_categories
)sql";

constexpr std::string_view kCompaniesList = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', id, 'company_name', company_name)
                           ORDER BY lower(company_name), id), '[]'::json)
  FROM companies WHERE deleted_at IS NULL AND is_active
)sql";

}  // namespace

void install_data_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  routes.get("/api/data/company-categories",
             [&db](Request&) { return core::app::json_document(db, kCompanyCategories); });
  routes.get("/api/data/companies-list", [&db](Request&) { return core::app::json_document(db, kCompaniesList); });
}

}  // namespace ops_console

#include "ops_console/integrations/company_mappings.hpp"

#include "core/http/problem.hpp"
#include "core/json/validate.hpp"

#include <optional>

namespace ops_console::integrations {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::string_view kCompanyExists = "SELECT 1 FROM companies WHERE id = $1 AND deleted_at IS NULL";

// Runs `statement` and, with a rematch, the rematch after it in one transaction; `statement`'s rows.
awaitable<core::db::Result> with_rematch(core::db::Pool& db, std::string_view rematch, std::string_view statement,
                                         auto... params) {
  if (rematch.empty()) co_return co_await db.query(statement, params...);
  auto tx = co_await db.begin();
  auto rows = co_await tx.query(statement, params...);
  if (!rows.empty()) co_await tx.query(rematch);
  co_await tx.commit();
  co_return rows;
}

}  // namespace

void install_company_mapping_routes(identity::Routes& routes, core::db::Pool& db, std::shared_ptr<Registry> registry,
                                    CompanyMappingRoute r) {
  const auto route = std::make_shared<const CompanyMappingRoute>(std::move(r));
  const core::json::StringRule text_key{.min_length = 1, .max_length = route->max_key_length};

  routes.post(route->path, Access::admin(), [&db, registry, route, text_key](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled(route->key, route->name);
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string key = route->integer_key ? std::to_string(in.integer(route->key_field, {.min = 1}))
                                               : in.string(route->key_field, text_key);
    const auto company = in.integer("companyId", {.min = 1});
    in.finish();
    if ((co_await db.query(route->exists, key)).empty())
      throw Problem::invalid_field(route->key_field, route->unknown_key);
    if ((co_await db.query(kCompanyExists, company)).empty())
      throw Problem::invalid_field("companyId", "names no company");
    const auto rows =
        co_await with_rematch(db, route->rematch, route->map, key, company, identity::current_user(req).id);
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  routes.del(route->path, Access::admin(), [&db, registry, route, text_key](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled(route->key, route->name);
    core::json::QueryReader in(req.query);
    std::optional<std::string> key;
    if (route->integer_key) {
      if (const auto id = in.optional_integer(route->key_field, {.min = 1})) key = std::to_string(*id);
    } else {
      key = in.optional_string(route->key_field, text_key);
    }
    if (!key) in.add(route->key_field, "is required");
    in.finish();
    if ((co_await with_rematch(db, route->rematch, route->unmap, *key)).empty())
      throw Problem::not_found(route->noun + " " + *key + " has no mapping");
    co_return Response::empty();
  });
}

}  // namespace ops_console::integrations

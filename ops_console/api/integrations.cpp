#include "ops_console/api/integrations.hpp"

#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using integrations::Registry;
using nlohmann::json;

namespace {

// The key, and the row as JSON (timestamps in RFC 3339).
constexpr std::string_view kColumns = R"sql(key, json_build_object(
    'key', key, 'disabled', disabled, 'reason', reason, 'disabled_by', disabled_by, 'disabled_at', disabled_at,
    'updated_by', updated_by, 'updated_at', updated_at))sql";

const std::string kList = "SELECT " + std::string(kColumns) + " FROM integration_settings ORDER BY key";

// disabled_by and disabled_at tell who switched it off and when; re-disabling keeps them.
const std::string kToggle = R"sql(
  UPDATE integration_settings SET
    disabled = $2,
    reason = $3,
    disabled_by = CASE WHEN NOT $2 THEN NULL WHEN disabled THEN disabled_by ELSE $4 END,
    disabled_at = CASE WHEN NOT $2 THEN NULL WHEN disabled THEN disabled_at ELSE now() END,
    updated_by = $4,
    updated_at = now()
  WHERE key = $1
  RETURNING )sql" + std::string(kColumns);

const core::json::StringRule kKey{.min_length = 1, .max_length = 64};
const core::json::StringRule kReason{.max_length = 500};

std::string label_of(const std::string& key) {
  for (const auto& i : integrations::known_integrations())
    if (i.key == key) return std::string(i.label);
  return key;
}

// The row, with what the environment makes of it; `effective` is what the service applies now.
json item_json(const core::db::Row& r, const Registry& registry, bool effective) {
  const auto key = r.get<std::string>(0);
  json item = json::parse(r.text(1));
  item["label"] = label_of(key);
  item["disabled_by_env"] = registry.env_disabled().contains(key);
  item["effective_disabled"] = effective;
  return item;
}

}  // namespace

void install_integration_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                std::shared_ptr<Registry> registry) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/admin/integrations", Access::permission("admin", "access"),
             [&db, registry](Request&) -> awaitable<Response> {
               const auto rows = co_await db.query(kList);
               const auto effective = co_await registry->disabled();
               json items = json::array();
               for (const auto& r : rows)
                 items.push_back(item_json(r, *registry, effective.contains(r.get<std::string>(0))));
               co_return Response::json({{"items", items}, {"env_disabled", registry->env_disabled()}});
             });

  routes.patch("/api/admin/integrations", Access::permission("admin", "access"),
               [&db, registry](Request& req) -> awaitable<Response> {
                 const auto body = core::json::parse_object(req.body);
                 core::json::BodyReader in(body);
                 const auto key = integrations::canonical_key(in.string("key", kKey));
                 const bool disabled = in.boolean("disabled");
                 auto reason = in.optional_string("reason", kReason);
                 in.finish();
                 const auto rows =
                     co_await db.query(kToggle, key, disabled, std::move(reason), current_user(req).email);
                 if (rows.empty()) throw Problem::not_found("no integration " + key);
                 registry->clear_cache();
                 // what the next read of the cache will say, without reading it
                 const bool effective = disabled || registry->env_disabled().contains(key);
                 co_return Response::json(item_json(rows.front(), *registry, effective));
               });
}

}  // namespace ops_console

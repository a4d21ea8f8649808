#include "ops_console/api/preferences.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "ops_console/api/auth.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using identity::kDefaultTheme;
using identity::kDefaultTimezone;

namespace {

const core::json::StringRule kTheme{.one_of = {"light", "dark", "system"}};
const core::json::StringRule kTimezone{.min_length = 1, .max_length = 64};
const core::json::StringRule kDisplayName{.min_length = 1, .max_length = 200};

// The zone must be one the server knows by that exact name; the update happens only then.
constexpr std::string_view kSetTimezone = R"sql(
  UPDATE users SET timezone = $2, "updatedAt" = now()
  WHERE id = $1 AND EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $2)
  RETURNING timezone
)sql";

// The zones PUT /api/me/timezone accepts, for the preference page's searchable list: the IANA
// names (not the posix/ and right/ copies of the same zones, nor PostgreSQL's "localtime").
constexpr std::string_view kTimezones = R"sql(
  SELECT json_build_object('timezones', coalesce(json_agg(name ORDER BY name), '[]'))::text
  FROM pg_timezone_names
  WHERE name NOT LIKE 'posix/%' AND name NOT LIKE 'right/%' AND name <> 'localtime'
)sql";

constexpr std::string_view kSetTheme = R"sql(
  UPDATE users SET theme = $2, "updatedAt" = now() WHERE id = $1 RETURNING theme
)sql";

constexpr std::string_view kSetName = R"sql(
  UPDATE users SET name = $2, "updatedAt" = now() WHERE id = $1 RETURNING id
)sql";

// {<field>: value, source: user|default}
Response preference(std::string_view field, const std::optional<std::string>& value, std::string_view fallback) {
  return Response::json(
      {{std::string(field), value.value_or(std::string(fallback))}, {"source", value ? "user" : "default"}});
}

std::string read_one(const Request& req, std::string_view field, const core::json::StringRule& rule) {
  const auto body = core::json::parse_object(req.body);
  core::json::BodyReader in(body);
  std::string value = in.string(field, rule);
  in.finish();
  return value;
}

}  // namespace

void install_preference_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/me/timezone", [](Request& req) -> awaitable<Response> {
    co_return preference("timezone", current_user(req).timezone, kDefaultTimezone);
  });

  routes.put("/api/me/timezone", [&db](Request& req) -> awaitable<Response> {
    const std::string zone = read_one(req, "timezone", kTimezone);
    const auto rows = co_await db.query(kSetTimezone, current_user(req).id, zone);
    if (rows.empty())
      throw Problem::invalid_field("timezone", "is not a time zone name the server knows (IANA, e.g. Europe/Berlin)");
    co_return preference("timezone", zone, kDefaultTimezone);
  });

  routes.get("/api/me/timezones", [&db](Request&) { return core::app::json_document(db, kTimezones); });

  routes.get("/api/me/theme", [](Request& req) -> awaitable<Response> {
    co_return preference("theme", current_user(req).theme, kDefaultTheme);
  });

  routes.put("/api/me/theme", [&db](Request& req) -> awaitable<Response> {
    const std::string theme = read_one(req, "theme", kTheme);
    co_await db.query(kSetTheme, current_user(req).id, theme);
    co_return preference("theme", theme, kDefaultTheme);
  });

  routes.patch("/api/settings/profile", Access::admin(), [&db, id](Request& req) -> awaitable<Response> {
    const std::string name = read_one(req, "name", kDisplayName);
    const auto user_id = current_user(req).id;
    co_await db.query(kSetName, user_id, name);
    const auto user = co_await id->user_by_id(user_id);
    co_return Response::json(user_json(user));
  });
}

}  // namespace ops_console

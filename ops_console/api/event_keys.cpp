#include "ops_console/api/event_keys.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

#include <regex>

namespace ops_console {

using identity::Access;

using core::http::Problem;
using core::http::Request;

namespace {

// A key renders as notify_event_key_json() (migration 0006).
constexpr std::string_view kList = R"sql(
  SELECT coalesce(json_agg(notify_event_key_json(k) ORDER BY k.sort_order, k.key), '[]'::json)
  FROM notify_event_keys k
)sql";

constexpr std::string_view kCreate = R"sql(
  INSERT INTO notify_event_keys AS k (key, description, sort_order, is_active) VALUES ($1, $2, $3, $4)
  RETURNING notify_event_key_json(k)
)sql";

// $2..$4 are NULL for "keep".
constexpr std::string_view kUpdate = R"sql(
  UPDATE notify_event_keys k SET
    description = coalesce($2, k.description),
    sort_order = coalesce($3::integer, k.sort_order),
    is_active = coalesce($4::boolean, k.is_active),
    updated_at = now()
  WHERE k.key = $1
  RETURNING notify_event_key_json(k)
)sql";

constexpr std::string_view kDelete = "DELETE FROM notify_event_keys WHERE key = $1 RETURNING key";

bool is_event_key(std::string_view key) {
  static const std::regex pattern("^[a-z][a-z0-9_]*$", std::regex::icase);
  return std::regex_match(key.begin(), key.end(), pattern);
}

const core::json::StringRule kKey{.min_length = 1,
                                  .max_length = 128,
                                  .check = is_event_key,
                                  .check_message = "must match ^[a-z][a-z0-9_]*$",
                                  .lowercase = true};
const core::json::StringRule kDescription{.max_length = 500};
const core::json::IntRule kSortOrder{.min = -1'000'000, .max = 1'000'000};

Problem no_key(const std::string& key) { return Problem::not_found("no notify event key " + key); }

}  // namespace

void install_event_key_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/admin/notify-event-keys", Access::admin(),
             [&db](Request&) { return core::app::json_document(db, kList); });

  routes.post("/api/admin/notify-event-keys", Access::admin(), [&db](Request& req) {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    std::string key = in.string("key", kKey);
    std::string description = in.optional_string("description", kDescription).value_or("");
    const auto sort_order = in.optional_integer("sort_order", kSortOrder).value_or(0);
    const bool is_active = in.optional_boolean("is_active").value_or(true);
    in.finish();
    return core::app::json_resource(db,
                                    {.missing = no_key(key),
                                     .duplicate = Problem::conflict("the notify event key " + key + " exists already"),
                                     .found = core::http::Status::created},
                                    kCreate, key, std::move(description), sort_order, is_active);
  });

  routes.put("/api/admin/notify-event-keys/{key}", Access::admin(), [&db](Request& req) {
    const std::string key = core::to_lower(req.param("key"));
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    auto description = in.patch_string("description", kDescription, false);
    const auto sort_order = in.patch_integer("sort_order", kSortOrder);
    const auto is_active = in.patch_boolean("is_active");
    in.finish();
    return core::app::json_resource(db, {.missing = no_key(key)}, kUpdate, key, std::move(description.value),
                                    sort_order.value, is_active.value);
  });

  routes.del("/api/admin/notify-event-keys/{key}", Access::admin(),
             [&db](Request& req) -> boost::asio::awaitable<core::http::Response> {
               const std::string key = core::to_lower(req.param("key"));
               const auto rows = co_await db.query(kDelete, key);
               if (rows.empty()) throw no_key(key);
               co_return core::http::Response::empty();
             });
}

}  // namespace ops_console

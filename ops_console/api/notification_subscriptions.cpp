#include "ops_console/api/notifications.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/notify/channels.hpp"

namespace ops_console {

using boost::asio::awaitable;
using channel_fields::kChannelType;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using nlohmann::json;

namespace {

// Active keys in the admin's order, each with the session user's explicit cells.
constexpr std::string_view kMatrix = R"sql(
  SELECT k.key, coalesce(json_object_agg(s.channel_type, s.enabled) FILTER (WHERE s.channel_type IS NOT NULL),
                         '{}'::json)::text
  FROM notify_event_keys k
  LEFT JOIN notification_subscriptions s ON s.event_key = k.key AND s.user_id = $1
  WHERE k.is_active
  GROUP BY k.key, k.sort_order
  ORDER BY k.sort_order, k.key
)sql";

constexpr std::string_view kSubscribe = R"sql(
  INSERT INTO notification_subscriptions (user_id, event_key, channel_type, enabled) VALUES ($1, $2, $3, $4)
  ON CONFLICT (user_id, event_key, channel_type) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()
  RETURNING json_build_object('event_key', event_key, 'channel_type', channel_type, 'enabled', enabled)
)sql";

const core::json::StringRule kEventKey{.min_length = 1, .max_length = 128, .lowercase = true};

}  // namespace

void install_subscription_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/me/notification-subscriptions", [&db](Request& req) -> awaitable<Response> {
    const auto rows = co_await db.query(kMatrix, current_user(req).id);
    json keys = json::array();
    json matrix = json::object();
    for (const auto& r : rows) {
      const std::string key(r.text(0));
      const json explicit_cells = json::parse(r.text(1));
      keys.push_back(key);
      for (const auto type : notify::kChannelTypes)
        matrix[key][std::string(type)] = explicit_cells.value(std::string(type), true);  // opt-out
    }
    co_return Response::json(
        {{"eventKeys", keys},
         {"channelTypes", json(std::vector<std::string>(notify::kChannelTypes.begin(), notify::kChannelTypes.end()))},
         {"matrix", matrix}});
  });

  routes.put("/api/me/notification-subscriptions", [&db](Request& req) {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    std::string event_key = in.string("event_key", kEventKey);
    std::string type = in.string("channel_type", kChannelType);
    const bool enabled = in.boolean("enabled");
    in.finish();
    return core::app::json_document(db, kSubscribe, current_user(req).id, std::move(event_key), std::move(type),
                                    enabled);
  });
}

}  // namespace ops_console

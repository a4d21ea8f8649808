#include "ops_console/api/notifications.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/notify/channels.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using nlohmann::json;
using namespace channel_fields;

namespace {

// Channels render as notification_channel_json() (migration 0008).
constexpr std::string_view kMine = R"sql(
  SELECT coalesce(json_agg(notification_channel_json(c, u.email) ORDER BY c.channel_type), '[]'::json)
  FROM notification_channels c JOIN users u ON u.id = c.owner_user_id
  WHERE c.owner_user_id = $1
)sql";

// The stored channel of a type, with the secrets it has set (as the renderer lists them).
constexpr std::string_view kMineOfType = R"sql(
  SELECT id, name, config::text, (notification_channel_json(c, NULL)->'secrets_set')::text
  FROM notification_channels c WHERE owner_user_id = $1 AND channel_type = $2
)sql";

constexpr std::string_view kUpsertMine = R"sql(
  INSERT INTO notification_channels AS c (owner_user_id, channel_type, name, enabled, config)
  VALUES ($1, $2, $3, $4, $5::jsonb)
  ON CONFLICT (owner_user_id, channel_type) WHERE owner_user_id IS NOT NULL DO UPDATE
    SET name = EXCLUDED.name, enabled = EXCLUDED.enabled, config = EXCLUDED.config, updated_at = now()
  RETURNING c.id, notification_channel_json(c, (SELECT email FROM users WHERE id = c.owner_user_id))::text,
            (xmax = 0) AS created
)sql";

constexpr std::string_view kDeleteMine = R"sql(
  DELETE FROM notification_channels WHERE owner_user_id = $1 AND channel_type = $2 RETURNING id
)sql";

// A {type} path segment: one of the four channel types, else 400 naming it.
std::string channel_type_of(const Request& req) {
  std::string type(req.param("type"));
  if (!notify::is_channel_type(type))
    throw Problem::invalid_field("type", "must be one of chat_webhook, messenger_bot, push_topic, webhook");
  return type;
}

}  // namespace

void install_personal_channel_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                     std::shared_ptr<const notify::Notifier> notifier) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/me/channels",
             [&db](Request& req) { return core::app::json_document(db, kMine, current_user(req).id); });

  routes.put("/api/me/channels/{type}", [&db, notifier](Request& req) -> awaitable<Response> {
    const std::string type = channel_type_of(req);
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string name = in.optional_string("name", kName).value_or("");
    const bool enabled = in.optional_boolean("enabled").value_or(true);
    if (!in.has("config")) in.add("config", "is required");
    in.finish();
    const auto user_id = current_user(req).id;
    // Secrets omitted from the body keep their stored value: they are never shown to be re-sent.
    const auto existing = co_await db.query(kMineOfType, user_id, type);
    const json stored = existing.empty() ? json::object() : json::parse(existing.front().text(2));
    const json secrets_set = existing.empty() ? json::array() : json::parse(existing.front().text(3));
    json incoming = notify::replace_config(stored, body["config"], secrets_set);
    const auto secret = notify::add_generated_secret(type, incoming);  // a new webhook channel without one
    core::json::Errors errors;
    const json config = notify::read_config(type, incoming, notifier->settings(), errors, stored);
    errors.finish();

    const auto rows = co_await db.query(kUpsertMine, user_id, type, name, enabled, config);
    const auto& row = rows.front();
    const notify::Channel channel{.id = row.get<std::int64_t>(0), .type = type, .name = name, .config = config};
    const bool created = row.get<bool>(2);
    json rendered = json::parse(row.text(1));
    if (secret) rendered["secret"] = *secret;  // generated: the only time it is shown
    // Best effort: the channel is saved whatever the test send says.
    const auto delivery = co_await notifier->send_test(channel);
    co_return Response::json({{"channel", rendered}, {"test", delivery.to_json()}},
                             created ? core::http::Status::created : core::http::Status::ok);
  });

  routes.del("/api/me/channels/{type}", [&db](Request& req) -> awaitable<Response> {
    const std::string type = channel_type_of(req);
    const auto rows = co_await db.query(kDeleteMine, current_user(req).id, type);
    if (rows.empty()) throw Problem::not_found("you have no " + type + " channel");
    co_return Response::empty();
  });

  routes.post("/api/me/channels/{type}/rotate-secret", [&db](Request& req) -> awaitable<Response> {
    const std::string type = channel_type_of(req);
    if (type != "webhook")
      throw Problem::invalid_field("type", "must be webhook: no other channel type has a signing secret");
    const auto rows = co_await db.query(kMineOfType, current_user(req).id, type);
    if (rows.empty()) throw Problem::not_found("you have no webhook channel");
    co_return co_await rotate_secret(db, rows.front().get<std::int64_t>(0));
  });

  routes.post("/api/me/channels/{type}/test", [&db, notifier](Request& req) -> awaitable<Response> {
    const std::string type = channel_type_of(req);
    const auto rows = co_await db.query(kMineOfType, current_user(req).id, type);
    if (rows.empty()) throw Problem::not_found("you have no " + type + " channel");
    const auto& r = rows.front();
    const notify::Channel channel{
        .id = r.get<std::int64_t>(0), .type = type, .name = std::string(r.text(1)), .config = json::parse(r.text(2))};
    const auto delivery = co_await notifier->send_test(channel);
    co_return test_result(channel.id, delivery);
  });
}

}  // namespace ops_console

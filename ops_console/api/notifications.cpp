#include "ops_console/api/notifications.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/notify/channels.hpp"

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using nlohmann::json;
using notify::Notifier;

namespace {

// ---- SQL -------------------------------------------------------------------------------------

// $1: global | personal | all.
constexpr std::string_view kListForAdmin = R"sql(
  SELECT coalesce(json_agg(notification_channel_json(c, u.email) ORDER BY c.id), '[]'::json)
  FROM notification_channels c LEFT JOIN users u ON u.id = c.owner_user_id
  WHERE $1 = 'all' OR ($1 = 'global') = (c.owner_user_id IS NULL)
)sql";

// Others see that global channels exist, not where they post.
constexpr std::string_view kListGlobal = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', c.id, 'channel_type', c.channel_type, 'owner_user_id', NULL,
                                             'name', c.name, 'enabled', c.enabled) ORDER BY c.id), '[]'::json)
  FROM notification_channels c
  WHERE c.owner_user_id IS NULL AND $1 <> 'personal'
)sql";

// No row when the named owner does not exist: the owner ($2) must equal the user of that id,
// which is NULL for none, so a global channel (owner NULL) passes too.
constexpr std::string_view kCreate = R"sql(
  INSERT INTO notification_channels AS c (channel_type, owner_user_id, name, enabled, config)
  SELECT $1, $2, $3, $4, $5::jsonb
  WHERE $2::bigint IS NOT DISTINCT FROM (SELECT id FROM users WHERE id = $2)
  RETURNING notification_channel_json(c, (SELECT email FROM users WHERE id = c.owner_user_id))
)sql";

constexpr std::string_view kLoad = R"sql(
  SELECT c.owner_user_id, c.channel_type, c.name, c.config::text, notification_channel_json(c, u.email)::text
  FROM notification_channels c LEFT JOIN users u ON u.id = c.owner_user_id
  WHERE c.id = $1
)sql";

// $2..$4 are NULL for "keep".
constexpr std::string_view kUpdate = R"sql(
  UPDATE notification_channels c SET
    name = coalesce($2, c.name),
    enabled = coalesce($3::boolean, c.enabled),
    config = coalesce($4::jsonb, c.config),
    updated_at = now()
  WHERE c.id = $1
  RETURNING notification_channel_json(c, (SELECT email FROM users WHERE id = c.owner_user_id))
)sql";

constexpr std::string_view kDelete = "DELETE FROM notification_channels WHERE id = $1";

constexpr std::string_view kMine = R"sql(
  SELECT coalesce(json_agg(notification_channel_json(c, u.email) ORDER BY c.channel_type), '[]'::json)
  FROM notification_channels c JOIN users u ON u.id = c.owner_user_id
  WHERE c.owner_user_id = $1
)sql";

constexpr std::string_view kMineOfType = R"sql(
  SELECT id, name, config::text FROM notification_channels WHERE owner_user_id = $1 AND channel_type = $2
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

// ---- Reading requests ------------------------------------------------------------------------

const core::json::StringRule kChannelType{.one_of = {notify::kChannelTypes.begin(), notify::kChannelTypes.end()}};
const core::json::StringRule kName{.max_length = 200};
const core::json::StringRule kEventKey{.min_length = 1, .max_length = 128, .lowercase = true};
const core::json::StringRule kOwnerFilter{.one_of = {"global", "personal", "all"}};

// A {type} path segment: one of the four channel types, else 400 naming it.
std::string channel_type_of(const Request& req) {
  std::string type(req.param("type"));
  if (!notify::is_channel_type(type))
    throw Problem::invalid_field("type", "must be one of chat_webhook, messenger_bot, push_topic, webhook");
  return type;
}

std::int64_t id_of(const Request& req) {
  const auto id = core::parse_int64(req.param("id"));
  if (!id) throw Problem::invalid_field("id", "must be a channel id");
  return *id;
}

Problem no_channel(std::int64_t id) { return Problem::not_found("no notification channel " + std::to_string(id)); }

// A stored channel with its owner, for the per-id routes' access rule.
struct Stored {
  std::optional<std::int64_t> owner;
  notify::Channel channel;
  std::string rendered;  // notification_channel_json
};

// The channel, once the session user may act on it: an admin, or the owner of a personal one.
awaitable<Stored> load_for(core::db::Pool& db, const Request& req) {
  const std::int64_t id = id_of(req);
  const auto rows = co_await db.query(kLoad, id);
  if (rows.empty()) throw no_channel(id);
  const auto& r = rows.front();
  Stored s{.owner = r.get<std::optional<std::int64_t>>(0),
           .channel = {.id = id,
                       .type = std::string(r.text(1)),
                       .name = std::string(r.text(2)),
                       .config = json::parse(r.text(3))},
           .rendered = std::string(r.text(4))};
  const auto& user = current_user(req);
  if (!user.is_admin && !s.owner) throw Problem::forbidden("global channels are managed by administrators");
  if (!user.is_admin && s.owner != user.id) throw Problem::forbidden("this channel belongs to another user");
  co_return s;
}

Response test_result(std::int64_t channel_id, const notify::Delivery& d) {
  json out = d.to_json();
  out["channel_id"] = channel_id;
  return Response::json(out);
}

}  // namespace

void install_notification_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                 std::shared_ptr<const Notifier> notifier) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  // ---- Channels, global and personal ---------------------------------------------------------

  routes.get("/api/notification-channels", [&db](Request& req) {
    core::json::QueryReader in(req.query);
    const std::string owner = in.optional_string("owner", kOwnerFilter).value_or("all");
    in.finish();
    return core::app::json_document(db, current_user(req).is_admin ? kListForAdmin : kListGlobal, owner);
  });

  routes.post("/api/notification-channels", Access::admin(), [&db, notifier](Request& req) {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string type = in.string("channel_type", kChannelType);
    const auto owner = in.optional_integer("owner_user_id", {.min = 1});
    const std::string name = in.optional_string("name", kName).value_or("");
    const bool enabled = in.optional_boolean("enabled").value_or(true);
    if (!in.has("config")) in.add("config", "is required");
    const json config = notify::is_channel_type(type) && in.has("config")
                            ? notify::read_config(type, body["config"], notifier->settings(), in)
                            : json::object();
    in.finish();
    return core::app::json_resource(db,
                                    {.missing = Problem::invalid_field("owner_user_id", "no such user"),
                                     .duplicate = Problem::conflict("user " + std::to_string(owner.value_or(0)) +
                                                                    " has a " + type + " channel already"),
                                     .found = core::http::Status::created},
                                    kCreate, type, owner, name, enabled, config);
  });

  routes.get("/api/notification-channels/{id}", [&db](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    co_return Response::json_text(s.rendered);
  });

  routes.patch("/api/notification-channels/{id}", [&db, notifier](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    auto name = in.patch_string("name", kName, false);
    const auto enabled = in.patch_boolean("enabled");
    for (const auto* fixed : {"channel_type", "owner_user_id"})
      if (in.has(fixed)) in.add(fixed, "cannot be changed; create another channel");
    in.finish();  // before the database: a bad body does no work
    const Stored s = co_await load_for(db, req);
    std::optional<std::string> config;
    if (in.has("config")) {
      core::json::Errors errors;
      const json merged = notify::overlay_config(s.channel.config, body["config"], true);
      config = notify::read_config(s.channel.type, merged, notifier->settings(), errors).dump();
      errors.finish();
    }
    // Named, not a braced temporary inside co_await (docs/conventions.md, GCC 12).
    core::app::ResourceProblems problems{.missing = no_channel(s.channel.id)};
    co_return co_await core::app::json_resource(db, std::move(problems), kUpdate, s.channel.id, std::move(name.value),
                                                enabled.value, std::move(config));
  });

  routes.del("/api/notification-channels/{id}", [&db](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    co_await db.query(kDelete, s.channel.id);
    co_return Response::empty();
  });

  routes.post("/api/notification-channels/{id}/test", [&db, notifier](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    const auto delivery = co_await notifier->send_test(s.channel);
    co_return test_result(s.channel.id, delivery);
  });

  // ---- The session user's personal channels --------------------------------------------------

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
    core::json::Errors errors;
    const json config =
        notify::read_config(type, notify::overlay_config(stored, body["config"], false), notifier->settings(), errors);
    errors.finish();

    const auto rows = co_await db.query(kUpsertMine, user_id, type, name, enabled, config);
    const auto& row = rows.front();
    const notify::Channel channel{.id = row.get<std::int64_t>(0), .type = type, .name = name, .config = config};
    const bool created = row.get<bool>(2);
    // Best effort: the channel is saved whatever the test send says.
    const auto delivery = co_await notifier->send_test(channel);
    co_return Response::json({{"channel", json::parse(row.text(1))}, {"test", delivery.to_json()}},
                             created ? core::http::Status::created : core::http::Status::ok);
  });

  routes.del("/api/me/channels/{type}", [&db](Request& req) -> awaitable<Response> {
    const std::string type = channel_type_of(req);
    const auto rows = co_await db.query(kDeleteMine, current_user(req).id, type);
    if (rows.empty()) throw Problem::not_found("you have no " + type + " channel");
    co_return Response::empty();
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

  // ---- The subscription matrix ---------------------------------------------------------------

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

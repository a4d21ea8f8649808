#include "ops_console/api/notifications.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/standard_webhooks.hpp"
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
using namespace channel_fields;

namespace {

// Channels render as notification_channel_json() (migration 0008). $1: global | personal | all.
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
constexpr std::string_view kCreateChannel = R"sql(
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
constexpr std::string_view kUpdateChannel = R"sql(
  UPDATE notification_channels c SET
    name = coalesce($2, c.name),
    enabled = coalesce($3::boolean, c.enabled),
    config = coalesce($4::jsonb, c.config),
    updated_at = now()
  WHERE c.id = $1
  RETURNING notification_channel_json(c, (SELECT email FROM users WHERE id = c.owner_user_id))
)sql";

constexpr std::string_view kDeleteChannel = "DELETE FROM notification_channels WHERE id = $1";

// A webhook channel's secret replaced ($2: the new one).
constexpr std::string_view kRotateChannelSecret = R"sql(
  UPDATE notification_channels c SET config = jsonb_set(c.config, '{secret}', to_jsonb($2::text)), updated_at = now()
  WHERE c.id = $1 AND c.channel_type = 'webhook'
  RETURNING notification_channel_json(c, (SELECT email FROM users WHERE id = c.owner_user_id))
)sql";

const core::json::StringRule kOwnerFilter{.one_of = {"global", "personal", "all"}};

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

}  // namespace

Response channel_fields::test_result(std::int64_t channel_id, const notify::Delivery& d) {
  json out = d.to_json();
  out["channel_id"] = channel_id;
  return Response::json(out);
}

awaitable<Response> channel_fields::rotate_secret(core::db::Pool& db, std::int64_t channel_id) {
  const std::string secret = core::standard_webhooks::new_secret();
  const auto rows = co_await db.query(kRotateChannelSecret, channel_id, secret);
  if (rows.empty()) throw no_channel(channel_id);                               // removed meanwhile
  co_return core::app::shown_once(rows.front().text(0), {{"secret", secret}});  // the only time it is shown
}

void install_channel_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                            std::shared_ptr<const notify::Notifier> notifier) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/notification-channels", [&db](Request& req) {
    core::json::QueryReader in(req.query);
    const std::string owner = in.optional_string("owner", kOwnerFilter).value_or("all");
    in.finish();
    return core::app::json_document(db, current_user(req).is_admin ? kListForAdmin : kListGlobal, owner);
  });

  routes.post("/api/notification-channels", Access::admin(), [&db, notifier](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string type = in.string("channel_type", kChannelType);
    const auto owner = in.optional_integer("owner_user_id", {.min = 1});
    const std::string name = in.optional_string("name", kName).value_or("");
    const bool enabled = in.optional_boolean("enabled").value_or(true);
    if (!in.has("config")) in.add("config", "is required");
    json given = in.has("config") ? body["config"] : json::object();
    const auto secret = notify::add_generated_secret(type, given);  // a webhook without one
    const json config = notify::is_channel_type(type) && in.has("config")
                            ? notify::read_config(type, given, notifier->settings(), in)
                            : json::object();
    in.finish();
    auto created = co_await core::app::json_resource(
        db,
        {.missing = Problem::invalid_field("owner_user_id", "no such user"),
         .duplicate =
             Problem::conflict("user " + std::to_string(owner.value_or(0)) + " has a " + type + " channel already"),
         .found = core::http::Status::created},
        kCreateChannel, type, owner, name, enabled, config);
    if (secret) created = core::app::shown_once(created.body, {{"secret", *secret}}, created.status);  // this once
    co_return created;
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
      const json merged = notify::merge_config(s.channel.config, body["config"]);
      config = notify::read_config(s.channel.type, merged, notifier->settings(), errors, s.channel.config).dump();
      errors.finish();
    }
    core::app::ResourceProblems problems{.missing = no_channel(s.channel.id)};
    co_return co_await core::app::json_resource(db, std::move(problems), kUpdateChannel, s.channel.id,
                                                std::move(name.value), enabled.value, std::move(config));
  });

  routes.del("/api/notification-channels/{id}", [&db](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    co_await db.query(kDeleteChannel, s.channel.id);
    co_return Response::empty();
  });

  routes.post("/api/notification-channels/{id}/test", [&db, notifier](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    const auto delivery = co_await notifier->send_test(s.channel);
    co_return test_result(s.channel.id, delivery);
  });

  routes.post("/api/notification-channels/{id}/rotate-secret", [&db](Request& req) -> awaitable<Response> {
    const Stored s = co_await load_for(db, req);
    if (s.channel.type != "webhook")
      throw Problem::conflict("channel " + std::to_string(s.channel.id) + " is a " + s.channel.type +
                              " channel: only a webhook channel has a signing secret");
    co_return co_await rotate_secret(db, s.channel.id);
  });
}

}  // namespace ops_console

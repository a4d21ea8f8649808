#include "ops_console/api/morning_summary.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/morning/summary.hpp"
#include "ops_console/notify/url_guard.hpp"

#include <set>

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using nlohmann::json;

namespace {

constexpr std::string_view kBase = "/api/morning-summary";

// Webhooks render as morning_summary_webhook_json() (migration 0022), the URL masked.
constexpr std::string_view kList = R"sql(
  SELECT coalesce(json_agg(morning_summary_webhook_json(w) ORDER BY w.id), '[]'::json) FROM morning_summary_webhooks w
)sql";

constexpr std::string_view kCreate = R"sql(
  INSERT INTO morning_summary_webhooks AS w (name, url, url_shown, enabled) VALUES ($1, $2, $3, $4)
  RETURNING morning_summary_webhook_json(w)
)sql";

// $2..$5 are NULL for "keep".
constexpr std::string_view kUpdate = R"sql(
  UPDATE morning_summary_webhooks w SET
    name = coalesce($2, w.name),
    url = coalesce($3, w.url),
    url_shown = coalesce($4, w.url_shown),
    enabled = coalesce($5::boolean, w.enabled),
    updated_at = now()
  WHERE w.id = $1
  RETURNING morning_summary_webhook_json(w)
)sql";

constexpr std::string_view kDelete = "DELETE FROM morning_summary_webhooks WHERE id = $1 RETURNING id";

// The configuration renders as morning_summary_config_json() (migration 0022) with the schedule's
// fixed rules: $1 the send time, $2 the catch-up limit, $3 the sections there are.
constexpr std::string_view kConfig =
    "SELECT morning_summary_config_json(c, $1, $2, $3::text[]) FROM morning_summary_config c";

// The zone must be one the server knows by that exact name (as PUT /api/me/timezone checks it);
// the update happens only then.
constexpr std::string_view kSetConfig = R"sql(
  UPDATE morning_summary_config c
  SET timezone = $4, sections = $5::text[], enabled = $6, updated_by = $7, updated_at = now()
  WHERE EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $4)
  RETURNING morning_summary_config_json(c, $1, $2, $3::text[])
)sql";

// Sends render as morning_summary_send_json() (migration 0022), newest first.
constexpr std::string_view kHistory = R"sql(
  SELECT json_build_object('limit', $1::integer,
                           'items', coalesce(json_agg(morning_summary_send_json(x.s) ORDER BY (x.s).id DESC), '[]'::json))
  FROM (SELECT s FROM morning_summary_sends s ORDER BY s.id DESC LIMIT $1) x
)sql";

constexpr std::int64_t kDefaultHistory = 50;
constexpr std::int64_t kMaxHistory = 200;

const core::json::StringRule kName{.min_length = 1, .max_length = 200};
const core::json::StringRule kUrl{.min_length = 1, .max_length = 2048};
const core::json::StringRule kTimezone{.min_length = 1, .max_length = 64};
const core::json::StringRule kSection{.one_of = {morning::kSections.begin(), morning::kSections.end()}};

std::int64_t id_of(const Request& req) {
  const auto id = core::parse_int64(req.param("id"));
  if (!id || *id <= 0) throw Problem::invalid_field("id", "must be a webhook id");
  return *id;
}

Problem no_webhook(std::int64_t id) { return Problem::not_found("no morning-summary webhook " + std::to_string(id)); }

// A chat webhook URL, checked by the notifications' guard with the chat_webhook allowlist (no DNS
// here: every send resolves and checks again).
void check_url(core::json::BodyReader& in, const std::string& url, const notify::NotifySettings& settings) {
  if (url.empty()) return;
  if (auto why = notify::static_refusal(url, settings.rules_for("chat_webhook")); !why.empty()) in.add("url", why);
}

std::vector<std::string> read_sections(core::json::BodyReader& in) {
  const auto sections = in.strings("sections", kSection, 100, true);
  if (in.has("sections") && in.ok() && sections.empty()) in.add("sections", "must name at least one section");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (!seen.insert(sections[i]).second) in.add("sections[" + std::to_string(i) + "]", "repeats " + sections[i]);
  return sections;
}

std::vector<std::string> available() { return {morning::kSections.begin(), morning::kSections.end()}; }

}  // namespace

void install_morning_summary(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                             std::shared_ptr<integrations::Registry> registry,
                             std::shared_ptr<const notify::Notifier> notifier,
                             std::shared_ptr<mfa::FlaggedUsers> flagged, dashboard::Clock clock,
                             const morning::MorningSettings& settings) {
  const notify::NotifySettings notify_settings = notifier->settings();
  morning::Summary::schedule(ctx, settings.tick, notifier, registry, flagged, clock);
  auto summary = std::make_shared<morning::Summary>(ctx.db, ctx.executor, std::move(notifier), std::move(registry),
                                                    std::move(flagged), std::move(clock));

  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const std::string base(kBase);
  const std::string send_at(morning::kSendAt), catch_up(morning::kCatchUpUntil);

  routes.get(base + "/webhooks", Access::admin(), [&db](Request&) { return core::app::json_document(db, kList); });

  routes.post(base + "/webhooks", Access::admin(), [&db, notify_settings](Request& req) {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string name = in.string("name", kName);
    const std::string url = in.string("url", kUrl);
    const bool enabled = in.optional_boolean("enabled").value_or(true);
    check_url(in, url, notify_settings);
    in.finish();
    return core::app::json_resource(db, {.missing = no_webhook(0), .found = core::http::Status::created}, kCreate, name,
                                    url, notify::redacted_url(url), enabled);
  });

  routes.patch(base + "/webhooks/{id}", Access::admin(), [&db, notify_settings](Request& req) {
    const std::int64_t webhook = id_of(req);
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    auto name = in.patch_string("name", kName, false);
    auto url = in.patch_string("url", kUrl, false);
    const auto enabled = in.patch_boolean("enabled");
    if (url.value) check_url(in, *url.value, notify_settings);
    in.finish();
    std::optional<std::string> shown;
    if (url.value) shown = notify::redacted_url(*url.value);
    return core::app::json_resource(db, {.missing = no_webhook(webhook)}, kUpdate, webhook, std::move(name.value),
                                    std::move(url.value), std::move(shown), enabled.value);
  });

  routes.del(base + "/webhooks/{id}", Access::admin(), [&db](Request& req) -> awaitable<Response> {
    const std::int64_t webhook = id_of(req);
    const auto rows = co_await db.query(kDelete, webhook);
    if (rows.empty()) throw no_webhook(webhook);
    co_return Response::empty();
  });

  routes.get(base + "/config", Access::admin(), [&db, send_at, catch_up](Request&) {
    return core::app::json_document(db, kConfig, send_at, catch_up, available());
  });

  routes.put(base + "/config", Access::admin(), [&db, send_at, catch_up](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string zone = in.string("timezone", kTimezone);
    const auto sections = read_sections(in);
    const bool enabled = in.boolean("enabled");
    in.finish();
    const auto rows =
        co_await db.query(kSetConfig, send_at, catch_up, available(), zone, sections, enabled, current_user(req).id);
    if (rows.empty())
      throw Problem::invalid_field("timezone", "is not a time zone name the server knows (IANA, e.g. Europe/Berlin)");
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  routes.post(base + "/send", Access::admin(), [summary](Request& req) -> awaitable<Response> {
    co_return Response::json(co_await summary->send_now(current_user(req).id));
  });

  routes.post(base + "/test", Access::admin(), [summary](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::int64_t webhook = in.integer("webhookId", {.min = 1});
    in.finish();
    co_return Response::json(co_await summary->send_test(webhook, current_user(req).id));
  });

  routes.get(base + "/history", Access::admin(), [&db](Request& req) {
    core::json::QueryReader in(req.query);
    const std::int64_t limit = std::min(in.integer("limit", kDefaultHistory, {.min = 1}), kMaxHistory);
    in.finish();
    return core::app::json_document(db, kHistory, limit);
  });
}

}  // namespace ops_console

#include "ops_console/morning/summary.hpp"

#include "core/app/service.hpp"
#include "core/async/join.hpp"
#include "core/async/schedule.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/morning/content.hpp"
#include "ops_console/morning/settings.hpp"
#include "ops_console/notify/destination.hpp"

#include <boost/asio/this_coro.hpp>

#include <algorithm>

namespace ops_console::morning {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

// The scheduled claim, from the instant $1: the configuration is enabled, some webhook is, and
// it is Monday to Friday, at or after $2 and before $3 local time. The insert is the claim of the
// local date: the unique index morning_summary_days lets one instance have it. Each claim takes
// the send's lock ($4, kSendLock, and the id) in the same statement (claim_holding_lock()).
constexpr std::string_view kClaimScheduled = R"sql(
  WITH c AS (
    SELECT timezone, sections, $1::timestamptz AT TIME ZONE timezone AS local
    FROM morning_summary_config WHERE enabled)
  INSERT INTO morning_summary_sends AS s (kind, day, timezone, sections, at)
  SELECT 'scheduled', c.local::date, c.timezone, c.sections, $1::timestamptz FROM c
  WHERE extract(isodow FROM c.local) BETWEEN 1 AND 5
    AND c.local::time >= $2::time AND c.local::time < $3::time
    AND EXISTS (SELECT 1 FROM morning_summary_webhooks WHERE enabled)
  ON CONFLICT (day) WHERE kind = 'scheduled' DO NOTHING
  RETURNING s.id, s.timezone, s.sections, s.at::text, pg_advisory_lock(hashtext($4::text || s.id))
)sql";

// A send now: no row when no webhook is enabled.
constexpr std::string_view kClaimManual = R"sql(
  INSERT INTO morning_summary_sends AS s (kind, day, timezone, sections, at, requested_by)
  SELECT 'manual', ($1::timestamptz AT TIME ZONE c.timezone)::date, c.timezone, c.sections, $1::timestamptz, $2
  FROM morning_summary_config c
  WHERE EXISTS (SELECT 1 FROM morning_summary_webhooks WHERE enabled)
  RETURNING s.id, s.timezone, s.sections, s.at::text, pg_advisory_lock(hashtext($3::text || s.id))
)sql";

constexpr std::string_view kClaimTest = R"sql(
  INSERT INTO morning_summary_sends AS s (kind, day, timezone, at, requested_by)
  SELECT 'test', ($1::timestamptz AT TIME ZONE c.timezone)::date, c.timezone, $1::timestamptz, $2
  FROM morning_summary_config c
  RETURNING s.id, s.timezone, s.sections, s.at::text, pg_advisory_lock(hashtext($3::text || s.id))
)sql";

// A send holds the session advisory lock kSendLock + its id from its claim to its end, so a dead
// instance's sends are the rows still sending whose lock is free: they are closed as failed, and
// not sent again. (The CTEs keep the lock attempts to those rows.)
constexpr std::string_view kSendLock = "ops-console: morning summary send ";
constexpr std::string_view kCutShort =
    "interrupted: the instance sending it stopped before it ended; it may or may not have reached the webhooks, "
    "and is not sent again";
constexpr std::string_view kCloseCutShort = R"sql(
  WITH sending AS MATERIALIZED (SELECT id FROM morning_summary_sends WHERE status = 'sending'),
  dead AS MATERIALIZED (SELECT id FROM sending WHERE pg_try_advisory_xact_lock(hashtext($1::text || id)))
  UPDATE morning_summary_sends s SET status = 'failed', error = $2, finished_at = now()
  FROM dead WHERE s.id = dead.id
)sql";

constexpr std::string_view kWebhook = "SELECT id, name, url FROM morning_summary_webhooks WHERE id = $1";
constexpr std::string_view kTargets = "SELECT id, name, url FROM morning_summary_webhooks WHERE enabled ORDER BY id";

// The figures of the dashboards at $1 in the zone $2, the integrations in $3 left out
// (morning/content.hpp has the shape), from dashboard_overview_json() (migration 0039),
// integration_board_json() (migration 0020), worker_status_json() (migration 0039) and
// mobile_dashboard_json() (migration 0039), whose slaBreach items are the breached tickets, the
// most overdue first. Times are made local here.
constexpr std::string_view kFigures = R"sql(
  WITH local AS (SELECT $1::timestamptz AT TIME ZONE $2::text AS t),
  breached AS (
    SELECT a.value AS j, a.ordinality AS n
    FROM json_array_elements(mobile_dashboard_json($2::text, $1::timestamptz, $3::text[])->'needsAttention')
         WITH ORDINALITY a
    WHERE a.value->>'kind' = 'slaBreach'),
  board AS (SELECT i.value AS j, i.ordinality AS n FROM json_array_elements(integration_board_json($3::text[]))
            WITH ORDINALITY i)
  SELECT json_build_object(
    'date', (SELECT t::date FROM local),
    'dateText', (SELECT to_char(t, 'FMDay FMDD FMMonth YYYY') FROM local),
    'time', (SELECT to_char(t, 'HH24:MI') FROM local),
    'timezone', $2::text,
    'overview', dashboard_overview_json($2::text, $1::timestamptz),
    'breaches', (SELECT coalesce(json_agg(json_build_object(
                   'ticketNumber', j->'ticketNumber', 'title', j->'title', 'companyName', j->'companyName',
                   'due', to_char((j->>'dueDateTime')::timestamptz AT TIME ZONE $2::text, 'YYYY-MM-DD HH24:MI'))
                   ORDER BY n), '[]'::json) FROM breached),
    'integrations', (SELECT coalesce(json_agg(json_build_object(
                       'key', j->'key', 'state', j->'state', 'lastError', j->'lastError',
                       'lastFailure', to_char((j->>'lastFailureAt')::timestamptz AT TIME ZONE $2::text,
                                              'YYYY-MM-DD HH24:MI'))
                       ORDER BY n), '[]'::json) FROM board),
    'workers', worker_status_json($1::timestamptz))
)sql";

// The send's outcome; the entry renders as morning_summary_send_json() (migration 0022).
constexpr std::string_view kFinish = R"sql(
  UPDATE morning_summary_sends s
  SET status = $2, title = $3, text = $4, results = $5::jsonb, error = nullif($6, ''), finished_at = now()
  WHERE s.id = $1
  RETURNING morning_summary_send_json(s)
)sql";

bool has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Runs the claim `sql` (its last parameter the send lock's prefix, kSendLock) on a connection it
// keeps: the statement takes the send's lock on it, held until the returned lock is released.
template <class... Args>
awaitable<std::optional<std::pair<core::db::Result, core::db::AdvisoryLock>>> claim_holding_lock(core::db::Pool& db,
                                                                                                 std::string_view sql,
                                                                                                 Args... args) {
  auto lease = co_await db.acquire();
  auto rows = co_await lease.query(sql, std::move(args)..., std::string(kSendLock));
  if (rows.empty()) co_return std::nullopt;
  std::string name = std::string(kSendLock) + std::string(rows.front().text(0));
  auto executor = co_await asio::this_coro::executor;
  co_return std::make_pair(std::move(rows),
                           core::db::AdvisoryLock(std::move(executor), std::move(lease), std::move(name)));
}

}  // namespace

Summary::Summary(core::db::Pool& db, asio::any_io_executor executor, std::shared_ptr<const notify::Notifier> notifier,
                 std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
                 dashboard::Clock clock)
    : db_(db),
      executor_(executor),
      notifier_(std::move(notifier)),
      registry_(std::move(registry)),
      flagged_(std::move(flagged)),
      clock_(std::move(clock)) {}

Summary::Claim Summary::claim_of(const core::db::Row& r) {
  return {.id = r.get<std::int64_t>(0),
          .timezone = std::string(r.text(1)),
          .sections = r.get<std::vector<std::string>>(2),
          .at = std::string(r.text(3))};
}

awaitable<json> Summary::send_now(std::int64_t user_id) {
  auto claimed = co_await claim_holding_lock(db_, kClaimManual, clock_.at, user_id);
  if (!claimed) throw Problem::conflict("no morning-summary webhook is enabled: add or enable one first");
  co_return co_await send_claimed(claim_of(claimed->first.front()), std::move(claimed->second));
}

awaitable<json> Summary::send_test(std::int64_t webhook_id, std::int64_t user_id) {
  const auto found = co_await db_.query(kWebhook, webhook_id);
  if (found.empty()) throw Problem::not_found("no morning-summary webhook " + std::to_string(webhook_id));
  std::vector<Target> targets{
      {.id = webhook_id, .name = std::string(found.front().text(1)), .url = std::string(found.front().text(2))}};
  auto claimed = co_await claim_holding_lock(db_, kClaimTest, clock_.at, user_id);
  if (!claimed) throw std::runtime_error("the morning-summary configuration row is missing");
  const Claim c = claim_of(claimed->first.front());
  const Rendered text = test_message(targets.front().name, c.timezone);
  notify::Message message{.title = text.title, .text = text.text};
  json results = co_await deliver_all(std::move(targets), message);
  json entry = co_await finish(c.id, message, std::move(results), "");
  co_await claimed->second.release();
  co_return entry;
}

awaitable<std::optional<json>> Summary::tick() {
  co_await db_.query(kCloseCutShort, std::string(kSendLock), std::string(kCutShort));
  auto claimed =
      co_await claim_holding_lock(db_, kClaimScheduled, clock_.at, std::string(kSendAt), std::string(kCatchUpUntil));
  if (!claimed) co_return std::nullopt;
  Claim claim = claim_of(claimed->first.front());
  core::log::info("morning summary due: this instance claimed the day and sends it",
                  {{"send", claim.id}, {"timezone", claim.timezone}});
  co_return co_await send_claimed(std::move(claim), std::move(claimed->second));
}

namespace {

// The schedule's Summary and the connections it uses, which it outlives.
struct Scheduled {
  core::db::Pool pool;
  Summary summary;
  Scheduled(core::app::Context& ctx, std::shared_ptr<const notify::Notifier> notifier,
            std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
            dashboard::Clock clock)
      : pool(ctx.executor, {.conninfo = std::string(ctx.conninfo), .max_size = 2}),
        summary(pool, ctx.executor, std::move(notifier), std::move(registry), std::move(flagged), std::move(clock)) {}
};

}  // namespace

void Summary::schedule(core::app::Context& ctx, std::chrono::milliseconds interval,
                       std::shared_ptr<const notify::Notifier> notifier,
                       std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
                       dashboard::Clock clock) {
  auto scheduled =
      std::make_shared<Scheduled>(ctx, std::move(notifier), std::move(registry), std::move(flagged), std::move(clock));
  auto schedule = core::async::Schedule::start(
      ctx.executor, interval, [scheduled]() -> awaitable<void> { co_await scheduled->summary.tick(); },
      "morning summary", ctx.clock);
  schedule->wake();  // the catch-up: a start during the morning sends a day not sent yet
  ctx.stop_hooks.push_back([schedule, scheduled] {
    schedule->stop();
    scheduled->pool.close();
  });
}

awaitable<json> Summary::send_claimed(Claim claim, core::db::AdvisoryLock lock) {
  notify::Message message;
  json results = json::array();
  std::string error;
  try {
    const auto off = co_await registry_->disabled();
    const std::vector<std::string> disabled(off.begin(), off.end());
    json f = co_await figures(claim, disabled);
    if (has(claim.sections, "mfa")) f["mfa"] = co_await mfa_figures(off.contains("mfa"));
    const Rendered text = render(f, claim.sections);
    message = {.title = text.title, .text = text.text};
    std::vector<Target> targets;
    const auto rows = co_await db_.query(kTargets);
    for (const auto& r : rows)
      targets.push_back({.id = r.get<std::int64_t>(0), .name = std::string(r.text(1)), .url = std::string(r.text(2))});
    results = co_await deliver_all(std::move(targets), message);
  } catch (const std::exception& e) {  // the figures could not be read: recorded as failed
    error = e.what();
  }
  if (!error.empty()) core::log::error("morning summary not sent", {{"send", claim.id}, {"error", error}});
  json entry = co_await finish(claim.id, message, std::move(results), std::move(error));
  co_await lock.release();
  co_return entry;
}

awaitable<json> Summary::figures(const Claim& claim, const std::vector<std::string>& disabled) {
  const auto rows = co_await db_.query(kFigures, claim.at, claim.timezone, disabled);
  co_return json::parse(rows.front().text(0));
}

awaitable<json> Summary::mfa_figures(bool switched_off) {
  if (!flagged_) co_return json{{"state", "notConfigured"}};
  if (switched_off) co_return json{{"state", "off"}};
  json f;
  std::string error;
  try {
    f = co_await flagged_->get();
  } catch (const std::exception& e) {
    error = core::secrets::quote(e.what());  // the MFA service's words, sent on: masked, bounded
  }
  if (error.empty() && f["accounts"].is_array() && !f["accounts"].empty() && f["accounts"][0].contains("error"))
    error = f["accounts"][0].value("error", "the parent account could not be read");
  if (!error.empty()) co_return json{{"state", "error"}, {"error", error}};
  json failed = json::array();
  if (f.contains("accountListError"))
    failed.push_back({{"name", "(the list of child accounts)"}, {"error", f["accountListError"]}});
  const json accounts = f["accounts"];
  for (const auto& a : accounts)
    if (a.contains("error")) failed.push_back({{"name", a.value("name", "?")}, {"error", a["error"]}});
  co_return json{{"state", "ok"}, {"bypass", f["bypass"]}, {"disabled", f["disabled"]}, {"failedAccounts", failed}};
}

awaitable<json> Summary::deliver_all(std::vector<Target> targets, notify::Message message) {
  std::vector<notify::Delivery> deliveries(targets.size());
  std::vector<std::function<awaitable<void>()>> sends;
  for (std::size_t i = 0; i < targets.size(); ++i)
    sends.push_back([this, &targets, &deliveries, &message, i]() -> awaitable<void> {
      try {
        deliveries[i] = co_await deliver(targets[i], message);
      } catch (const std::exception& e) {  // a bug of ours, not the chat's: still reported
        deliveries[i] = {.channel_id = targets[i].id, .reason = std::string("internal error: ") + e.what()};
      }
    });
  co_await core::async::join_all(executor_, std::move(sends));
  json results = json::array();
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& d = deliveries[i];
    if (!d.delivered)
      core::log::warn("morning summary not delivered", {{"webhook", targets[i].id}, {"reason", d.reason}});
    results.push_back({{"webhookId", targets[i].id},
                       {"name", targets[i].name},
                       {"url", notify::redacted_url(targets[i].url)},
                       {"delivered", d.delivered},
                       {"attempts", d.attempts},
                       {"httpStatus", d.http_status ? json(*d.http_status) : json(nullptr)},
                       {"reason", d.reason.empty() ? json(nullptr) : json(d.reason)}});
  }
  co_return results;
}

awaitable<notify::Delivery> Summary::deliver(const Target& target, const notify::Message& message) const {
  const notify::Channel channel{
      .id = target.id, .type = "chat_webhook", .name = target.name, .config = {{"url", target.url}}};
  co_return co_await notifier_->send(channel, message, std::nullopt);  // a summary belongs to no event
}

awaitable<json> Summary::finish(std::int64_t id, const notify::Message& message, json results, std::string error) {
  std::size_t delivered = 0;
  for (const auto& r : results) delivered += r.value("delivered", false);
  const std::string status = !error.empty() || delivered == 0 ? "failed"
                             : delivered == results.size()    ? "sent"
                                                              : "partial";
  const auto rows = co_await db_.query(kFinish, id, status, message.title, message.text, results, error);
  co_return json::parse(rows.front().text(0));
}

}  // namespace ops_console::morning

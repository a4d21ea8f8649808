// The morning summary (issue 22): administrators only, its chat webhooks behind the notifications'
// allowlist and guard with their URLs masked, its configuration, sending now and a test to the
// sandbox's chat receivers with one result per webhook in the history, and the weekday schedule:
// one send per local morning across instances, the catch-up after a late start, and none on a
// weekend, after the cut-off or while disabled.
#include "core/testing/manual_clock.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/morning/summary.hpp"
#include "ops_console/tests/notify_fixture.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::NotifyTest;

const std::string kSummaryRoutes = "/api/morning-summary";

// Monday 23 November 2026, 06:31 in Auckland (NZDT, UTC+13): Sunday 17:31 UTC.
constexpr const char* kMondayMorning = "2026-11-23T06:31:00+13:00";

struct MorningSummaryTest : NotifyTest {
  // The sandbox's receivers, plus an address literal in a private range on the chat allowlist:
  // the guard refuses it whatever the allowlist says.
  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) {
    auto e = sandbox_env();
    e["CHAT_WEBHOOK_ALLOWED_HOSTS"] = "127.0.0.1,10.20.30.40,chat.googleapis.com,*.webhook.office.com";
    for (auto& [k, v] : extra) e[k] = v;
    return e;
  }
  json ok(const std::string& method, const std::string& path, const json& body = nullptr, unsigned status = 200) {
    const auto res = call(method, kSummaryRoutes + path, body, boss);
    EXPECT_EQ(res.status, status) << method << " " << path << ": " << res.body;
    return res.body.empty() ? json() : res.json();
  }
  // A 400 naming `field`.
  void refused(const std::string& method, const std::string& path, const json& body, const std::string& field) {
    const auto res = call(method, kSummaryRoutes + path, body, boss);
    ASSERT_EQ(res.status, 400u) << method << " " << path << " " << body << ": " << res.body;
    EXPECT_EQ(res.json()["errors"][0]["field"], field) << res.body;
  }
  std::string add_webhook(const std::string& name, const std::string& url, bool enabled = true) {
    const json w = ok("POST", "/webhooks", {{"name", name}, {"url", url}, {"enabled", enabled}}, 201);
    return std::to_string(w.value("id", 0));
  }
  json chat_messages() { return received("chat"); }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_F(MorningSummaryTest, AdministratorsOnlyWebhooksMaskedAndEveryFieldChecked) {
  start_with(env());
  const std::vector<std::pair<std::string, std::string>> routes{
      {"GET", "/webhooks"},      {"POST", "/webhooks"}, {"PATCH", "/webhooks/1"},
      {"DELETE", "/webhooks/1"}, {"GET", "/config"},    {"PUT", "/config"},
      {"POST", "/send"},         {"POST", "/test"},     {"GET", "/history"}};
  const auto before = database_work();
  for (const auto& [method, path] : routes)
    EXPECT_EQ(call(method, kSummaryRoutes + path, json::object()).status, 401u) << method << " " << path;
  EXPECT_EQ(database_work(), before);  // refused before any query
  const json valid{{"name", "NOC"},     {"url", chat_url()},        {"webhookId", 1},
                   {"timezone", "UTC"}, {"sections", {"overview"}}, {"enabled", true}};
  for (const auto& [method, path] : routes)
    EXPECT_EQ(call(method, kSummaryRoutes + path, valid, tech).status, 403u) << method << " " << path;
  EXPECT_EQ(sql("SELECT count(*) FROM morning_summary_webhooks"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM morning_summary_sends"), "0");
  EXPECT_EQ(sql("SELECT enabled FROM morning_summary_config"), "f");
  EXPECT_TRUE(received("").empty());

  // Webhooks: the notifications' chat allowlist and address guard, named `url`.
  refused("POST", "/webhooks", {{"name", "x"}, {"url", "https://chat.evil.example/v1/spaces/A/messages"}}, "url");
  refused("POST", "/webhooks", {{"name", "x"}, {"url", "https://10.20.30.40/hook?token=t"}}, "url");
  refused("POST", "/webhooks", {{"name", "x"}, {"url", "not a url"}}, "url");
  refused("POST", "/webhooks", {{"url", chat_url()}}, "name");
  refused("POST", "/webhooks", {{"name", "x"}, {"url", chat_url()}, {"enabled", "yes"}}, "enabled");
  EXPECT_EQ(sql("SELECT count(*) FROM morning_summary_webhooks"), "0");

  const json created = ok("POST", "/webhooks", {{"name", "NOC space"}, {"url", chat_url("NOC")}}, 201);
  EXPECT_EQ(created["name"], "NOC space");
  EXPECT_EQ(created["enabled"], true);
  EXPECT_EQ(created["url"], "http://127.0.0.1/…");  // scheme and host: the key and token stay hidden
  const std::string id = std::to_string(created["id"].get<long>());
  const std::string other = add_webhook("Managers", chat_url("MGR"), false);
  const auto list = call("GET", kSummaryRoutes + "/webhooks", nullptr, boss);
  ASSERT_EQ(list.status, 200u);
  EXPECT_EQ(list.json().size(), 2u);
  EXPECT_EQ(list.json()[1]["enabled"], false);
  EXPECT_FALSE(has(list.body, "token=")) << list.body;
  EXPECT_FALSE(has(list.body, "/spaces/")) << list.body;

  const json renamed = ok("PATCH", "/webhooks/" + id, {{"name", "Ops"}});
  EXPECT_EQ(renamed["name"], "Ops");
  EXPECT_EQ(renamed["enabled"], true);  // what the patch omits stays
  refused("PATCH", "/webhooks/" + id, {{"url", "https://chat.evil.example/x"}}, "url");
  refused("PATCH", "/webhooks/" + id, {{"name", nullptr}}, "name");
  refused("PATCH", "/webhooks/abc", {{"name", "x"}}, "id");
  EXPECT_EQ(sql("SELECT name || ' ' || url FROM morning_summary_webhooks WHERE id = " + id), "Ops " + chat_url("NOC"));
  EXPECT_EQ(ok("PATCH", "/webhooks/" + other, {{"url", chat_url("BOARD")}, {"enabled", true}})["enabled"], true);
  EXPECT_EQ(sql("SELECT url FROM morning_summary_webhooks WHERE id = " + other), chat_url("BOARD"));
  EXPECT_EQ(call("PATCH", kSummaryRoutes + "/webhooks/999", {{"name", "x"}}, boss).status, 404u);
  EXPECT_EQ(call("DELETE", kSummaryRoutes + "/webhooks/999", nullptr, boss).status, 404u);
  refused("DELETE", "/webhooks/0", nullptr, "id");
  EXPECT_EQ(call("DELETE", kSummaryRoutes + "/webhooks/" + other, nullptr, boss).status, 204u);
  EXPECT_EQ(call("DELETE", kSummaryRoutes + "/webhooks/" + other, nullptr, boss).status, 404u);
  EXPECT_EQ(ok("GET", "/webhooks").size(), 1u);

  // The configuration: defaults, then each field checked, nothing changed by a refusal.
  const json defaults = ok("GET", "/config");
  EXPECT_EQ(defaults["timezone"], "UTC");
  EXPECT_EQ(defaults["sections"], json({"overview", "slaBreaches", "integrations", "workers", "mfa"}));
  EXPECT_EQ(defaults["enabled"], false);
  EXPECT_EQ(defaults["sendAt"], "06:30");
  EXPECT_EQ(defaults["weekdaysOnly"], true);
  EXPECT_EQ(defaults["catchUpUntil"], "12:00");
  const json good{{"timezone", "Pacific/Auckland"}, {"sections", {"workers", "overview"}}, {"enabled", true}};
  const auto with = [&](const char* key, json value) {
    json b = good;
    b[key] = std::move(value);
    return b;
  };
  refused("PUT", "/config", with("timezone", "Mars/Olympus_Mons"), "timezone");
  refused("PUT", "/config", with("timezone", std::string(65, 'A')), "timezone");
  refused("PUT", "/config", with("sections", {"overview", "weather"}), "sections[1]");
  refused("PUT", "/config", with("sections", {"overview", "mfa", "overview"}), "sections[2]");
  refused("PUT", "/config", with("sections", json::array()), "sections");
  refused("PUT", "/config", with("sections", "overview"), "sections");
  refused("PUT", "/config", with("enabled", nullptr), "enabled");
  EXPECT_EQ(ok("GET", "/config"), defaults);
  const json saved = ok("PUT", "/config", good);
  EXPECT_EQ(saved["timezone"], "Pacific/Auckland");
  EXPECT_EQ(saved["sections"], json({"workers", "overview"}));  // the order given is the message's
  EXPECT_EQ(saved["enabled"], true);
  EXPECT_EQ(ok("GET", "/config"), saved);

  refused("GET", "/history?limit=0", nullptr, "limit");
  refused("GET", "/history?limit=ten", nullptr, "limit");
  EXPECT_EQ(ok("GET", "/history?limit=5000")["limit"], 200);
  EXPECT_EQ(ok("GET", "/history")["limit"], 50);
  refused("POST", "/test", {{"webhookId", "one"}}, "webhookId");
  EXPECT_EQ(call("POST", kSummaryRoutes + "/test", {{"webhookId", 999}}, boss).status, 404u);
  EXPECT_EQ(sql("SELECT count(*) FROM morning_summary_sends"), "0");
}

TEST_F(MorningSummaryTest, SendNowReachesEveryEnabledWebhookAndRecordsEachResult) {
  fakes.duo().seed({.seed = 7, .children = 0, .users = 40});
  // Two tickets past due at the pinned instant, one not; an integration whose last call failed.
  sql("INSERT INTO tickets (id, ticket_number, title, status, create_date, due_date_time) VALUES "
      "(1, 'T20261120.0042', 'Mail server unreachable', 1, '2026-11-20T01:00Z', '2026-11-21T01:00Z'), "
      "(2, 'T20261121.0007', 'VPN drops', 8, '2026-11-21T01:00Z', '2026-11-22T03:00Z'), "
      "(3, 'T20261122.0001', 'New starter', 1, '2026-11-22T01:00Z', '2026-11-30T01:00Z')");
  sql("INSERT INTO integration_health (key, last_failure_at, last_error) VALUES "
      "('endpointsec', '2026-11-22T16:00Z', 'HTTP 401: token expired')");
  start_with(env({{"DASHBOARD_NOW", kMondayMorning},
                  {"MFA_BASE_URL", fakes.url() + "/duo"},
                  {"MFA_INTEGRATION_KEY", fakes.duo().options().ikey},
                  {"MFA_SECRET_KEY", fakes.duo().options().skey}}));

  EXPECT_EQ(call("POST", kSummaryRoutes + "/send", nullptr, boss).status, 409u);  // nowhere to send yet
  const std::string a = add_webhook("NOC", chat_url("AAAA"));
  const std::string b = add_webhook("Managers", chat_url("BBBB"));
  add_webhook("Paused", chat_url("CCCC"), false);
  const std::string broken = add_webhook("Broken", fakes.url() + "/webhook/broken");
  fakes.notify().set_fault("webhook", {.status = 500, .count = 2});  // the attempt and its retry
  ok("PUT", "/config", {{"timezone", "Pacific/Auckland"}, {"sections", {"slaBreaches", "mfa"}}, {"enabled", false}});

  const auto sent = call("POST", kSummaryRoutes + "/send", nullptr, boss);
  ASSERT_EQ(sent.status, 200u) << sent.body;
  EXPECT_FALSE(has(sent.body, "token=")) << sent.body;
  const json entry = sent.json();
  EXPECT_EQ(entry["kind"], "manual");
  EXPECT_EQ(entry["status"], "partial");
  EXPECT_EQ(entry["day"], "2026-11-23");
  EXPECT_EQ(entry["timezone"], "Pacific/Auckland");
  EXPECT_EQ(entry["sections"], json({"slaBreaches", "mfa"}));
  EXPECT_EQ(entry["requestedBy"], std::stol(boss_id));
  const json results = entry["results"];
  ASSERT_EQ(results.size(), 3u) << entry;  // the enabled ones, by id
  EXPECT_EQ(std::to_string(results[0]["webhookId"].get<long>()), a);
  EXPECT_EQ(std::to_string(results[1]["webhookId"].get<long>()), b);
  for (int i : {0, 1}) {
    EXPECT_EQ(results[i]["delivered"], true) << results[i];
    EXPECT_EQ(results[i]["httpStatus"], 200);
    EXPECT_EQ(results[i]["url"], "http://127.0.0.1/…");
  }
  EXPECT_EQ(std::to_string(results[2]["webhookId"].get<long>()), broken);
  EXPECT_EQ(results[2]["delivered"], false);
  EXPECT_EQ(results[2]["httpStatus"], 500);
  EXPECT_EQ(results[2]["attempts"], 2);
  EXPECT_EQ(results[2]["reason"], "HTTP 500: receiver failed");

  // What the chat spaces received: the configured sections and no other.
  const json chats = chat_messages();
  ASSERT_EQ(chats.size(), 2u) << chats;
  std::set<std::string> spaces;
  for (const auto& m : chats) spaces.insert(m["path"].get<std::string>().substr(0, 22));
  EXPECT_EQ(spaces, (std::set<std::string>{"/chat/v1/spaces/AAAA/m", "/chat/v1/spaces/BBBB/m"}));
  const std::string text = json::parse(chats[0]["body"].get<std::string>())["text"].get<std::string>();
  EXPECT_EQ(text, entry["title"].get<std::string>().insert(0, "*") + "*\n" + entry["text"].get<std::string>());
  EXPECT_TRUE(text.starts_with("*Morning summary, Monday 23 November 2026*\n_Figures at 06:31 Pacific/Auckland._"))
      << text;
  EXPECT_TRUE(has(text, "*SLA breaches*\n2 open tickets are past their due time")) << text;
  EXPECT_TRUE(has(text, "• T20261120.0042 Mail server unreachable, due 2026-11-21 14:00\n")) << text;  // local
  EXPECT_TRUE(has(text, "• T20261121.0007 VPN drops, due 2026-11-22 16:00")) << text;
  EXPECT_FALSE(has(text, "New starter")) << text;
  std::size_t bypass = 0, disabled = 0;
  for (const auto& account : fakes.duo().accounts()) {
    bypass += account["bypass"].get<std::size_t>();
    disabled += account["disabled"].get<std::size_t>();
  }
  ASSERT_GT(bypass + disabled, 0u);
  EXPECT_TRUE(has(text, "*MFA*\n" + std::to_string(bypass) + (bypass == 1 ? " user" : " users") + " in bypass, " +
                            std::to_string(disabled) + " disabled:\n"))
      << text;
  for (const char* absent : {"*Tickets*", "*Integrations*", "*Workers*", "endpointsec"})
    EXPECT_FALSE(has(text, absent)) << absent << " in " << text;
  EXPECT_EQ(received("webhook").size(), 2u);

  // A test to one webhook, enabled or not; a failure is the body's, not a 5xx.
  const json test = ok("POST", "/test", {{"webhookId", std::stol(a)}});
  EXPECT_EQ(test["kind"], "test");
  EXPECT_EQ(test["status"], "sent");
  ASSERT_EQ(test["results"].size(), 1u);
  EXPECT_EQ(test["results"][0]["delivered"], true);
  ASSERT_EQ(chat_messages().size(), 3u);
  EXPECT_TRUE(has(chat_messages()[2]["body"].get<std::string>(),
                  "is set up: the morning summary arrives here at 06:30 Monday to Friday"));
  fakes.notify().set_fault("webhook", {.status = 500, .count = 2});
  const json failed = ok("POST", "/test", {{"webhookId", std::stol(broken)}});
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["results"][0]["reason"], "HTTP 500: receiver failed");

  // The history: every send, newest first, with its results.
  const json history = ok("GET", "/history?limit=2");
  ASSERT_EQ(history["items"].size(), 2u);
  EXPECT_EQ(history["items"][0]["id"], failed["id"]);
  EXPECT_EQ(history["items"][1]["id"], test["id"]);
  const json all = ok("GET", "/history")["items"];
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2], entry);
  // The schedule stayed quiet: the configuration is disabled (sending now does not need it).
  EXPECT_EQ(sql("SELECT count(*) FROM morning_summary_sends WHERE kind = 'scheduled'"), "0");
}

TEST_F(MorningSummaryTest, TheScheduleSendsOncePerWeekdayMorningAcrossInstancesAndCatchesUp) {
  sql("UPDATE morning_summary_config SET enabled = true, timezone = 'Pacific/Auckland', sections = '{overview}'");
  sql("INSERT INTO morning_summary_webhooks (name, url, url_shown) VALUES ('NOC', '" + chat_url("NOC") +
      "', 'http://127.0.0.1/…')");

  // Two instances on one database, Monday 06:31 in the configured zone, looking every second.
  // Each connects under its own application_name, so the server tells whose looks it saw.
  const auto instance = [&](const std::string& name, std::map<std::string, std::string> e) {
    e.emplace("LOGIN_DELAY_MS", "1");
    const std::string& url = database.url();
    return std::make_unique<core::testing::RunningService>(
        ops_console::definition(), url + (url.find('?') == std::string::npos ? "?" : "&") + "application_name=" + name,
        core::config::Environment(e.begin(), e.end()));
  };
  boss_id = add_user("boss@msp.example", ops_console::testing::kPassword, true);
  svc = instance("first", env({{"DASHBOARD_NOW", kMondayMorning}, {"MORNING_SUMMARY_TICK_SECONDS", "1"}}));
  const auto second =
      instance("second", env({{"DASHBOARD_NOW", kMondayMorning}, {"MORNING_SUMMARY_TICK_SECONDS", "1"}}));
  boss = sign_in("boss@msp.example", ops_console::testing::kPassword);
  ASSERT_TRUE(core::testing::eventually([&] { return sql("SELECT status FROM morning_summary_sends") == "sent"; }));
  // After the send, both instances look again (their last statement is the claim) and find the
  // day taken.
  ASSERT_TRUE(core::testing::eventually([&] {
    return sql("SELECT count(DISTINCT application_name) FROM pg_stat_activity a, morning_summary_sends s "
               "WHERE a.datname = current_database() AND a.application_name IN ('first', 'second') "
               "AND a.query LIKE '%INSERT INTO morning_summary_sends AS s (kind, day, timezone, sections, at)%' "
               "AND a.state_change > s.finished_at") == "2";
  }));
  const json history = ok("GET", "/history")["items"];
  ASSERT_EQ(history.size(), 1u) << history;
  EXPECT_EQ(history[0]["kind"], "scheduled");
  EXPECT_EQ(history[0]["day"], "2026-11-23");
  EXPECT_EQ(history[0]["status"], "sent");
  EXPECT_TRUE(history[0]["requestedBy"].is_null());
  ASSERT_EQ(chat_messages().size(), 1u);
  EXPECT_TRUE(has(chat_messages()[0]["body"].get<std::string>(), "*Tickets*"));

  // An instance started late the next Monday (09:10) sends that day's at its start; its schedule
  // looks again only an hour later, so the start did it.
  core::testing::RunningService late(ops_console::definition(), database.url(),
                                     core::config::Environment{{"DASHBOARD_NOW", "2026-11-30T09:10:00+13:00"},
                                                               {"MORNING_SUMMARY_TICK_SECONDS", "3600"},
                                                               {"NOTIFY_ALLOW_LOOPBACK", "true"},
                                                               {"CHAT_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1"}});
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT status FROM morning_summary_sends WHERE day = '2026-11-30'") == "sent"; }));
  EXPECT_EQ(chat_messages().size(), 2u);

  // The rules, tick by tick, as each instance's schedule runs them.
  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  auto registry =
      std::make_shared<ops_console::integrations::Registry>(pool, ops_console::integrations::RegistryOptions{});
  ops_console::notify::NotifySettings notify;
  notify.chat_webhook_hosts = ops_console::notify::HostAllowlist({"127.0.0.1"});
  notify.allow_loopback = true;
  auto notifier = std::make_shared<const ops_console::notify::Notifier>(pool, io.executor(), notify);
  const auto tick_at = [&](const std::string& at) {
    ops_console::morning::Summary summary(pool, io.executor(), notifier, registry, nullptr, {.at = at});
    return io.run(summary.tick());
  };
  EXPECT_FALSE(tick_at(kMondayMorning));               // that day is taken
  EXPECT_FALSE(tick_at("2026-11-30T11:00:00+13:00"));  // so is the catch-up's
  EXPECT_FALSE(tick_at("2026-11-28T07:00:00+13:00"));  // Saturday
  EXPECT_FALSE(tick_at("2026-11-29T06:45:00+13:00"));  // Sunday
  EXPECT_FALSE(tick_at("2026-12-01T06:29:59+13:00"));  // Tuesday, before 06:30
  EXPECT_FALSE(tick_at("2026-12-01T12:00:00+13:00"));  // Tuesday, the cut-off
  EXPECT_FALSE(tick_at("2026-12-01T06:45:00+00:00"));  // 06:45 in UTC is 19:45 in the configured zone
  sql("UPDATE morning_summary_config SET enabled = false");
  EXPECT_FALSE(tick_at("2026-12-02T07:00:00+13:00"));  // Wednesday morning, disabled
  sql("UPDATE morning_summary_config SET enabled = true");
  sql("UPDATE morning_summary_webhooks SET enabled = false");
  EXPECT_FALSE(tick_at("2026-12-02T07:00:00+13:00"));  // no webhook to send to: the day stays open
  sql("UPDATE morning_summary_webhooks SET enabled = true");
  const auto wednesday = tick_at("2026-12-02T11:59:00+13:00");  // the morning's last minute
  ASSERT_TRUE(wednesday);
  EXPECT_EQ((*wednesday)["day"], "2026-12-02");
  EXPECT_EQ((*wednesday)["status"], "sent");
  EXPECT_FALSE(tick_at("2026-12-02T11:59:30+13:00"));
  EXPECT_EQ(sql("SELECT string_agg(day::text, ' ' ORDER BY day) FROM morning_summary_sends"),
            "2026-11-23 2026-11-30 2026-12-02");
  EXPECT_EQ(chat_messages().size(), 3u);
}

// Kill -9 of the service mid-send (README, "Reliability under kill -9"): the chat space has the
// message, and its answer is lost with the service. A day is sent at most once: another instance
// the same morning finds the day claimed and sends nothing, and closes the send cut short (its lock
// went with the dead session) as failed instead of leaving it `sending`.
TEST_F(MorningSummaryTest, ASendCutShortByAKillIsClosedAndNotRepeated) {
  sql("UPDATE morning_summary_config SET enabled = true, timezone = 'Pacific/Auckland', sections = '{overview}'");
  sql("INSERT INTO morning_summary_webhooks (name, url, url_shown) VALUES ('NOC', '" + chat_url("NOC") +
      "', 'http://127.0.0.1/…')");
  fakes.notify().set_latency("chat", std::chrono::seconds(3));
  const auto e =
      env({{"DASHBOARD_NOW", kMondayMorning}, {"MORNING_SUMMARY_TICK_SECONDS", "1"}, {"NOTIFY_TIMEOUT_SECONDS", "10"}});
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(e, [&] { return chat_messages().size() == 1; }));
  fakes.notify().set_latency("chat", {});
  EXPECT_EQ(sql("SELECT kind || ' ' || day || ' ' || status FROM morning_summary_sends"),
            "scheduled 2026-11-23 sending");

  auto clock = std::make_shared<core::testing::ManualClock>();
  start(e, clock);
  clock->advance(std::chrono::seconds(1));  // a look of the schedule after the one at its start
  EXPECT_EQ(clock->rounds("morning summary"), 1);
  EXPECT_EQ(chat_messages().size(), 1u);
  EXPECT_EQ(sql("SELECT string_agg(kind || ' ' || status || ' ' || (finished_at IS NOT NULL), ',') "
                "FROM morning_summary_sends"),
            "scheduled failed true");
  EXPECT_TRUE(has(sql("SELECT error FROM morning_summary_sends"), "interrupted: the instance sending it stopped"));
}

// A send under way holds its lock: another instance's look (its schedule's tick, here called
// while the service's send waits on a slow chat space) leaves it `sending` and sends nothing.
TEST_F(MorningSummaryTest, ASendUnderWayIsNotClosedByAnotherInstancesLook) {
  sql("UPDATE morning_summary_config SET enabled = true, timezone = 'Pacific/Auckland', sections = '{overview}'");
  sql("INSERT INTO morning_summary_webhooks (name, url, url_shown) VALUES ('NOC', '" + chat_url("NOC") +
      "', 'http://127.0.0.1/…')");
  fakes.notify().set_latency("chat", std::chrono::seconds(3));
  start_with(env({{"DASHBOARD_NOW", kMondayMorning}, {"NOTIFY_TIMEOUT_SECONDS", "10"}}));
  ASSERT_TRUE(core::testing::eventually([&] { return chat_messages().size() == 1; }));

  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  auto registry =
      std::make_shared<ops_console::integrations::Registry>(pool, ops_console::integrations::RegistryOptions{});
  auto notifier =
      std::make_shared<const ops_console::notify::Notifier>(pool, io.executor(), ops_console::notify::NotifySettings{});
  ops_console::morning::Summary other(pool, io.executor(), notifier, registry, nullptr, {.at = kMondayMorning});
  EXPECT_FALSE(io.run(other.tick()));  // the day is taken
  EXPECT_EQ(sql("SELECT status FROM morning_summary_sends"), "sending");
  ASSERT_TRUE(core::testing::eventually([&] { return sql("SELECT status FROM morning_summary_sends") == "sent"; }));
  EXPECT_EQ(chat_messages().size(), 1u);
}

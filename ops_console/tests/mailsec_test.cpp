// Mail security (issue 20) against the Mimecast and Graph fakes: the held list (the admin flag,
// its 403 fallback, the cap of 100 in pages of 10, no-store), release, the delivered-mail search
// (range rules, statuses, spam classes), the 20-second timeout, tenants, and mailbox remediation
// (search, move to Deleted Items, delete, audited; a mailbox the app may not open).
#include "core/testing/manual_clock.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr const char* kMailbox = "victim@msp.example";

std::string iso(core::Timestamp t) { return core::format_rfc3339(t); }

struct MailsecTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string tech;

  std::map<std::string, std::string> mailsec_env() {
    return {{"MAILSEC_BASE_URL", fakes.url() + "/mimecast"},
            {"MAILSEC_CLIENT_ID", "sandbox-mailsec"},
            {"MAILSEC_CLIENT_SECRET", "sandbox-mailsec-secret"},
            {"GRAPH_LOGIN_URL", fakes.url()},
            {"GRAPH_BASE_URL", fakes.url()},
            {"GRAPH_TENANT_ID", "contoso-tenant"},
            {"GRAPH_CLIENT_ID", "sandbox-client"},
            {"GRAPH_CLIENT_SECRET", "sandbox-secret"}};
  }
  void start_mailsec(std::map<std::string, std::string> env) {
    add_user("tech@msp.example", kPassword);
    start(std::move(env));
    tech = sign_in("tech@msp.example", kPassword);
  }
  core::testing::HttpResponse post(const std::string& path, const json& body) { return call("POST", path, body, tech); }
};

}  // namespace

TEST_F(MailsecTest, TheHeldListAsksAsAdminFallsBackOn403AndStopsAt100) {
  fakes.mimecast().seed({.seed = 2, .held = 150});
  start_mailsec(mailsec_env());
  const auto res = call("GET", "/api/mailsec/held", nullptr, tech);
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.header("cache-control"), "no-store");
  const json held = res.json();
  EXPECT_EQ(held["admin"], true);
  EXPECT_EQ(held["count"], 100);  // the spec's default maximum
  EXPECT_EQ(held["truncated"], true);
  EXPECT_EQ(fakes.mimecast().stats()["calls"]["/api/gateway/get-hold-message-list"], 10);  // 10 pages
  EXPECT_EQ(call("GET", "/api/mailsec/held?limit=20", nullptr, tech).json()["count"], 20);
  EXPECT_EQ(call("GET", "/api/mailsec/held?limit=0", nullptr, tech).status, 400u);

  // Not an administrator at Mimecast: the admin flag is refused, the API user's own are listed.
  fakes.mimecast().set_admin(false);
  const json own = call("GET", "/api/mailsec/held", nullptr, tech).json();
  EXPECT_EQ(own["admin"], false);
  EXPECT_EQ(own["count"], 15);  // every 10th of the seed is the API user's
  EXPECT_EQ(own["truncated"], false);
  // Always fresh: a new held message shows at once.
  sandbox::mimecast::Held extra;
  extra.subject = "Just held";
  extra.to.email = fakes.mimecast().options().caller_email;
  extra.received = core::now();
  fakes.mimecast().add_held(extra);
  EXPECT_EQ(call("GET", "/api/mailsec/held", nullptr, tech).json()["count"], 16);
}

TEST_F(MailsecTest, ReleaseSaysWhetherTheMessageWasReleased) {
  fakes.mimecast().seed({.seed = 3, .held = 5});
  start_mailsec(mailsec_env());
  const std::string id = fakes.mimecast().held()[0]["id"];
  const auto first = post("/api/mailsec/held/release", {{"id", id}});
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(first.json()["released"], true);
  const auto again = post("/api/mailsec/held/release", {{"id", id}});
  EXPECT_EQ(again.json()["released"], false);
  EXPECT_TRUE(again.json()["reason"].is_string());
  EXPECT_EQ(post("/api/mailsec/held/release", json::object()).json()["errors"][0]["field"], "id");
}

TEST_F(MailsecTest, DeliveredSearchChecksTheRangeAndClassesSpamScores) {
  fakes.mimecast().seed({.seed = 4, .tracked = 0});
  const auto now = core::now();
  const std::vector<std::pair<std::string, int>> mail{
      {"delivered", 12}, {"held", 7}, {"rejected", 5}, {"bounced", 0}, {"archived", 4}};
  for (const auto& [status, score] : mail) {
    sandbox::mimecast::Tracked t;
    t.status = status;
    t.from.email = "sender@partner.example";
    sandbox::mimecast::Address ceo;
    ceo.email = "ceo@msp.example";
    t.to = {ceo};
    t.subject = "Quarterly " + status;
    t.spam_score = score;
    t.received = now - std::chrono::hours(2);
    fakes.mimecast().add_tracked(t);
  }
  start_mailsec(mailsec_env());
  const auto res =
      post("/api/mailsec/delivered",
           {{"recipient", "ceo@msp.example"}, {"start", iso(now - std::chrono::hours(12))}, {"end", iso(now)}});
  ASSERT_EQ(res.status, 200u) << res.body;
  std::map<std::string, json> by_subject;
  const json answer = res.json();
  for (const auto& item : answer["items"]) by_subject[item["subject"]] = item;
  ASSERT_EQ(by_subject.size(), 5u) << res.body;
  EXPECT_EQ(by_subject["Quarterly delivered"]["status"], "accepted");
  EXPECT_EQ(by_subject["Quarterly delivered"]["spamClass"], "high");  // 12
  EXPECT_EQ(by_subject["Quarterly held"]["status"], "held");
  EXPECT_EQ(by_subject["Quarterly held"]["spamClass"], "moderate");  // 7
  EXPECT_EQ(by_subject["Quarterly rejected"]["status"], "rejected");
  EXPECT_EQ(by_subject["Quarterly rejected"]["spamClass"], "moderate");  // 5
  EXPECT_EQ(by_subject["Quarterly bounced"]["status"], "bounced");
  EXPECT_EQ(by_subject["Quarterly bounced"]["spamClass"], "clean");  // 0
  EXPECT_EQ(by_subject["Quarterly archived"]["status"], "accepted");
  EXPECT_EQ(by_subject["Quarterly archived"]["spamScore"], 4);

  const auto range = [&](std::chrono::hours back, const char* field) {
    const auto r = post("/api/mailsec/delivered", {{"start", iso(now - back)}, {"end", iso(now)}});
    EXPECT_EQ(r.status, 400u) << back.count();
    if (r.status == 400u) EXPECT_EQ(r.json()["errors"][0]["field"], field) << r.body;
  };
  range(std::chrono::hours(5), "start");           // under 6 hours
  range(std::chrono::hours(24 * 7 + 1), "start");  // over 7 days
  EXPECT_EQ(post("/api/mailsec/delivered", {{"start", iso(now - std::chrono::hours(6))}, {"end", iso(now)}}).status,
            200u);  // 6 hours exactly
  EXPECT_EQ(post("/api/mailsec/delivered", {{"start", iso(now)}, {"end", iso(now - std::chrono::hours(8))}})
                .json()["errors"][0]["field"],
            "end");
  EXPECT_EQ(post("/api/mailsec/delivered", {{"start", "yesterday"}}).json()["errors"][0]["field"], "start");
}

// Every request has a 20-second limit: a fake that stalls longer gives a clear 502, not a hang.
TEST_F(MailsecTest, AStalledServiceIsA502AfterTwentySeconds) {
  fakes.mimecast().seed({.seed = 5, .held = 3});
  start_mailsec(mailsec_env());
  fakes.mimecast().set_faults({.latency = std::chrono::milliseconds(20'500),
                               .latency_calls = 1,
                               .endpoint = "/api/gateway/get-hold-message-list"});
  const auto started = std::chrono::steady_clock::now();
  const auto res = call("GET", "/api/mailsec/held", nullptr, tech);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(res.status, 502u) << res.body;
  EXPECT_GE(took, std::chrono::seconds(19));
  EXPECT_LT(took, std::chrono::milliseconds(20'500));  // the console gave up before the fake answered
}

TEST_F(MailsecTest, RemediationSearchesMovesAndDeletesAndAuditsEveryChange) {
  start_mailsec(mailsec_env());
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    sandbox::FakeMessage m;
    m.subject = "Reset your password " + std::to_string(i);
    m.from_address = "it-support@phish.example";
    m.received_at = core::now() - std::chrono::hours(i + 1);
    ids.push_back(fakes.graph().add_message(kMailbox, m));
  }
  sandbox::FakeMessage keep;
  keep.subject = "Lunch";
  keep.from_address = "colleague@msp.example";
  fakes.graph().add_message(kMailbox, keep);

  const auto found = post("/api/mailsec/mailbox-remediate",
                          {{"action", "search"}, {"mailbox", kMailbox}, {"query", "from:it-support@phish.example"}});
  ASSERT_EQ(found.status, 200u) << found.body;
  EXPECT_EQ(found.json()["count"], 3);

  const std::string found_id = found.json()["items"][0]["id"];
  const auto moved =
      post("/api/mailsec/mailbox-remediate", {{"action", "move"}, {"mailbox", kMailbox}, {"messageIds", {found_id}}});
  ASSERT_EQ(moved.status, 200u) << moved.body;
  EXPECT_EQ(moved.json()["moved"], 1);
  const auto deleted = post("/api/mailsec/mailbox-remediate",
                            {{"action", "delete"}, {"mailbox", kMailbox}, {"messageIds", {ids[1], "no-such-id"}}});
  ASSERT_EQ(deleted.status, 200u) << deleted.body;
  EXPECT_EQ(deleted.json()["deleted"], 1);
  EXPECT_EQ(deleted.json()["results"][1]["ok"], false);

  std::map<std::string, int> folders;
  for (const auto& m : fakes.graph().messages(kMailbox)) ++folders[m.folder];
  EXPECT_EQ(folders["deleteditems"], 1);  // moved: recoverable
  EXPECT_EQ(folders["inbox"], 2);         // one deleted, the lunch and one left
  EXPECT_EQ(sql("SELECT string_agg(action || ':' || array_length(message_ids, 1) || ':' || user_email || ':' || "
                "(finished_at IS NOT NULL), ',' ORDER BY id) FROM mailsec_remediations WHERE mailbox = '" +
                std::string(kMailbox) + "'"),
            "move:1:tech@msp.example:true,delete:2:tech@msp.example:true");

  fakes.graph().deny_access(kMailbox);
  const auto refused =
      post("/api/mailsec/mailbox-remediate", {{"action", "delete"}, {"mailbox", kMailbox}, {"messageIds", {ids[2]}}});
  EXPECT_EQ(refused.status, 403u) << refused.body;
  EXPECT_NE(refused.json()["detail"].get<std::string>().find("Mail.ReadWrite"), std::string::npos);
  // Every Graph call moved the mail platform's integration-health row: the refusal last.
  EXPECT_TRUE(health_shows("mailplatform",
                           "calls > 3 AND last_success_at IS NOT NULL AND failures > 0 AND "
                           "last_error LIKE '%Graph answered 403%'"));
  EXPECT_EQ(
      post("/api/mailsec/mailbox-remediate", {{"action", "search"}, {"mailbox", kMailbox}, {"query", "x"}}).status,
      403u);
  EXPECT_EQ(
      post("/api/mailsec/mailbox-remediate", {{"action", "purge"}, {"mailbox", kMailbox}}).json()["errors"][0]["field"],
      "action");
}

// Tenants: the default and a named one; an unknown one is a 400 naming `tenant`. Not configured:
// 503 naming the settings; switched off: 403 first.
TEST_F(MailsecTest, TenantsAndTheStateTable) {
  fakes.mimecast().seed({.seed = 6, .held = 12});
  auto env = mailsec_env();
  env["MAILSEC_TENANTS"] = "eu";
  env["MAILSEC_EU_BASE_URL"] = fakes.url() + "/mimecast";
  env["MAILSEC_EU_CLIENT_ID"] = "sandbox-mailsec";
  env["MAILSEC_EU_CLIENT_SECRET"] = "sandbox-mailsec-secret";
  start_mailsec(env);
  EXPECT_EQ(call("GET", "/api/mailsec/held", nullptr, tech).json()["tenant"], "default");
  EXPECT_EQ(call("GET", "/api/mailsec/held?tenant=eu", nullptr, tech).json()["tenant"], "eu");
  const auto unknown = call("GET", "/api/mailsec/held?tenant=apac", nullptr, tech);
  EXPECT_EQ(unknown.status, 400u);
  EXPECT_EQ(unknown.json()["errors"][0]["field"], "tenant");

  start({});
  const auto unconfigured = call("GET", "/api/mailsec/held", nullptr, tech);
  EXPECT_EQ(unconfigured.status, 503u);
  EXPECT_NE(unconfigured.body.find("MAILSEC_CLIENT_ID"), std::string::npos);
  const auto no_graph =
      post("/api/mailsec/mailbox-remediate", {{"action", "search"}, {"mailbox", kMailbox}, {"query", "x"}});
  EXPECT_EQ(no_graph.status, 503u);
  EXPECT_NE(no_graph.body.find("GRAPH_TENANT_ID"), std::string::npos);

  env = mailsec_env();
  env["INTEGRATIONS_DISABLED"] = "mimecast";
  start(env);
  EXPECT_EQ(call("GET", "/api/mailsec/held", nullptr, tech).status, 403u);
  EXPECT_EQ(post("/api/mailsec/held/release", {{"id", "x"}}).status, 403u);
  EXPECT_EQ(call("GET", "/api/mailsec/held").status, 401u);
}

// The counts' two schedules on a hand-moved clock (issue 31, part 6): while the mail-security
// integration is switched off, neither their runs at start nor a day of rounds reach Mimecast or
// the table (the retention keeps a day past 18 months); switched on again, the next pull round
// pulls and the next retention round deletes, neither before its time.
TEST_F(MailsecTest, TheCountsSchedulesRunNothingWhileTheIntegrationIsSwitchedOff) {
  fakes.mimecast().seed({.seed = 8, .held = 0, .tracked = 0, .users = 6, .days = 3});
  const json expected = fakes.mimecast().counts();
  add_user("boss@msp.example", kPassword, true);
  sql("INSERT INTO mailsec_message_counts (user_email, day, sent, received) VALUES ('old@msp.example', "
      "(now() AT TIME ZONE 'UTC')::date - interval '19 months', 1, 1)");
  sql("UPDATE integration_settings SET disabled = true WHERE key = 'mailsec'");
  auto env = mailsec_env();
  env["MAILSEC_COUNTS_MINUTES"] = "360";
  env["MORNING_SUMMARY_TICK_SECONDS"] = "3600";  // its schedule is on the clock too: fewer rounds
  auto clock = std::make_shared<core::testing::ManualClock>();
  start(env, clock);
  const auto boss = sign_in("boss@msp.example", kPassword);
  const auto rows = [&] { return sql("SELECT count(*) FROM mailsec_message_counts"); };

  clock->advance(std::chrono::hours(24));
  EXPECT_EQ(clock->rounds("mailsec counts"), 4);  // every 6 hours, besides the run at start
  EXPECT_EQ(clock->rounds("mailsec retention"), 1);
  EXPECT_EQ(fakes.mimecast().stats()["requests"], 0);
  EXPECT_EQ(rows(), "1");  // the old day, kept

  const auto on = call("PATCH", "/api/admin/integrations", {{"key", "mailsec"}, {"disabled", false}}, boss);
  ASSERT_EQ(on.status, 200u) << on.body;
  clock->advance(std::chrono::hours(5));
  EXPECT_EQ(rows(), "1");
  clock->advance(std::chrono::hours(1));  // the pull at 30 hours
  EXPECT_EQ(rows(), std::to_string(expected.size() + 1));
  EXPECT_GT(fakes.mimecast().stats()["requests"], 0);
  clock->advance(std::chrono::hours(18));  // the retention at 48 hours
  EXPECT_EQ(rows(), std::to_string(expected.size()));
  EXPECT_EQ(clock->rounds("mailsec retention"), 2);
}

// The message counts: pulled at start from the SIEM receipt stream, per internal user and UTC day,
// equal to the fake's own sums; a second pull counts nothing twice; days past 18 months go.
TEST_F(MailsecTest, MessageCountsArePulledPerUserAndDayAndKept18Months) {
  fakes.mimecast().seed({.seed = 8, .held = 0, .tracked = 0, .users = 6, .days = 3});
  add_user("tech@msp.example", kPassword);
  const std::string old_day = sql("SELECT ((now() AT TIME ZONE 'UTC')::date - interval '18 months 1 day')::date");
  const std::string kept_day = sql("SELECT ((now() AT TIME ZONE 'UTC')::date - interval '17 months')::date");
  sql("INSERT INTO mailsec_message_counts (user_email, day, sent, received) VALUES ('old@msp.example', '" + old_day +
      "', 1, 1), ('old@msp.example', '" + kept_day + "', 2, 2)");
  const json expected = fakes.mimecast().counts();
  ASSERT_GT(expected.size(), 5u);
  const auto stored = [&] {
    return sql("SELECT count(*) FROM mailsec_message_counts WHERE user_email <> 'old@msp.example'");
  };
  start(mailsec_env());
  ASSERT_TRUE(core::testing::eventually([&] { return stored() == std::to_string(expected.size()); }))
      << stored() << " of " << expected.size();
  for (const auto& c : expected)
    EXPECT_EQ(sql("SELECT sent || '/' || received FROM mailsec_message_counts WHERE user_email = '" +
                  c["user"].get<std::string>() + "' AND day = '" + c["day"].get<std::string>() + "'"),
              c["sent"].dump() + "/" + c["received"].dump())
        << c;
  EXPECT_EQ(sql("SELECT string_agg(day::text, ',') FROM mailsec_message_counts WHERE user_email = 'old@msp.example'"),
            kept_day);  // the day past 18 months is gone, the one within kept

  start(mailsec_env());  // pulls again at start: the same days re-read, nothing counted twice
  ASSERT_TRUE(core::testing::eventually([&] {
    return sql("SELECT count(*) FROM sync_watermarks WHERE entity_type = 'mailsec:counts:default' AND "
               "updated_at > now() - interval '2 seconds'") == "1";
  }));
  for (const auto& c : expected)
    EXPECT_EQ(sql("SELECT sent FROM mailsec_message_counts WHERE user_email = '" + c["user"].get<std::string>() +
                  "' AND day = '" + c["day"].get<std::string>() + "'"),
              c["sent"].dump());
}

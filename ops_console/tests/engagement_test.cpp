// Engagement (issue 22) against the Graph fake, at an instant pinned by DASHBOARD_NOW: the period
// rule, the trend's days (UTC, zero-filled, whatever the user's zone), the preference of the
// mail-security counts over the usage report day by day, the platform-hours estimate, PSA hours
// by e-mail, the users list and a user's detail, every status of the photo route, and the
// usage-report pull (rows stored, final days not asked again, nothing while switched off).
#include "core/db/pool.hpp"
#include "ops_console/engagement/usage_pull.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr const char* kNow = "2026-11-23T00:30:00Z";  // Auckland: 13:30 on the 23rd; Los Angeles: 16:30 on the 22nd

struct EngagementTest : ConsoleTest {
  sandbox::InProcess fakes;

  std::map<std::string, std::string> graph_env() {
    return {{"GRAPH_LOGIN_URL", fakes.url()},          {"GRAPH_BASE_URL", fakes.url()},
            {"GRAPH_TENANT_ID", "contoso-tenant"},     {"GRAPH_CLIENT_ID", "sandbox-client"},
            {"GRAPH_CLIENT_SECRET", "sandbox-secret"}, {"DASHBOARD_NOW", kNow},
            {"MAILPLATFORM_USAGE_MINUTES", "0"}};
  }
  json get(const std::string& path, const std::string& token) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.status == 200u ? res.json() : json();
  }

  // Mail-security counts (same-day), usage-report rows (late), PSA time, around the pinned day.
  void seed() {
    sql("INSERT INTO mailsec_message_counts (user_email, day, sent, received) VALUES "
        "('alice@msp.example', '2026-11-23', 10, 30), ('alice@msp.example', '2026-11-22', 2, 4), "
        "('bob@msp.example', '2026-11-22', 1, 1), "
        "('alice@msp.example', '2026-11-16', 1000, 1000), "  // in D30, not D7
        "('alice@msp.example', '2026-09-10', 5, 5), "        // in D90, not D30
        "('alice@msp.example', '2026-08-25', 7, 7)");        // before D90
    // 2026-11-22 has mail-security counts: its report rows are not read (Alice's 100, Carol's 50);
    // 2026-11-20 has none: its report rows are.
    sql("INSERT INTO mailplatform_usage_days (user_email, day, display_name, sent, received, read) VALUES "
        "('alice@msp.example', '2026-11-22', 'Alice Report', 100, 100, 0), "
        "('carol@msp.example', '2026-11-22', 'Carol Report', 50, 50, 0), "
        "('alice@msp.example', '2026-11-20', 'Alice Report', 6, 12, 12), "
        "('carol@msp.example', '2026-11-20', 'Carol Report', 3, 0, 0)");
    sql("INSERT INTO resources (id, first_name, last_name, email) VALUES (1, 'Alice', 'Resource', "
        "'Alice@MSP.example'), (2, 'Dave', 'Tech', 'dave@msp.example'), (3, 'No', 'Mail', NULL)");
    sql("INSERT INTO time_entries (id, resource_id, date_worked, start_date_time, hours_worked, deleted_at) VALUES "
        "(1, 1, '2026-11-22T00:00:00Z', '2026-11-22T20:00:00Z', 2.5, NULL), "  // Auckland's 23rd, UTC's 22nd
        "(2, 1, '2026-11-21T00:00:00Z', NULL, 1.25, NULL), "                   // no start: date_worked
        "(3, 1, '2026-11-21T00:00:00Z', '2026-11-21T09:00:00Z', 5, now()), "   // deleted
        "(4, 2, '2026-11-23T00:00:00Z', '2026-11-23T00:10:00Z', 3, NULL), "
        "(5, 3, '2026-11-23T00:00:00Z', '2026-11-23T00:10:00Z', 8, NULL)");  // a resource without e-mail
  }
};

json point(const json& trend, const std::string& date) {
  for (const auto& p : trend["points"])
    if (p["date"] == date) return p;
  return json();
}

}  // namespace

// The period rule, the days of the trend, and the same UTC buckets for users in UTC, Auckland and
// Los Angeles.
TEST_F(EngagementTest, PeriodsAreCheckedAndEveryDayIsAUtcDayWithoutGaps) {
  add_user("utc@msp.example", kPassword);
  sql("UPDATE users SET timezone = 'Pacific/Auckland' WHERE id = " + add_user("kiwi@msp.example", kPassword));
  sql("UPDATE users SET timezone = 'America/Los_Angeles' WHERE id = " + add_user("la@msp.example", kPassword));
  seed();
  start(graph_env());
  const auto utc = sign_in("utc@msp.example", kPassword);

  for (const std::string route : {"summary", "trend", "users"}) {
    const std::string path = "/api/mobile/engagement/" + route;
    EXPECT_EQ(call("GET", path + "?period=D7").status, 401u) << route;  // no session: 401 first
    for (const std::string bad : {"", "?period=D14", "?period=d7", "?period=", "?period=D7&period=D30x"}) {
      const auto res = call("GET", path + bad, nullptr, utc);
      EXPECT_EQ(res.status, 400u) << route << bad << ": " << res.body;
      if (res.status == 400u) EXPECT_EQ(res.json()["errors"][0]["field"], "period") << route << bad;
    }
  }

  for (const auto& [period, days, first] :
       {std::tuple{"D7", 7, "2026-11-17"}, {"D30", 30, "2026-10-25"}, {"D90", 90, "2026-08-26"}}) {
    const json trend = get(std::string("/api/mobile/engagement/trend?period=") + period, utc);
    ASSERT_EQ(trend["points"].size(), static_cast<std::size_t>(days)) << period;
    EXPECT_EQ(trend["period"], period);
    EXPECT_EQ(trend["points"].front()["date"], first) << period;
    EXPECT_EQ(trend["points"].back()["date"], "2026-11-23") << period;  // the UTC day of the instant
    auto expected = std::chrono::sys_days(std::chrono::year_month_day(std::chrono::year(2026) / 11 / 23)) -
                    std::chrono::days(days - 1);
    for (const auto& p : trend["points"]) {  // one a day, oldest first, no gaps
      EXPECT_EQ(p["date"], core::format_rfc3339(core::Timestamp(expected)).substr(0, 10)) << period;
      expected += std::chrono::days(1);
    }
  }
  const json week = get("/api/mobile/engagement/trend?period=D7", utc);
  const json empty = point(week, "2026-11-18");  // nothing that day: zeros, no source
  EXPECT_EQ(empty, json({{"date", "2026-11-18"},
                         {"sent", 0},
                         {"received", 0},
                         {"platformHours", 0},
                         {"psaHours", 0},
                         {"activeUsers", 0},
                         {"source", nullptr}}));

  // Auckland is already on the 23rd at 13:30 and Los Angeles still on the 22nd: both see the UTC
  // days, the 20:00Z time entry on the 22nd, the last point the 23rd.
  for (const char* who : {"kiwi@msp.example", "la@msp.example"}) {
    const auto token = sign_in(who, kPassword);
    EXPECT_EQ(get("/api/mobile/engagement/trend?period=D7", token), week) << who;
    EXPECT_EQ(get("/api/mobile/engagement/summary?period=D30", token),
              get("/api/mobile/engagement/summary?period=D30", utc))
        << who;
  }
  EXPECT_EQ(point(week, "2026-11-22")["psaHours"], 2.5);
  EXPECT_EQ(point(week, "2026-11-23")["psaHours"], 3);
}

// The figures: mail-security counts win their days, the usage report fills the others; platform
// hours are 4 minutes a sent and 1 a received e-mail (or as set); PSA hours follow the resource's
// e-mail; the users list and a user's detail.
TEST_F(EngagementTest, MailSecurityWinsItsDaysTheReportFillsTheRestAndTheHoursAddUp) {
  add_user("alice@msp.example", kPassword);  // a console user: her name is the console's
  seed();
  start(graph_env());
  const auto token = sign_in("alice@msp.example", kPassword);

  const json week = get("/api/mobile/engagement/trend?period=D7", token);
  EXPECT_EQ(week["configured"], true);
  const json nov23 = point(week, "2026-11-23"), nov22 = point(week, "2026-11-22"), nov21 = point(week, "2026-11-21"),
             nov20 = point(week, "2026-11-20");
  EXPECT_EQ(nov23, json({{"date", "2026-11-23"},
                         {"sent", 10},
                         {"received", 30},
                         {"platformHours", 1.17},  // (10 × 4 + 30 × 1) / 60
                         {"psaHours", 3},          // Dave's, by his resource's e-mail
                         {"activeUsers", 2},
                         {"source", "mailsec"}}));
  // Mail security has the 22nd: its counts, not the report's 100 and 50.
  EXPECT_EQ(nov22["source"], "mailsec");
  EXPECT_EQ(nov22["sent"], 3);
  EXPECT_EQ(nov22["received"], 5);
  EXPECT_EQ(nov22["platformHours"], 0.28);  // 17 / 60
  EXPECT_EQ(nov22["activeUsers"], 2);       // Alice and Bob; Carol's report row is not read
  // The 20th only the report has.
  EXPECT_EQ(nov20["source"], "mailplatform");
  EXPECT_EQ(nov20["sent"], 9);
  EXPECT_EQ(nov20["received"], 12);
  EXPECT_EQ(nov20["platformHours"], 0.8);  // 48 / 60
  // PSA time alone: no mail source; the deleted entry and the resource without e-mail do not count.
  EXPECT_EQ(nov21["source"], nullptr);
  EXPECT_EQ(nov21["psaHours"], 1.25);
  EXPECT_EQ(nov21["activeUsers"], 1);

  EXPECT_EQ(get("/api/mobile/engagement/summary?period=D7", token),
            json({{"configured", true},
                  {"period", "D7"},
                  {"activeUsers", 4},            // Alice, Bob, Carol, Dave
                  {"totalPlatformHours", 2.25},  // (22 × 4 + 47) / 60
                  {"totalPsaHours", 6.75},       // 3 + 2.5 + 1.25
                  {"hoursPerActiveUser", 2.25},  // 9 / 4
                  {"source", {"mailsec", "mailplatform"}}}));
  const json month = get("/api/mobile/engagement/summary?period=D30", token);
  EXPECT_EQ(month["totalPlatformHours"], 85.58);  // the 16th's 1000 and 1000 too: (1022 × 4 + 1047) / 60
  EXPECT_EQ(month["activeUsers"], 4);

  const json users = get("/api/mobile/engagement/users?period=D7", token);
  ASSERT_EQ(users["users"].size(), 4u) << users;
  EXPECT_EQ(users["truncated"], false);
  EXPECT_EQ(users["users"][0], json({{"userId", "alice@msp.example"},
                                     {"email", "alice@msp.example"},
                                     {"name", "Name of alice@msp.example"},  // the console's name first
                                     {"sent", 18},
                                     {"received", 46},
                                     {"platformHours", 1.97},
                                     {"psaHours", 3.75},
                                     {"totalHours", 5.72}}));
  EXPECT_EQ(users["users"][1]["email"], "dave@msp.example");  // most hours first: 3 PSA hours
  EXPECT_EQ(users["users"][1]["name"], "Dave Tech");          // the PSA resource's
  EXPECT_EQ(users["users"][1]["sent"], 0);
  EXPECT_EQ(users["users"][2]["email"], "carol@msp.example");
  EXPECT_EQ(users["users"][2]["name"], "Carol Report");  // the usage report's
  EXPECT_EQ(users["users"][2]["platformHours"], 0.2);
  EXPECT_EQ(users["users"][3]["email"], "bob@msp.example");
  EXPECT_EQ(users["users"][3]["name"], nullptr);

  const auto alice = call("GET", "/api/mobile/engagement/user/Alice@MSP.example", nullptr, token);
  ASSERT_EQ(alice.status, 200u) << alice.body;
  const json detail = alice.json();
  EXPECT_EQ(detail["userId"], "alice@msp.example");
  EXPECT_EQ(detail["emails"], json({{"d7", {{"sent", 18}, {"received", 46}}},
                                    {"d30", {{"sent", 1018}, {"received", 1046}}},
                                    {"d90", {{"sent", 1023}, {"received", 1051}}}}));  // not the 25 August count
  EXPECT_EQ(detail["psaHours"], json({{"d7", 3.75}, {"d30", 3.75}, {"d90", 3.75}}));
  EXPECT_EQ(detail["platformHours"]["d7"], 1.97);
  EXPECT_EQ(detail["lastActivityDate"], "2026-11-23");
  EXPECT_EQ(get("/api/mobile/engagement/user/dave@msp.example", token)["psaHours"]["d7"], 3);  // PSA only
  const auto unknown = call("GET", "/api/mobile/engagement/user/nobody@msp.example", nullptr, token);
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_EQ(unknown.body.find("nobody"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/mobile/engagement/user/6e2c6b8a-1d4b-4c4b-9a55-2b8c2c1f7a10", nullptr, token).status,
            404u);  // an object id: the stored figures are by address
  const auto malformed = call("GET", "/api/mobile/engagement/user/a..b@msp.example", nullptr, token);
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_EQ(malformed.json()["errors"][0]["field"], "userId");
  EXPECT_EQ(call("GET", "/api/mobile/engagement/user/alice@msp.example").status, 401u);

  // Nothing configured: configured false, the stored figures still answer; other minutes per e-mail.
  start({{"DASHBOARD_NOW", kNow}, {"ENGAGEMENT_MINUTES_PER_SENT", "6"}, {"ENGAGEMENT_MINUTES_PER_RECEIVED", "0.5"}});
  const json unconfigured = get("/api/mobile/engagement/summary?period=D7", sign_in("alice@msp.example", kPassword));
  EXPECT_EQ(unconfigured["configured"], false);
  EXPECT_EQ(unconfigured["activeUsers"], 4);
  EXPECT_EQ(unconfigured["totalPlatformHours"], 2.59);  // (22 × 6 + 47 × 0.5) / 60
  // A mail-security tenant alone is a configured mail source.
  start({{"DASHBOARD_NOW", kNow},
         {"MAILSEC_BASE_URL", fakes.url() + "/mimecast"},
         {"MAILSEC_CLIENT_ID", "sandbox-mailsec"},
         {"MAILSEC_CLIENT_SECRET", "sandbox-mailsec-secret"},
         {"MAILSEC_COUNTS_MINUTES", "0"}});
  EXPECT_EQ(get("/api/mobile/engagement/trend?period=D7", sign_in("alice@msp.example", kPassword))["configured"], true);
}

// Every status of the photo route.
TEST_F(EngagementTest, ThePhotoIsProxiedAndItsFailuresSayNothing) {
  add_user("tech@msp.example", kPassword);
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(1000, '\0') + "end";
  const std::string id = fakes.graph().set_photo("adele@msp.example", "image/png", png);
  fakes.graph().add_directory_user("lee@msp.example");  // no photo
  const std::string photo = "/api/mobile/engagement/user/adele@msp.example/photo";

  start({{"DASHBOARD_NOW", kNow}});  // no GRAPH_*
  auto token = sign_in("tech@msp.example", kPassword);
  EXPECT_EQ(call("GET", photo).status, 401u);
  const auto unconfigured = call("GET", photo, nullptr, token);
  EXPECT_EQ(unconfigured.status, 503u);
  EXPECT_NE(unconfigured.body.find("GRAPH_TENANT_ID"), std::string::npos);

  start(graph_env());
  token = sign_in("tech@msp.example", kPassword);
  EXPECT_EQ(call("GET", photo).status, 401u);
  const auto ok = call("GET", photo, nullptr, token);
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.body, png);
  EXPECT_EQ(ok.header("content-type"), "image/png");
  EXPECT_EQ(ok.header("cache-control"), "private, max-age=3600");
  EXPECT_EQ(call("GET", "/api/mobile/engagement/user/" + id + "/photo", nullptr, token).body, png);  // by object id
  EXPECT_EQ(call("GET", "/api/mobile/engagement/user/ADELE@msp.example/photo", nullptr, token).status, 200u);

  const auto asked = [&] { return fakes.graph().stats()["photo_requests"].get<int>(); };
  const int asked_before = asked();
  for (const std::string bad : {"a..b@msp.example", "a%2Fb@msp.example", "%2E%2E", "a%01b@msp.example", "not-an-id",
                                "adele@msp.example%2F..%2Fx", "a%20b@msp.example"}) {
    const auto res = call("GET", "/api/mobile/engagement/user/" + bad + "/photo", nullptr, token);
    EXPECT_EQ(res.status, 400u) << bad << ": " << res.body;
    if (res.status == 400u) EXPECT_EQ(res.json()["errors"][0]["field"], "userId") << bad;
  }
  EXPECT_EQ(asked(), asked_before);  // a malformed id asks Graph nothing

  // No photo (a directory user without one, an unknown user): 404 naming neither.
  for (const std::string who : {"lee@msp.example", "nobody@msp.example"}) {
    const auto none = call("GET", "/api/mobile/engagement/user/" + who + "/photo", nullptr, token);
    EXPECT_EQ(none.status, 404u) << who << ": " << none.body;
    EXPECT_EQ(none.body.find(who.substr(0, who.find('@'))), std::string::npos) << none.body;
    EXPECT_EQ(none.body.find("msp.example"), std::string::npos) << none.body;
    EXPECT_EQ(none.body.find("ImageNotFound"), std::string::npos) << none.body;
    EXPECT_EQ(none.body.find("Resource"), std::string::npos) << none.body;
  }
  EXPECT_EQ(asked(), asked_before + 2);

  // Upstream failures: 502, and the body says nothing of the user, the token or Graph's answer.
  const auto says_nothing = [&](const core::testing::HttpResponse& res, const char* what) {
    EXPECT_EQ(res.status, 502u) << what << ": " << res.body;
    for (const char* secret : {"adele", "msp.example", "Bearer", "eyJ0", "UnknownError", "temporarily", "sandbox"})
      EXPECT_EQ(res.body.find(secret), std::string::npos) << what << " revealed " << secret << ": " << res.body;
  };
  fakes.graph().set_faults({.server_errors = 10, .status = 500});
  says_nothing(call("GET", photo, nullptr, token), "a 500");
  fakes.graph().set_faults({});
  fakes.graph().set_photo("adele@msp.example", "image/jpeg", std::string((4 << 20) + 1, 'x'));
  says_nothing(call("GET", photo, nullptr, token), "a photo over 4 MiB");
  fakes.graph().set_photo("adele@msp.example", "image/jpeg", std::string(4 << 20, 'x'));
  const auto largest = call("GET", photo, nullptr, token);
  EXPECT_EQ(largest.status, 200u);
  EXPECT_EQ(largest.header("content-type"), "image/jpeg");  // whatever type Graph says
  EXPECT_EQ(largest.body.size(), static_cast<std::size_t>(4 << 20));

  auto wrong = graph_env();
  wrong["GRAPH_CLIENT_SECRET"] = "not-the-secret";  // the token request fails
  start(wrong);
  says_nothing(call("GET", photo, nullptr, sign_in("tech@msp.example", kPassword)), "a refused token");

  auto off = graph_env();
  off["INTEGRATIONS_DISABLED"] = "mailplatform";  // switched off: 403, as every integration's routes
  start(off);
  EXPECT_EQ(call("GET", photo, nullptr, sign_in("tech@msp.example", kPassword)).status, 403u);
}

// The usage-report pull: nothing while the integration is switched off, one question for a tenant
// without activity, the report's rows for each day, final days not asked again; and the service
// pulls at start.
TEST_F(EngagementTest, TheUsagePullStoresTheReportsAndSkipsWhileSwitchedOff) {
  const auto day = [](int back) {
    return core::format_rfc3339(core::now() - std::chrono::hours(24 * back)).substr(0, 10);
  };
  const auto seed_fake = [&] {
    fakes.graph().add_usage(day(3), {.user = "Adele@msp.example", .display_name = "Adele", .send = 4, .receive = 9});
    fakes.graph().add_usage(day(3), {.user = "lee@msp.example", .display_name = "Lee", .send = 1, .receive = 2});
    fakes.graph().add_usage(day(5), {.user = "adele@msp.example", .send = 7, .receive = 1, .read = 1});
    fakes.graph().add_usage(day(1), {.user = "adele@msp.example", .send = 99});  // not processed yet (lag 2 days)
  };

  core::testing::IoThreads io{2};
  core::db::Pool db(io.executor(), {.conninfo = database.url(), .max_size = 2});
  core::graph::GraphSettings settings;
  settings.login_url = settings.base_url = fakes.url();
  settings.tenant_id = "contoso-tenant";
  settings.client_id = "sandbox-client";
  settings.client_secret = "sandbox-secret";
  auto directory = std::make_shared<core::graph::DirectoryClient>(
      std::make_shared<core::graph::GraphClient>(io.executor(), settings));
  ops_console::engagement::UsagePull usage(db, directory, ops_console::integrations::Health(db, io.executor()));
  const auto reports_asked = [&] { return fakes.graph().stats()["report_requests"].get<int>(); };

  ops_console::integrations::Registry off(db, {.env_disabled = {"mailplatform"}});
  io.run(ops_console::engagement::scheduled_usage_pull(off, usage));
  EXPECT_EQ(reports_asked(), 0);
  EXPECT_EQ(sql("SELECT count(*) FROM mailplatform_usage_days"), "0");

  // No activity at all: the 30-day report lists nobody, no day is asked.
  ops_console::integrations::Registry on(db, {});
  io.run(ops_console::engagement::scheduled_usage_pull(on, usage));
  EXPECT_EQ(reports_asked(), 1);
  EXPECT_EQ(sql("SELECT count(*) FROM mailplatform_usage_reports"), "0");

  seed_fake();
  io.run(ops_console::engagement::scheduled_usage_pull(on, usage));
  EXPECT_EQ(reports_asked(), 2 + ops_console::engagement::kReportDays);  // the 30 days, then each of the 27
  EXPECT_EQ(sql("SELECT string_agg(user_email || ' ' || day || ' ' || coalesce(display_name, '-') || ' ' || sent || "
                "'/' || received || '/' || read, ', ' ORDER BY day, user_email) FROM mailplatform_usage_days"),
            "adele@msp.example " + day(5) + " - 7/1/1, adele@msp.example " + day(3) + " Adele 4/9/0, lee@msp.example " +
                day(3) + " Lee 1/2/0");
  EXPECT_EQ(sql("SELECT string_agg(day::text, ',' ORDER BY day) FROM mailplatform_usage_reports WHERE final"),
            day(5) + "," + day(3));
  EXPECT_EQ(sql("SELECT report_refresh_date FROM mailplatform_usage_days LIMIT 1"), day(2));
  EXPECT_EQ(sql("SELECT status FROM sync_history WHERE entity_type = 'mailplatform'"), "succeeded");

  // Again: the two final days are not asked; a changed day not yet final is replaced.
  fakes.graph().set_report_lag(1);  // yesterday is processed now
  io.run(ops_console::engagement::scheduled_usage_pull(on, usage));
  EXPECT_EQ(reports_asked(), 3 + 2 * ops_console::engagement::kReportDays - 2);
  EXPECT_EQ(sql("SELECT sent FROM mailplatform_usage_days WHERE day = '" + day(1) + "'"), "99");
  EXPECT_TRUE(core::testing::eventually([&] {  // every report call moved the health row (written in the background)
    return sql("SELECT calls > 0 AND last_success_at IS NOT NULL FROM integration_health WHERE key = 'mailplatform'") ==
           "t";
  }));

  // The service pulls at start.
  sql("DELETE FROM mailplatform_usage_days; DELETE FROM mailplatform_usage_reports");
  auto env = graph_env();
  env.erase("MAILPLATFORM_USAGE_MINUTES");
  start(env);
  EXPECT_TRUE(core::testing::eventually([&] { return sql("SELECT count(*) FROM mailplatform_usage_days") == "4"; }));
}

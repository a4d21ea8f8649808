// The dashboards, the worker status and the mobile dashboard and finance (issue 22), with the
// spec's day-boundary rules: a run pinned (DASHBOARD_NOW) to Monday 2026-11-23 10:30 UTC, which is
// 23:30 that Monday in Auckland and 02:30 that Monday in Los Angeles, and tickets placed a minute
// either side of each zone's midnight.
#include "core/testing/manual_clock.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include <map>
#include <string>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr const char* kNow = "2026-11-23T10:30:00Z";

struct DashboardTest : ConsoleTest {
  std::map<std::string, std::string> tokens;  // zone → a signed-in user in it
  // what the schedules wait on: nothing runs in the background but what a test moves it for
  std::shared_ptr<core::testing::ManualClock> clock = std::make_shared<core::testing::ManualClock>();

  void start_pinned(std::map<std::string, std::string> env = {}) {
    env.emplace("DASHBOARD_NOW", kNow);
    env.emplace("ANALYZER_WORKERS", "0");
    for (const std::string zone : {"UTC", "Pacific/Auckland", "America/Los_Angeles"}) {
      const std::string email = "user" + std::to_string(tokens.size()) + "@msp.example";
      add_user(email, kPassword);
      sql("UPDATE users SET timezone = '" + zone + "' WHERE email = '" + email + "'");
      tokens[zone] = email;
    }
    start(env, clock);
    clock->settle();  // the schedules' first runs (the trends' renewal of the signed-in zones: none yet)
    for (auto& [zone, email] : tokens) email = sign_in(email, kPassword);
  }
  json get(const std::string& path, const std::string& zone) {
    const auto res = call("GET", path, nullptr, tokens.at(zone));
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }

  // The trends' 30 days (migration 0040: dashboard_trends()) at the pinned instant in `zone`: read
  // whole, they equal a plain count of the tickets by local day; handed back, the 29 days before today
  // give the same answer without being read again (no `past`); kept from another day, or with other
  // companies out of scope, they are not used (a `past` again) and the answer is still the same.
  void check_trend_days(const std::string& zone) {
    const std::string at = "'" + std::string(kNow) + "'::timestamptz", tz = "'" + zone + "'";
    const auto trends = [&](const std::string& kept) {
      return json::parse(sql("SELECT json_build_object('answer', answer, 'past', past) FROM dashboard_trends(" + tz +
                             ", " + at + ", " + kept + ")"));
    };
    const json whole = trends("NULL");
    const std::string recount =
        "WITH d AS (SELECT ((" + at + " AT TIME ZONE " + tz +
        ")::date - 29 + n) AS day FROM generate_series(0, 29) n) "
        "SELECT json_build_object('volume', json_agg(json_build_object('date', d.day, "
        "  'opened', (SELECT count(*) FROM counted_tickets t WHERE (t.create_date AT TIME ZONE " +
        tz +
        ")::date = d.day "
        "             AND t.create_date < " +
        at +
        "), "
        "  'resolved', (SELECT count(*) FROM counted_tickets t WHERE t.status = 5 "
        "               AND (t.completed_date AT TIME ZONE " +
        tz + ")::date = d.day AND t.completed_date < " + at +
        "))"
        "  ORDER BY d.day), "
        "'meanHours', json_agg((SELECT round((avg(extract(epoch FROM t.completed_date - t.create_date)) / "
        "3600)::numeric, "
        "  2) FROM counted_tickets t WHERE t.status = 5 AND (t.completed_date AT TIME ZONE " +
        tz +
        ")::date = d.day "
        "  AND t.completed_date < " +
        at + ") ORDER BY d.day)) FROM d";
    const json expected = json::parse(sql(recount));
    EXPECT_EQ(whole["answer"]["volume"], expected["volume"]) << zone;
    json means = json::array();
    for (const auto& day : whole["answer"]["resolution"]) means.push_back(day["meanHours"]);
    EXPECT_EQ(means, expected["meanHours"]) << zone;
    ASSERT_TRUE(whole["past"].is_object()) << zone;
    EXPECT_EQ(whole["past"]["volume"].size(), 29u);

    const auto quoted = [](const json& past) { return "'" + past.dump() + "'::json"; };  // no quote in it
    const json kept = trends(quoted(whole["past"]));
    EXPECT_EQ(kept["answer"], whole["answer"]) << zone;
    EXPECT_TRUE(kept["past"].is_null()) << zone << ": the kept days were used";

    const json day_before =
        json::parse(sql("SELECT past FROM dashboard_trends(" + tz + ", " + at + " - interval '1 day', NULL)"));
    const json not_today = trends(quoted(day_before));
    EXPECT_EQ(not_today["answer"], whole["answer"]) << zone;
    EXPECT_EQ(not_today["past"], whole["past"]) << zone << ": another day's entry is read again";
    json other_scope = whole["past"];
    other_scope["scope"] = "another";
    const json rescoped = trends(quoted(other_scope));
    EXPECT_EQ(rescoped["answer"], whole["answer"]) << zone;
    EXPECT_EQ(rescoped["past"], whole["past"]) << zone << ": an entry of other companies out of scope is read again";
  }

  // Tickets of company 1 (in scope, explicitly) around the midnights that matter, one of company
  // 2 (out of scope) today, one created after the pinned instant, and one completed today.
  void seed_tickets() {
    sql("INSERT INTO companies (id, company_name) VALUES (1, 'Contoso'), (2, 'Out Of Scope Ltd')");
    sql("INSERT INTO company_scope (company_id, in_scope, updated_by) VALUES (1, true, 'a'), (2, false, 'a')");
    sql("INSERT INTO psa_picklists (entity, field, value, label) VALUES ('Tickets', 'queueID', 8, 'Service Desk'), "
        "('Tickets', 'priority', 1, 'High'), ('Tickets', 'priority', 2, 'Medium')");
    sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date, due_date_time) VALUES "
        "(1, 1, 1, 8, 1, '2026-11-22T11:01Z', '2026-11-23T10:29Z'), "  // A: a minute into Auckland's Monday
        "(2, 1, 2, 8, 1, '2026-11-22T10:59Z', '2026-11-23T10:31Z'), "  // B: a minute before it
        "(3, 1, 2, 8, 1, '2026-11-23T08:01Z', NULL), "                 // C: a minute into LA's Monday
        "(4, 1, 2, 8, 1, '2026-11-23T07:59Z', NULL), "                 // D: a minute before it
        "(5, 1, 2, 8, 1, '2026-11-23T00:01Z', NULL), "                 // E: a minute into UTC's Monday
        "(6, 1, 1, 8, 1, '2026-11-22T23:59Z', '2026-11-23T00:30Z'), "  // F: a minute before it
        "(7, 1, 1, 8, 2, '2026-11-23T09:00Z', '2026-11-23T09:00Z'), "  // G: out of scope
        "(8, 1, 1, 8, 1, '2026-11-23T10:31Z', NULL)");                 // after the pinned instant
    sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date, completed_date) VALUES "
        "(9, 5, 2, 8, 1, '2026-11-21T09:30Z', '2026-11-23T09:30Z')");  // H: 48 hours, completed today
    sql("INSERT INTO resources (id, first_name, last_name) VALUES (7, 'Ann', 'Tech'), (8, 'Bo', 'Desk')");
    sql("INSERT INTO time_entries (id, resource_id, start_date_time, date_worked, hours_worked) VALUES "
        "(1, 7, '2026-11-23T09:00Z', '2026-11-23T00:00Z', 1.5), (2, 8, NULL, '2026-11-22T20:00Z', 2)");
  }
};

// Rules 1-3: "today" and each day in the user's zone, stored instants converted from UTC before
// taking the date, the pinned instant converted once. Rule 4: SLA breaches against the instant.
TEST_F(DashboardTest, OverviewCountsEachUsersDayAroundTheirMidnight) {
  seed_tickets();
  start_pinned();

  const json utc = get("/api/dashboard/overview", "UTC");
  EXPECT_EQ(utc["date"], "2026-11-23");
  // C D E today; A B F yesterday; H on the 21st: (3 + 1) / 7
  EXPECT_EQ(utc["opened"], json::parse(R"({"today":3,"yesterday":3,"delta":0,"average7":0.6})"));
  EXPECT_EQ(utc["resolved"], json::parse(R"({"today":1,"yesterday":0,"delta":1,"average7":0.0})"));
  // open now: A-F (G out of scope, the 10:31 ticket not yet created); at UTC midnight: A B F and H
  EXPECT_EQ(utc["openTotal"]["today"], 6);
  EXPECT_EQ(utc["openTotal"]["yesterday"], 4);
  // breached now: A (due 10:29) and F (due 00:30), not B (due 10:31); at UTC midnight: none
  EXPECT_EQ(utc["slaBreaches"], json::parse(R"({"today":2,"yesterday":0,"delta":2,"average7":0.0})"));

  const json auckland = get("/api/dashboard/overview", "Pacific/Auckland");
  EXPECT_EQ(auckland["date"], "2026-11-23");  // 23:30 there; a double conversion would say the 22nd
  EXPECT_EQ(auckland["timezone"], "Pacific/Auckland");
  EXPECT_EQ(auckland["opened"]["today"], 5);         // A C D E F
  EXPECT_EQ(auckland["opened"]["yesterday"], 1);     // B
  EXPECT_EQ(auckland["openTotal"]["yesterday"], 2);  // at Auckland's midnight (11:00 UTC on the 22nd): B and H
  EXPECT_EQ(auckland["slaBreaches"]["today"], 2);    // the same instant for everyone

  const json la = get("/api/dashboard/overview", "America/Los_Angeles");
  EXPECT_EQ(la["date"], "2026-11-23");
  EXPECT_EQ(la["opened"]["today"], 1);      // C
  EXPECT_EQ(la["opened"]["yesterday"], 5);  // A B D E F
  EXPECT_EQ(la["openTotal"]["yesterday"], 6);
  EXPECT_EQ(la["slaBreaches"]["yesterday"], 1);  // F was overdue at LA's midnight (08:00 UTC)
  EXPECT_EQ(la["slaBreaches"]["delta"], 1);

  // Out of scope: switching company 2 back in scope counts G (opened today, overdue).
  sql("UPDATE company_scope SET in_scope = true WHERE company_id = 2");
  const json all = get("/api/dashboard/overview", "UTC");
  EXPECT_EQ(all["opened"]["today"], 4);
  EXPECT_EQ(all["slaBreaches"]["today"], 3);
}

TEST_F(DashboardTest, TrendsHaveThirtyLocalDaysAHeatmapAndTodaysEngineers) {
  seed_tickets();
  start_pinned();

  const json auckland = get("/api/dashboard/trends", "Pacific/Auckland");
  const json volume = auckland["volume"];
  ASSERT_EQ(volume.size(), 30u);
  EXPECT_EQ(volume.front()["date"], "2026-10-25");
  EXPECT_EQ(volume.back(), json::parse(R"({"date":"2026-11-23","opened":5,"resolved":1})"));
  EXPECT_EQ(volume[28], json::parse(R"({"date":"2026-11-22","opened":1,"resolved":0})"));
  EXPECT_EQ(volume[27], json::parse(R"({"date":"2026-11-21","opened":1,"resolved":0})"));  // H, 22:30 there
  EXPECT_EQ(volume[26], json::parse(R"({"date":"2026-11-20","opened":0,"resolved":0})"));  // zero-filled
  const json resolution = auckland["resolution"];
  ASSERT_EQ(resolution.size(), 30u);
  EXPECT_EQ(resolution.back(), json::parse(R"({"date":"2026-11-23","meanHours":48.0,"resolved":1})"));
  EXPECT_TRUE(resolution[0]["meanHours"].is_null());
  // Open tickets by queue and priority (G out of scope): A F high, B-E medium.
  EXPECT_EQ(auckland["heatmap"], json::parse(R"([
    {"queueId":8,"queue":"Service Desk","priority":1,"priorityLabel":"High","count":2},
    {"queueId":8,"queue":"Service Desk","priority":2,"priorityLabel":"Medium","count":4}])"));
  // Bo's entry (20:00 UTC on the 22nd, no start) is Monday morning in Auckland only.
  EXPECT_EQ(auckland["engineers"], json::parse(R"([{"resourceId":8,"name":"Bo Desk","hours":2.00},
                                                  {"resourceId":7,"name":"Ann Tech","hours":1.50}])"));

  const json la = get("/api/dashboard/trends", "America/Los_Angeles");
  EXPECT_EQ(la["volume"].back(), json::parse(R"({"date":"2026-11-23","opened":1,"resolved":1})"));
  EXPECT_EQ(la["engineers"].size(), 1u);  // Ann started at 01:00 there
  const json utc = get("/api/dashboard/trends", "UTC");
  EXPECT_EQ(utc["volume"].back()["opened"], 3);
  EXPECT_EQ(utc["engineers"], json::parse(R"([{"resourceId":7,"name":"Ann Tech","hours":1.50}])"));
}

// The trends' 29 days before today are kept per zone (TRENDS_KEEP_SECONDS): a ticket created on one
// of them shows once the entry is gone, while today's figures and the heatmap are read on every
// request; a zone never asked reads every day, and a change of company scope is seen at once.
TEST_F(DashboardTest, TrendsKeepThePastDaysOfEachZoneAndReadTodayOnEveryRequest) {
  seed_tickets();
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date) VALUES "
      "(20, 1, 2, 8, 2, '2026-11-19T12:00Z')");  // out of scope, on the 19th (20th in Auckland)
  start_pinned({{"TRENDS_KEEP_SECONDS", "3600"}});

  const auto day = [](const json& trends, const std::string& date) {
    for (const auto& d : trends["volume"])
      if (d["date"] == date) return d["opened"].get<int>();
    ADD_FAILURE() << "no " << date;
    return -1;
  };
  const auto medium = [](const json& trends) {
    for (const auto& cell : trends["heatmap"])
      if (cell["priority"] == 2) return cell["count"].get<int>();
    return 0;
  };
  const json before = get("/api/dashboard/trends", "Pacific/Auckland");
  EXPECT_EQ(day(before, "2026-11-18"), 0);
  EXPECT_EQ(day(before, "2026-11-20"), 0);

  // one ticket on the 17th (the 18th in Auckland), one today
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date) VALUES "
      "(21, 1, 2, 8, 1, '2026-11-17T12:00Z'), (22, 1, 2, 8, 1, '2026-11-23T10:00Z')");
  const json after = get("/api/dashboard/trends", "Pacific/Auckland");
  EXPECT_EQ(day(after, "2026-11-18"), 0) << "the kept day";
  EXPECT_EQ(day(after, "2026-11-23"), day(before, "2026-11-23") + 1) << "today, read";
  EXPECT_EQ(medium(after), medium(before) + 2) << "the heatmap, read";
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23],
            json::parse(R"({"date":"2026-11-17","opened":1,"resolved":0})"))
      << "a zone asked for the first time reads every day";

  // company 2 comes into scope: its ticket on the 20th counts at once, and the 18th is read again
  sql("UPDATE company_scope SET in_scope = true WHERE company_id = 2");
  const json rescoped = get("/api/dashboard/trends", "Pacific/Auckland");
  EXPECT_EQ(day(rescoped, "2026-11-20"), 1);
  EXPECT_EQ(day(rescoped, "2026-11-18"), 1);
}

TEST_F(DashboardTest, TrendsKeepNothingWhenTheKeepIsZero) {
  seed_tickets();
  start_pinned({{"TRENDS_KEEP_SECONDS", "0"}});
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23]["opened"], 0);
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date) VALUES "
      "(21, 1, 2, 8, 1, '2026-11-17T12:00Z')");
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23],
            json::parse(R"({"date":"2026-11-17","opened":1,"resolved":0})"));
}

// In the background, every half keep, the zones asked for lately are read again: a ticket on a kept
// past day shows after that, though the entry has not expired. At start, the zones of the users
// signed in then are read, so even their first request finds them kept.
TEST_F(DashboardTest, TheTrendsDaysAreReadAgainInTheBackgroundAndAtStart) {
  seed_tickets();
  std::map<std::string, std::string> env = {{"TRENDS_KEEP_SECONDS", "3600"}};
  start_pinned(env);
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23]["opened"], 0);
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date) VALUES "
      "(21, 1, 2, 8, 1, '2026-11-17T12:00Z')");
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23]["opened"], 0) << "kept";
  clock->advance(std::chrono::minutes(30));
  EXPECT_EQ(clock->rounds("dashboard trends days"), 1);
  EXPECT_EQ(get("/api/dashboard/trends", "UTC")["volume"][23]["opened"], 1) << "read again";

  // Another instance starts while the three users are signed in: it reads their zones at once.
  clock = std::make_shared<core::testing::ManualClock>();
  env.emplace("DASHBOARD_NOW", kNow);
  env.emplace("ANALYZER_WORKERS", "0");
  start(env, clock);
  clock->settle();
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date) VALUES "
      "(23, 1, 2, 8, 1, '2026-11-16T12:00Z')");  // the 17th in Auckland
  const json auckland = get("/api/dashboard/trends", "Pacific/Auckland");
  EXPECT_EQ(auckland["volume"][23], json::parse(R"({"date":"2026-11-17","opened":0,"resolved":0})"))
      << "read at start, before the insert";
  EXPECT_EQ(auckland["volume"][24], json::parse(R"({"date":"2026-11-18","opened":1,"resolved":0})"));
}

// The open tickets created and due before the overview's eight days, and the trends' heatmap, come
// from open_ticket_counts (migration 0038), kept by triggers. After every kind of change to the copy,
// each figure equals a plain count of the tickets at its instant, in each zone, the mobile
// dashboard's ticket figures equal the overview's, and the counts equal a recount of the tickets.
TEST_F(DashboardTest, OpenTicketsBreachesAndTheHeatmapEqualACountOfTheTicketsThroughEveryChange) {
  sql("INSERT INTO companies (id, company_name) VALUES (1, 'In'), (2, 'Out'), (3, 'Unscoped')");
  sql("INSERT INTO company_scope (company_id, in_scope, updated_by) VALUES (1, true, 'a'), (2, false, 'a')");
  // 400 tickets, one every 7 h 13 min back from the pinned instant (about 120 days), and 5 created
  // after it: open and completed, due before, within and after the eight days or never, of
  // companies in and out of scope or none, some with no queue, priority, status or creation date.
  sql("INSERT INTO tickets (id, status, priority, queue_id, company_id, create_date, due_date_time, completed_date) "
      "SELECT i, CASE WHEN i % 3 = 0 THEN 5 WHEN i % 29 = 0 THEN NULL ELSE abs(i) % 4 + 1 END, "
      "       nullif(abs(i) % 5, 0), (ARRAY[8, 9, NULL])[abs(i) / 3 % 3 + 1], nullif(abs(i) % 4, 0), "
      "       CASE WHEN i % 37 <> 0 THEN c END, "
      "       CASE WHEN i % 5 <> 0 THEN c + (i % 11 - 2) * interval '1 day' END, "
      "       CASE WHEN i % 3 = 0 THEN c + (i % 9) * interval '1 day' END "
      "FROM generate_series(-5, 400) i, LATERAL (SELECT '" +
      std::string(kNow) + "'::timestamptz - i * interval '7 hours 13 minutes' AS c) x WHERE i <> 0");
  start_pinned();

  const auto check = [&](const std::string& step) {
    SCOPED_TRACE(step);
    for (const std::string zone : {"UTC", "Pacific/Auckland", "America/Los_Angeles"}) {
      // The instants: now (today), and the end of each of the seven days before (yesterday first).
      const std::string counted =
          "WITH i AS (SELECT n, CASE WHEN n = 0 THEN '" + std::string(kNow) + "'::timestamptz ELSE (('" + kNow +
          "'::timestamptz AT TIME ZONE '" + zone +
          "')::date - (n - 1))::timestamp "
          "AT TIME ZONE '" +
          zone +
          "' END AS t FROM generate_series(0, 7) n), "
          "o AS (SELECT i.n, i.t, c.due_date_time FROM i JOIN counted_tickets c ON c.create_date < i.t "
          "      AND (c.status <> 5 OR (c.status = 5 AND c.completed_date >= i.t))) "
          "SELECT json_build_object("
          "  'openTotal', dashboard_figure_json(array(SELECT (SELECT count(*) FROM o WHERE o.n = i.n) FROM i ORDER BY "
          "n)), "
          "  'slaBreaches', dashboard_figure_json(array(SELECT (SELECT count(*) FROM o WHERE o.n = i.n "
          "                 AND o.due_date_time < o.t) FROM i ORDER BY n)))";
      const json overview = get("/api/dashboard/overview", zone);
      const json expected = json::parse(sql(counted));
      EXPECT_EQ(overview["openTotal"], expected["openTotal"]) << zone;
      EXPECT_EQ(overview["slaBreaches"], expected["slaBreaches"]) << zone;
      // The mobile dashboard reads two days, not eight (dashboard_days_json(), migration 0039):
      // its ticket figures are the overview's today and delta all the same.
      const json kpis = get("/api/mobile/dashboard", zone)["kpis"];
      const std::map<std::string, std::string> figure_of = {{"openTickets", "openTotal"},
                                                            {"slaBreaches", "slaBreaches"},
                                                            {"openedToday", "opened"},
                                                            {"resolvedToday", "resolved"}};
      std::size_t compared = 0;
      for (const auto& kpi : kpis) {
        const auto figure = figure_of.find(kpi["key"].get<std::string>());
        if (figure == figure_of.end()) continue;
        EXPECT_EQ(kpi["value"], overview[figure->second]["today"]) << zone << " " << figure->first;
        EXPECT_EQ(kpi["delta"], overview[figure->second]["delta"]) << zone << " " << figure->first;
        ++compared;
      }
      EXPECT_EQ(compared, 4u) << zone;

      const json trends = get("/api/dashboard/trends", zone);
      json heatmap = json::array();
      for (const auto& cell : trends["heatmap"])
        heatmap.push_back({{"queueId", cell["queueId"]}, {"priority", cell["priority"]}, {"count", cell["count"]}});
      EXPECT_EQ(heatmap,
                json::parse(sql("SELECT coalesce(json_agg(json_build_object('queueId', queue_id, 'priority', priority, "
                                "'count', n) ORDER BY queue_id NULLS LAST, priority NULLS LAST), '[]') FROM ("
                                "SELECT queue_id, priority, count(*) AS n FROM counted_tickets WHERE status <> 5 "
                                "AND create_date < '" +
                                std::string(kNow) + "' GROUP BY 1, 2) h")))
          << zone;
      check_trend_days(zone);
    }
    // ... and the triggers' table is a recount of the tickets.
    const std::string recount =
        "SELECT coalesce(json_agg(x ORDER BY x), '[]') FROM (SELECT ROW(coalesce(company_id, -1), "
        "coalesce(queue_id, -1), coalesce(priority, -1), count(*), count(due_date_time))::text AS x FROM tickets "
        "WHERE deleted_at IS NULL AND status <> 5 AND create_date IS NOT NULL GROUP BY company_id, queue_id, priority) "
        "r";
    EXPECT_EQ(
        sql("SELECT coalesce(json_agg(x ORDER BY x), '[]') FROM (SELECT ROW(company_key, queue_key, priority_key, "
            "open, open_due)::text AS x FROM open_ticket_counts WHERE open <> 0 OR open_due <> 0) r"),
        sql(recount));
  };
  check("as seeded");
  EXPECT_GT(std::stoi(sql("SELECT count(*) FROM tickets WHERE status <> 5 AND create_date < '" + std::string(kNow) +
                          "'::timestamptz - interval '8 days' AND (due_date_time IS NULL OR due_date_time < '" + kNow +
                          "'::timestamptz - interval '8 days')")),
            100);  // most open tickets are the counted ones
  // The PSA sync's upsert: some open tickets completed, some completed ones opened again, one new.
  sql("INSERT INTO tickets (id, status, completed_date, create_date, company_id, due_date_time) "
      "SELECT id, CASE WHEN status = 5 THEN 2 ELSE 5 END, '" +
      std::string(kNow) +
      "'::timestamptz - interval '3 days', "
      "create_date, company_id, due_date_time FROM tickets WHERE id % 7 = 0 "
      "UNION ALL SELECT 1000, 1, NULL, '2026-01-01T00:00Z', 1, '2026-11-20T00:00Z' "
      "ON CONFLICT (id) DO UPDATE SET status = excluded.status, completed_date = excluded.completed_date");
  check("after an upsert that completes and reopens");
  sql("UPDATE tickets SET due_date_time = CASE WHEN id % 2 = 0 THEN NULL "
      "ELSE '" +
      std::string(kNow) + "'::timestamptz - interval '2 days' END WHERE id % 11 = 1");
  check("after due dates change");
  sql("UPDATE tickets SET company_id = 2, queue_id = 9, priority = NULL WHERE id % 13 = 2");
  check("after a move to another company, queue and priority");
  sql("UPDATE tickets SET create_date = NULL WHERE id % 17 = 3");
  check("after creation dates are lost");
  sql("UPDATE tickets SET deleted_at = now() WHERE id % 19 = 4");
  sql("UPDATE tickets SET deleted_at = NULL WHERE id = 232");
  check("after deletion marks, one undone");
  sql("UPDATE tickets SET title = 'renamed'");
  check("after an update that changes no count");
  EXPECT_EQ(sql("SELECT count(*) FROM open_ticket_counts WHERE open < 0 OR open_due < 0"), "0");
  sql("UPDATE company_scope SET in_scope = true WHERE company_id = 2");
  check("after a company comes into scope");
  sql("DELETE FROM tickets WHERE id % 23 = 5");
  check("after rows are deleted");
  sql("TRUNCATE tickets CASCADE");
  check("after the table is truncated");
  EXPECT_EQ(sql("SELECT count(*) FROM open_ticket_counts WHERE open <> 0 OR open_due <> 0"), "0");
}

// Rule 4 again: the last hour and the 24 hourly buckets run back from the instant, whoever asks.
TEST_F(DashboardTest, WorkersHaveTwentyFourZeroFilledHoursAndTheDerivedStatus) {
  sql("INSERT INTO analysis_jobs (ticket_id, status, started_at, finished_at) VALUES "
      "(1, 'running', '2026-11-23T10:25Z', NULL), "
      "(2, 'failed', '2026-11-23T09:44Z', '2026-11-23T09:45Z'), "     // in the last hour
      "(3, 'failed', '2026-11-23T09:28Z', '2026-11-23T09:29Z'), "     // an hour and a minute ago
      "(4, 'succeeded', '2026-11-23T10:09Z', '2026-11-23T10:10Z'), "  // this hour
      "(5, 'succeeded', '2026-11-22T10:59Z', '2026-11-22T11:00Z'), "  // the first hour's first instant
      "(6, 'succeeded', '2026-11-22T10:58Z', '2026-11-22T10:59Z'), "  // before the 24 hours
      "(7, 'succeeded', '2026-11-23T10:30Z', '2026-11-23T10:31Z')");  // after the instant
  sql("INSERT INTO sync_history (entity_type, kind, started_at, finished_at, status) VALUES "
      "('Tickets', 'incremental', '2026-11-23T10:00Z', '2026-11-23T10:01Z', 'failed'), "
      "('Tickets', 'incremental', '2026-11-23T09:00Z', '2026-11-23T09:01Z', 'succeeded')");
  start_pinned();

  const json body = get("/api/status/workers", "Pacific/Auckland");
  const json workers = body["workers"];
  ASSERT_EQ(workers.size(), 3u);
  const json analyzer = workers[0];
  EXPECT_EQ(analyzer["name"], "analyzer");
  EXPECT_EQ(analyzer["inFlight"], 1);
  EXPECT_EQ(analyzer["failuresLastHour"], 1);
  EXPECT_EQ(analyzer["status"], "warn");  // a failure, but something in flight
  const json hours = analyzer["activity24h"];
  ASSERT_EQ(hours.size(), 24u);
  EXPECT_EQ(hours.front(), json::parse(R"({"hour":"2026-11-22T11:00:00+00:00","success":1,"failure":0})"));
  EXPECT_EQ(hours[22], json::parse(R"({"hour":"2026-11-23T09:00:00+00:00","success":0,"failure":2})"));
  EXPECT_EQ(hours.back(), json::parse(R"({"hour":"2026-11-23T10:00:00+00:00","success":1,"failure":0})"));
  for (std::size_t i = 1; i < 22; ++i) EXPECT_EQ(hours[i]["success"].get<int>() + hours[i]["failure"].get<int>(), 0);

  // nothing measured: no status, but the 24 hours all the same, each at zero
  const json unmeasured = workers[1];
  EXPECT_EQ(unmeasured["name"], "remote-management");
  EXPECT_EQ(unmeasured["configured"], false);
  EXPECT_FALSE(unmeasured.contains("status"));
  ASSERT_EQ(unmeasured["activity24h"].size(), 24u);
  for (std::size_t i = 0; i < 24; ++i)
    EXPECT_EQ(unmeasured["activity24h"][i], (json{{"hour", hours[i]["hour"]}, {"success", 0}, {"failure", 0}})) << i;
  const json sync = workers[2];
  EXPECT_EQ(sync["name"], "sync-scheduler");
  EXPECT_EQ(sync["status"], "down");  // a failure and nothing in flight
  EXPECT_EQ(sync["activity24h"].size(), 24u);
  EXPECT_EQ(get("/api/status/workers", "UTC"), body);  // no zone in it

  // Once an execution is recorded, remote management has figures: one succeeded, none failing.
  sql("INSERT INTO rmm_executions (device, script, status, finished_at) VALUES ('pc-1', 'patch', 'succeeded', "
      "'2026-11-23T10:05Z')");
  const json rmm = get("/api/status/workers", "UTC")["workers"][1];
  EXPECT_EQ(rmm["configured"], true);
  EXPECT_EQ(rmm["status"], "ok");
  EXPECT_EQ(rmm["activity24h"].back()["success"], 1);
}

// The derived rules at their edges, where they live (migration 0020).
TEST_F(DashboardTest, DerivedStatusRulesAtTheirEdges) {
  EXPECT_EQ(sql("SELECT string_agg(worker_state(f, i), ',' ORDER BY n) FROM (VALUES (1, 1, 0), (2, 1, 1), (3, 0, 0), "
                "(4, 0, 3)) v(n, f, i)"),
            "down,warn,ok,ok");
  EXPECT_EQ(sql("SELECT string_agg(backup_state(p), ',' ORDER BY p DESC) FROM unnest('{100, 95, 94.999, 80, 79.999, "
                "0}'::numeric[]) p"),
            "ok,ok,warn,warn,down,down");
}

TEST_F(DashboardTest, IntegrationHealthShowsRecordedOutcomesAndLeavesDisabledOnesOut) {
  sql("INSERT INTO integration_health (key, last_success_at, last_failure_at, last_error, last_latency_ms, calls, "
      "failures) VALUES "
      "('mfa', '2026-11-23T09:00Z', '2026-11-23T10:00Z', 'Duo answered 503', 20000, 10, 2), "
      "('endpointsec', '2026-11-23T10:00Z', '2026-11-23T09:00Z', 'timeout', 120, 5, 1), "
      "('distributor', '2026-11-23T10:00Z', NULL, NULL, 80, 1, 0), "
      "('mailsec', NULL, '2026-11-23T10:00Z', 'refused', 30, 1, 1)");
  sql("UPDATE integration_settings SET disabled = true WHERE key = 'mailsec'");
  start_pinned({{"INTEGRATIONS_DISABLED", "pax8"}});

  const json items = get("/api/dashboard/integration-health", "UTC")["integrations"];
  std::map<std::string, json> by_key;
  for (const auto& i : items) by_key[i["key"]] = i;
  EXPECT_EQ(items.size(), 11u);  // the 13 seeded, less mailsec (database) and the distributor (environment)
  EXPECT_FALSE(by_key.contains("mailsec"));
  EXPECT_FALSE(by_key.contains("distributor"));
  EXPECT_EQ(by_key["mfa"]["state"], "failing");
  EXPECT_EQ(by_key["mfa"]["lastError"], "Duo answered 503");
  EXPECT_EQ(by_key["mfa"]["lastLatencyMs"], 20000);
  EXPECT_EQ(by_key["endpointsec"]["state"], "ok");  // failed before its last success
  EXPECT_EQ(by_key["psa"]["state"], "unknown");     // no call recorded
  EXPECT_EQ(by_key["psa"]["calls"], 0);
}

TEST_F(DashboardTest, MobileDashboardHasKpisWhatNeedsAttentionAndWorkers) {
  seed_tickets();
  sql("INSERT INTO integration_health (key, last_success_at, last_failure_at, last_error) VALUES "
      "('mfa', '2026-11-23T09:00Z', '2026-11-23T10:00Z', 'Duo answered 503')");
  sql("INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, started_at) VALUES "
      "(1, 3, 'running', '2026-11-23T10:24:59Z'), (1, 4, 'running', '2026-11-23T10:26Z')");  // one stalled
  sql("INSERT INTO sync_history (entity_type, kind, started_at, finished_at, status) VALUES "
      "('Tickets', 'incremental', '2026-11-23T10:00Z', '2026-11-23T10:01Z', 'failed')");
  start_pinned();

  json body = get("/api/mobile/dashboard", "America/Los_Angeles");
  std::map<std::string, json> kpis;
  for (const auto& k : body["kpis"]) kpis[k["key"]] = k;
  EXPECT_EQ(kpis["slaBreaches"]["value"], 2);
  EXPECT_EQ(kpis["slaBreaches"]["tone"], "attention");
  EXPECT_EQ(kpis["openTickets"]["value"], 6);
  EXPECT_EQ(kpis["openedToday"]["value"], 1);             // LA's Monday
  EXPECT_EQ(kpis["backupSuccess"]["configured"], false);  // no backup result was ever recorded
  EXPECT_TRUE(kpis["backupSuccess"]["value"].is_null());
  std::vector<std::string> kinds;
  for (const auto& a : body["needsAttention"]) kinds.push_back(a["kind"]);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"slaBreach", "slaBreach", "stalledWorkflow", "integrationFailing", "worker"}));
  EXPECT_EQ(body["needsAttention"][0]["ticketId"], 6);  // the most overdue first
  EXPECT_EQ(body["needsAttention"][2]["ticketId"], 3);
  EXPECT_EQ(body["needsAttention"][4]["name"], "sync-scheduler");
  EXPECT_EQ(body["needsAttention"][4]["status"], "down");
  ASSERT_EQ(body["workers"].size(), 3u);
  EXPECT_FALSE(body["workers"][0].contains("activity24h"));

  // Backups: 19 of 20 in the last 24 hours is 95 %, ok; a failure 25 hours ago is outside.
  sql("INSERT INTO backup_results (device, status, finished_at) SELECT 'srv-' || n, 'succeeded', "
      "'2026-11-23T05:00Z' FROM generate_series(1, 19) n");
  sql("INSERT INTO backup_results (device, job_name, status, finished_at, error) VALUES "
      "('srv-20', 'nightly', 'failed', '2026-11-23T04:00Z', 'disk full'), "
      "('srv-21', 'nightly', 'failed', '2026-11-22T09:30Z', 'old')");
  body = get("/api/mobile/dashboard", "UTC");
  for (const auto& k : body["kpis"]) kpis[k["key"]] = k;
  EXPECT_EQ(kpis["backupSuccess"]["percent"], 95.0);
  EXPECT_EQ(kpis["backupSuccess"]["status"], "ok");
  EXPECT_EQ(kpis["backupSuccess"]["tone"], "normal");
  EXPECT_EQ(body["needsAttention"][2]["kind"], "backupFailed");
  EXPECT_EQ(body["needsAttention"][2]["device"], "srv-20");
  // One more failure: 19 of 21, 90.5 %: warn, and the tone asks for attention.
  sql("INSERT INTO backup_results (device, status, finished_at) VALUES ('srv-22', 'failed', '2026-11-23T06:00Z')");
  const json after = get("/api/mobile/dashboard", "UTC")["kpis"];
  for (const auto& k : after) kpis[k["key"]] = k;
  EXPECT_EQ(kpis["backupSuccess"]["status"], "warn");
  EXPECT_EQ(kpis["backupSuccess"]["tone"], "attention");
}

TEST_F(DashboardTest, MobileFinanceSaysNotConfiguredWithoutAnAccountingConnection) {
  start_pinned();
  EXPECT_EQ(get("/api/mobile/finance", "UTC"), json::parse(R"({"configured":false})"));
  sql("INSERT INTO accounting_connection (connection_id, tenant_id, tenant_name, base_currency, access_token, "
      "refresh_token, access_expires_at) VALUES (gen_random_uuid(), gen_random_uuid(), 'Demo', 'NZD', 'x', 'y', "
      "now())");
  sql("INSERT INTO accounting_payments (id, tenant_id, payment_type, payment_date, amount, currency_rate) "
      "SELECT gen_random_uuid(), tenant_id, 'ACCRECPAYMENT', '2026-11-23', 100, 1 FROM accounting_connection");
  const json finance = get("/api/mobile/finance", "Pacific/Auckland");
  EXPECT_EQ(finance["configured"], true);
  EXPECT_EQ(finance["today"], "2026-11-23");
  EXPECT_EQ(finance["paymentsMonthToDate"], 100.0);
  EXPECT_EQ(finance["aging"].size(), 6u);
  EXPECT_EQ(finance["revenue"].size(), 12u);
  EXPECT_EQ(finance["revenue"].back()["month"], "2026-11");
}

// Finance at 20:00 UTC on 30 November, 09:00 on 1 December in Auckland: "today" and the month to
// date are the user's (rule 1), the 12 months of revenue stay on the UTC instant's month (rule 4).
TEST_F(DashboardTest, MobileFinanceMonthToDateIsTheUsersRevenueMonthsAreUtc) {
  start_pinned({{"DASHBOARD_NOW", "2026-11-30T20:00:00Z"}});
  sql("INSERT INTO accounting_connection (connection_id, tenant_id, tenant_name, base_currency, access_token, "
      "refresh_token, access_expires_at) VALUES (gen_random_uuid(), gen_random_uuid(), 'Demo', 'NZD', 'x', 'y', "
      "now())");
  sql("INSERT INTO accounting_payments (id, tenant_id, payment_type, payment_date, amount) "
      "SELECT gen_random_uuid(), tenant_id, 'ACCRECPAYMENT', '2026-11-30', 40 FROM accounting_connection");
  const json auckland = get("/api/mobile/finance", "Pacific/Auckland");
  EXPECT_EQ(auckland["today"], "2026-12-01");
  EXPECT_EQ(auckland["paymentsMonthToDate"], 0.0);  // November's payment is last month there
  EXPECT_EQ(auckland["paymentsYearToDate"], 40.0);
  EXPECT_EQ(auckland["revenue"].back()["month"], "2026-11");
  EXPECT_EQ(auckland["revenue"].front()["month"], "2025-12");
  const json utc = get("/api/mobile/finance", "UTC");
  EXPECT_EQ(utc["today"], "2026-11-30");
  EXPECT_EQ(utc["paymentsMonthToDate"], 40.0);
  EXPECT_EQ(utc["revenue"], auckland["revenue"]);
}

}  // namespace

// The PSA sync against the Autotask fake (issue 17): the full sync equals the fake's data, an
// incremental sync picks up a change and a deletion, every reconciliation rule and count, one
// run at a time across two instances, the picklists, the webhook intake fetching what the copy
// lacks, and the PSA's integration-health row that every request moves (issue 31).
#include "core/testing/manual_clock.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/api/sync.hpp"
#include "ops_console/sync_history.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/sandbox.hpp"

#include <future>
#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

struct PsaSyncTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string admin;

  std::map<std::string, std::string> psa_env() {
    return {{"PSA_BASE_URL", fakes.url() + "/autotask/atservicesrest"},  // without the slash: accepted
            {"PSA_USERNAME", "api@msp.example"},
            {"PSA_SECRET", "sandbox-secret"},
            {"PSA_INTEGRATION_CODE", "sandbox-integration"},
            {"PSA_SYNC_INTERVAL_MINUTES", "0"}};
  }
  void start_psa() {
    add_user("boss@msp.example", "correct horse battery", true);
    start(psa_env());
    admin = sign_in("boss@msp.example", "correct horse battery");
  }
  // A small MSP: enough for paging (500 a page) without a slow test.
  void seed(int tickets = 1200) {
    sandbox::autotask::SeedCounts counts;
    counts.companies = 12;
    counts.contacts = 40;
    counts.resources = 6;
    counts.tickets = tickets;
    counts.time_entries = 300;
    counts.projects = 4;
    counts.tasks = 12;
    counts.contracts = 8;
    counts.configuration_items = 30;
    counts.ticket_tags = 80;
    fakes.autotask().seed(counts);
  }
  bool no_run_under_way() {
    return sql("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
               "WHERE l.locktype = 'advisory' AND d.datname = current_database()") == "0";
  }
  // Starts a sync and waits for its end: the run holds its advisory lock from before the 202
  // until it has finished, so no advisory lock in this database means no run.
  void sync() {
    const auto res = call("POST", "/api/sync/incremental");
    ASSERT_EQ(res.status, 202u) << res.body;
    ASSERT_TRUE(core::testing::eventually([&] { return no_run_under_way(); }, std::chrono::seconds(60)));
    EXPECT_EQ(sql("SELECT count(*) FROM sync_history WHERE status = 'running'"), "0");
  }
  // The PSA's row of the integration-health board (null while it has none).
  json psa_health() {
    const auto res = call("GET", "/api/dashboard/integration-health", nullptr, admin);
    EXPECT_EQ(res.status, 200u) << res.body;
    const json board = res.json();
    for (const auto& row : board["integrations"])
      if (row["key"] == "psa") return row;
    return nullptr;
  }
  std::set<std::string> fake_ids(const std::string& entity) {
    std::set<std::string> ids;
    for (const auto& row : fakes.autotask().rows(entity)) ids.insert(std::to_string(row["id"].get<std::int64_t>()));
    return ids;
  }
  // The tickets a sync started at `at` copies: the 90 days of activity before it, and every ticket
  // not complete whatever its age.
  std::set<std::string> synced_ticket_ids(core::Timestamp at) {
    std::set<std::string> expected;
    const auto window = at - std::chrono::days(90);
    for (const auto& t : fakes.autotask().rows("Tickets"))
      if (t["status"] != 5 || *core::parse_rfc3339(t["lastActivityDate"].get<std::string>()) >= window)
        expected.insert(std::to_string(t["id"].get<std::int64_t>()));
    return expected;
  }
  // The sync ran between `before` and `after`, and its window starts at its own instant less 90
  // days: every ticket inside the window for both instants is copied, none outside it for both.
  void expect_the_window_copied(const std::set<std::string>& copied, core::Timestamp before, core::Timestamp after) {
    for (const auto& id : synced_ticket_ids(after)) EXPECT_TRUE(copied.contains(id)) << id << " not copied";
    const auto possible = synced_ticket_ids(before);
    for (const auto& id : copied) EXPECT_TRUE(possible.contains(id)) << id << " copied, outside the window";
  }
  std::set<std::string> copy_ids(const std::string& table) {
    std::set<std::string> ids;
    const std::string list = sql("SELECT string_agg(id::text, ',') FROM " + table + " WHERE deleted_at IS NULL");
    for (auto piece : core::split(list, ',')) ids.insert(std::string(piece));
    ids.erase("");
    return ids;
  }
};

}  // namespace

TEST_F(PsaSyncTest, AFullSyncEqualsTheFakesData) {
  seed(1600);
  start_psa();
  const auto before = core::now();
  sync();
  const auto after = core::now();
  for (const auto& [entity, table] :
       std::vector<std::pair<std::string, std::string>>{{"Companies", "companies"},
                                                        {"Contacts", "contacts"},
                                                        {"Resources", "resources"},
                                                        {"TimeEntries", "time_entries"},
                                                        {"Projects", "projects"},
                                                        {"Tasks", "tasks"},
                                                        {"Contracts", "contracts"},
                                                        {"ConfigurationItems", "configuration_items"},
                                                        {"TagGroups", "tag_groups"},
                                                        {"Tags", "tags"},
                                                        {"TicketTagAssociations", "ticket_tags"}})
    EXPECT_EQ(copy_ids(table), fake_ids(entity)) << entity;

  const std::set<std::string> copied = copy_ids("tickets");
  expect_the_window_copied(copied, before, after);
  EXPECT_LT(copied.size(), fakes.autotask().rows("Tickets").size());  // the window left some out

  // Field by field, for one ticket and one contact.
  const json ticket = fakes.autotask().rows("Tickets").back();
  const std::string id = std::to_string(ticket["id"].get<std::int64_t>());
  EXPECT_EQ(sql("SELECT title FROM tickets WHERE id = " + id), ticket["title"].get<std::string>());
  EXPECT_EQ(sql("SELECT status FROM tickets WHERE id = " + id), std::to_string(ticket["status"].get<int>()));
  EXPECT_EQ(sql("SELECT company_id FROM tickets WHERE id = " + id), std::to_string(ticket["companyID"].get<long>()));
  const json contact = fakes.autotask().rows("Contacts").front();
  EXPECT_EQ(sql("SELECT email_address || ' ' || is_active FROM contacts WHERE id = " +
                std::to_string(contact["id"].get<long>())),
            contact["emailAddress"].get<std::string>() + " " + (contact["isActive"] == 1 ? "true" : "false"));

  // The picklists came too, and the history says what each run did.
  EXPECT_EQ(sql("SELECT label FROM psa_picklists WHERE entity = 'Tickets' AND field = 'status' AND value = 5"),
            "Complete");
  EXPECT_NE(sql("SELECT count(*) FROM company_classifications"), "0");
  EXPECT_EQ(sql("SELECT kind || ' ' || status || ' ' || (counts->>'fetched') FROM sync_history "
                "WHERE entity_type = 'Tickets' ORDER BY id LIMIT 1"),
            "full succeeded " + std::to_string(copied.size()));
  // A run that wrote 1,000 rows or more analyzed its table (ANALYZE reads every row of a small
  // one: the count is exact); one that wrote fewer left it to autovacuum.
  EXPECT_EQ(sql("SELECT reltuples::bigint FROM pg_class WHERE relname = 'tickets'"), std::to_string(copied.size()));
  EXPECT_EQ(sql("SELECT reltuples::bigint FROM pg_class WHERE relname = 'companies'"), "-1");
  // Never more than 3 calls at once on one endpoint: the fake refused none.
  const json stats = fakes.autotask().stats();
  EXPECT_LE(stats["entities"]["Tickets"]["most_in_flight"].get<int>(), 3);
  EXPECT_EQ(stats["refused_threads"], 0);
}

// Every request of a sync moves the PSA's integration-health row (issue 31).
TEST_F(PsaSyncTest, ASyncShowsThePsaOkOnTheIntegrationHealthBoard) {
  seed(10);
  start_psa();
  EXPECT_EQ(psa_health()["state"], "unknown");
  sync();
  json row;
  EXPECT_TRUE(core::testing::eventually([&] {  // written in the background
    row = psa_health();
    return row["state"] == "ok";
  })) << row;
  EXPECT_GT(row["calls"].get<std::int64_t>(), 0);
  EXPECT_EQ(row["failures"], 0);
  EXPECT_TRUE(row["lastSuccessAt"].is_string()) << row;
  EXPECT_TRUE(row["lastFailureAt"].is_null()) << row;
}

// Credentials the PSA refuses: the sync fails, the PSA's row is failing with the PSA's words (no
// credential in them), and the mobile dashboard lists it among what needs attention.
TEST_F(PsaSyncTest, RefusedCredentialsShowThePsaFailingAndNeedingAttention) {
  constexpr const char* kRefusedSecret = "refused-secret-c27b94";
  seed(10);
  auto env = psa_env();
  env["PSA_SECRET"] = kRefusedSecret;
  add_user("boss@msp.example", "correct horse battery", true);
  start(env);
  admin = sign_in("boss@msp.example", "correct horse battery");
  sync();
  EXPECT_NE(sql("SELECT count(*) FROM sync_history WHERE status = 'failed'"), "0");

  json row;
  EXPECT_TRUE(core::testing::eventually([&] {
    row = psa_health();
    return row["state"] == "failing";
  })) << row;
  EXPECT_GT(row["failures"].get<std::int64_t>(), 0);
  ASSERT_TRUE(row["lastError"].is_string()) << row;
  const std::string error = row["lastError"];
  EXPECT_NE(error.find("HTTP 401"), std::string::npos) << error;
  for (const std::string secret : {kRefusedSecret, "sandbox-secret", "sandbox-integration"})
    EXPECT_EQ(error.find(secret), std::string::npos) << error;

  const auto mobile = call("GET", "/api/mobile/dashboard", nullptr, admin);
  ASSERT_EQ(mobile.status, 200u) << mobile.body;
  json listed;
  const json dashboard = mobile.json();
  for (const auto& entry : dashboard["needsAttention"])
    if (entry["kind"] == "integrationFailing" && entry["key"] == "psa") listed = entry;
  ASSERT_TRUE(listed.is_object()) << mobile.body;
  EXPECT_EQ(listed["lastError"], error);
  EXPECT_EQ(mobile.body.find(kRefusedSecret), std::string::npos);
}

TEST_F(PsaSyncTest, AnIncrementalSyncPicksUpAChangeAndADeletion) {
  seed(600);
  start_psa();
  sync();
  const auto before = sql("SELECT count(*) FROM sync_history");
  const json tickets = fakes.autotask().rows("Tickets");
  const auto open = std::find_if(tickets.begin(), tickets.end(), [](const json& t) { return t["status"] != 5; });
  ASSERT_NE(open, tickets.end());
  const auto changed = (*open)["id"].get<std::int64_t>();
  const auto gone = tickets.back()["id"].get<std::int64_t>();
  ASSERT_NE(changed, gone);
  fakes.autotask().update("Tickets", changed, {{"title", "Changed in the PSA"}, {"status", 5}});
  ASSERT_TRUE(fakes.autotask().remove("Tickets", gone));
  const auto company = fakes.autotask().rows("Companies").back()["id"].get<std::int64_t>();
  fakes.autotask().update("Companies", company, {{"companyName", "Renamed Ltd"}});
  const auto requests_before = fakes.autotask().stats()["requests"].get<long>();

  sync();
  EXPECT_EQ(sql("SELECT title || ' ' || status FROM tickets WHERE id = " + std::to_string(changed)),
            "Changed in the PSA 5");
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM tickets WHERE id = " + std::to_string(gone)), "t");
  EXPECT_EQ(sql("SELECT company_name FROM companies WHERE id = " + std::to_string(company)), "Renamed Ltd");
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history WHERE kind = 'full' AND id > " + before), "0");
  // Incremental: the second run read a few rows, not the whole copy again.
  EXPECT_LT(std::stoi(sql("SELECT counts->>'fetched' FROM sync_history WHERE entity_type = 'Tickets' "
                          "ORDER BY id DESC LIMIT 1")),
            10);
  EXPECT_LT(fakes.autotask().stats()["requests"].get<long>() - requests_before, 40);
}

// A page of the sync and another writer of the same tickets (the webhook intake's group, whose
// order of rows is its plan's) can lock them in opposite orders. PostgreSQL then aborts one to
// break the deadlock; when that is the sync's page, the page is written again
// (core::db::retry_deadlocked) rather than the run's Tickets step failing until the next run.
// Here the other writer holds the later of two changed tickets while the page, in id order, has
// locked the earlier and waits; then it takes the earlier. The service's connections check for a
// deadlock after 2 s and the other writer's after 60, so the page is the one aborted (and aborted
// again should its next attempt lock the earlier ticket first once more).
TEST_F(PsaSyncTest, APageThatDeadlocksWithAnotherWriterIsWrittenOnItsNextAttempt) {
  seed(600);
  sql("ALTER DATABASE " + database.name() + " SET deadlock_timeout = '2s'");
  start_psa();
  sync();
  // Two tickets of the copy (an UPDATE does not wait for a row that the page inserts).
  const auto earlier = std::stoll(sql("SELECT min(id) FROM tickets")),
             later = std::stoll(sql("SELECT max(id) FROM tickets"));
  ASSERT_LT(earlier, later);
  fakes.autotask().update("Tickets", earlier, {{"title", "Earlier, changed in the PSA"}});
  fakes.autotask().update("Tickets", later, {{"title", "Later, changed in the PSA"}});
  const auto deadlocks = [&] {
    return std::stoi(sql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"));
  };
  const int deadlocks_before = deadlocks();

  core::testing::Session other(database.url()), look(database.url());
  other.sql("SET deadlock_timeout = '60s'");
  other.sql("BEGIN");
  other.sql("UPDATE tickets SET title = 'held' WHERE id = " + std::to_string(later));
  const auto res = call("POST", "/api/sync/incremental");
  ASSERT_EQ(res.status, 202u) << res.body;
  ASSERT_TRUE(core::testing::eventually([&] {
    return look.sql(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
               "wait_event_type = 'Lock' AND query LIKE 'INSERT INTO tickets %'") == "1";
  })) << "the page never waited for the other writer";
  // Waits until the page is aborted, then has both tickets.
  other.sql("UPDATE tickets SET title = 'held too' WHERE id = " + std::to_string(earlier));
  other.sql("COMMIT");
  ASSERT_TRUE(core::testing::eventually([&] { return no_run_under_way(); }, std::chrono::seconds(60)));

  // The case this test is about did happen (a backend reports its statistics within seconds).
  EXPECT_TRUE(core::testing::eventually([&] { return deadlocks() > deadlocks_before; }, std::chrono::seconds(20)));
  EXPECT_EQ(sql("SELECT status || ' ' || coalesce(error, '') FROM sync_history WHERE entity_type = 'Tickets' "
                "ORDER BY id DESC LIMIT 1"),
            "succeeded ");
  // The page was written after the other writer's commit: the PSA's titles.
  EXPECT_EQ(sql("SELECT string_agg(title, ' / ' ORDER BY id) FROM tickets WHERE id IN (" + std::to_string(earlier) +
                ", " + std::to_string(later) + ")"),
            "Earlier, changed in the PSA / Later, changed in the PSA");
}

// Kill -9 of the service mid-sync (README, "Reliability under kill -9"): PostgreSQL releases the
// run's lock with the dead session, so the next run is not refused; it closes the row the dead run
// left running as interrupted, and the copy ends equal to the PSA's.
TEST_F(PsaSyncTest, ASyncKilledMidRunIsClosedAsInterruptedAndTheNextRunCompletesTheCopy) {
  seed(200);
  fakes.autotask().set_faults({.latency = std::chrono::seconds(2), .entity = "Tickets"});
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(
      psa_env(),
      [&] {  // the Tickets' query (the picklist step reads the Tickets' fields first, as slowly)
        return fakes.autotask().stats()["entities"]["Tickets"]["in_flight"].get<int>() > 0 &&
               sql("SELECT string_agg(entity_type, ',') FROM sync_history WHERE status = 'running'") == "Tickets";
      },
      [](std::uint16_t port) { EXPECT_EQ(core::testing::http(port, "POST", "/api/sync/incremental").status, 202u); }));
  EXPECT_EQ(sql("SELECT string_agg(entity_type || ' ' || status, ',') FROM sync_history WHERE status = 'running'"),
            "Tickets running");
  fakes.autotask().set_faults({});

  start_psa();
  const auto before = core::now();
  sync();  // started (202), not refused by the dead run's lock; it leaves no row running
  const auto after = core::now();
  EXPECT_EQ(sql("SELECT status || ': ' || error FROM sync_history WHERE entity_type = 'Tickets' ORDER BY id LIMIT 1"),
            "failed: " + std::string(ops_console::kInterrupted));
  EXPECT_EQ(
      sql("SELECT kind || ' ' || status FROM sync_history WHERE entity_type = 'Tickets' ORDER BY id DESC LIMIT 1"),
      "full succeeded");  // the interrupted run set no watermark: the Tickets are read whole again
  expect_the_window_copied(copy_ids("tickets"), before, after);
  EXPECT_EQ(copy_ids("companies"), fake_ids("Companies"));
}

TEST_F(PsaSyncTest, OneSyncRunsAtATimeAcrossInstances) {
  seed(100);
  start_psa();
  const auto env = psa_env();
  core::testing::RunningService other(ops_console::definition(), database.url(),
                                      core::config::Environment(env.begin(), env.end()));
  fakes.autotask().set_faults({.latency = std::chrono::milliseconds(150)});  // a run takes a while
  EXPECT_EQ(call("POST", "/api/sync/incremental").status, 202u);
  EXPECT_EQ(core::testing::http(other.port(), "POST", "/api/sync/incremental").status, 409u);
  EXPECT_EQ(call("POST", "/api/sync/incremental").status, 409u);
  fakes.autotask().set_faults({});
  ASSERT_TRUE(core::testing::eventually([&] { return call("POST", "/api/sync/incremental").status == 202u; },
                                        std::chrono::seconds(60)));
}

// A flood on the public sync route (issue 37, item 3): 48 callers at once on a pool of 4 start one
// run; the others hear 409 without waiting for a connection past the pool's limit, and a signed-in
// user is served meanwhile.
TEST_F(PsaSyncTest, AFloodOnThePublicSyncRouteStartsOneRunAndLeavesThePoolServing) {
  seed(100);
  add_user("boss@msp.example", "correct horse battery", true);
  auto env = psa_env();
  env["DB_POOL_SIZE"] = "4";
  start(env);
  admin = sign_in("boss@msp.example", "correct horse battery");
  const std::string before = sql("SELECT coalesce(max(id), 0) FROM sync_history");
  fakes.autotask().set_faults({.latency = std::chrono::milliseconds(100)});  // the run lasts the flood
  std::vector<std::future<unsigned>> flood;
  for (int i = 0; i < 48; ++i)
    flood.push_back(std::async(std::launch::async, [&] { return call("POST", "/api/sync/incremental").status; }));
  std::map<unsigned, int> statuses;
  for (auto& f : flood) ++statuses[f.get()];
  EXPECT_EQ(statuses[202], 1);
  EXPECT_EQ(statuses[409], 47);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, admin).status, 200u);
  EXPECT_EQ(svc->service().db().stats().acquire_timeouts, 0u);
  fakes.autotask().set_faults({});
  // Between two entities no row is running: the run is over when its advisory lock is released.
  ASSERT_TRUE(core::testing::eventually([&] { return no_run_under_way(); }, std::chrono::seconds(60)));
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history WHERE entity_type = 'Tickets' AND id > " + before), "1");
}

TEST_F(PsaSyncTest, ReconciliationFollowsTheSpecsRuleAndCountsEachOutcome) {
  start_psa();
  const auto add = [&](std::int64_t status, const std::string& title) {
    return fakes.autotask().add("Tickets", {{"title", title}, {"status", status}, {"companyID", 1}})["id"];
  };
  const auto still_open = add(1, "still open"), now_complete = add(5, "closed meanwhile"), errs = add(1, "errs");
  // The copy: stale tickets (synced 8 days ago), and the ones the rule leaves alone.
  sql("INSERT INTO tickets (id, title, status, synced_at) VALUES "
      "(" +
      errs.dump() +
      ", 'errs', 1, now() - interval '10 days'),"  // the oldest: reconciled first
      "(" +
      still_open.dump() +
      ", 'old title', 1, now() - interval '8 days'),"
      "(" +
      now_complete.dump() +
      ", 'old title', 8, now() - interval '8 days'),"
      "(424242, 'deleted in the PSA', 1, now() - interval '8 days'),"
      "(515151, 'fresh', 1, now() - interval '6 days'),"
      "(616161, 'complete', 5, now() - interval '30 days')");
  sql("INSERT INTO tickets (id, title, status, synced_at, deleted_at) VALUES "
      "(717171, 'deleted', 1, now() - interval '30 days', now())");
  // The first call for the oldest ticket fails (a 400 is not retried): that ticket is an error.
  fakes.autotask().set_faults({.server_errors = 1, .status = 400, .entity = "Tickets"});

  const auto res = call("POST", "/api/sync/reconcile-tickets");
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json(),
            json({{"scanned", 4}, {"updated", 2}, {"statusFlippedToComplete", 1}, {"softDeleted", 1}, {"errors", 1}}));
  EXPECT_EQ(sql("SELECT title || ' ' || status FROM tickets WHERE id = " + still_open.dump()), "still open 1");
  EXPECT_EQ(sql("SELECT status FROM tickets WHERE id = " + now_complete.dump()), "5");
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM tickets WHERE id = 424242"), "t");
  // the error changed nothing for its ticket; the others were left alone
  EXPECT_EQ(
      sql("SELECT title || ' ' || (synced_at < now() - interval '9 days') FROM tickets WHERE id = " + errs.dump()),
      "errs true");
  EXPECT_EQ(sql("SELECT (synced_at < now() - interval '5 days') FROM tickets WHERE id = 515151"), "t");
  EXPECT_EQ(sql("SELECT status || ' ' || (deleted_at IS NULL) FROM tickets WHERE id = 616161"), "5 true");
  EXPECT_EQ(sql("SELECT kind || ' ' || status FROM sync_history WHERE kind = 'reconcile'"), "reconcile succeeded");
}

TEST_F(PsaSyncTest, ReconciliationTakesAtMost500AndOneAtATime) {
  start_psa();
  sql("INSERT INTO tickets (id, title, status, synced_at) "
      "SELECT 100000 + n, 'gone', 1, now() - interval '8 days' - n * interval '1 second' FROM generate_series(1, 503) "
      "n");
  fakes.autotask().set_faults({.latency = std::chrono::milliseconds(5), .entity = "Tickets"});
  std::future<core::testing::HttpResponse> first =
      std::async(std::launch::async, [&] { return call("POST", "/api/sync/reconcile-tickets"); });
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT count(*) FROM sync_history WHERE kind = 'reconcile'") == "1"; }));
  EXPECT_EQ(call("POST", "/api/sync/reconcile-tickets").status, 409u);
  const auto res = first.get();
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["scanned"], 500);
  EXPECT_EQ(res.json()["softDeleted"], 500);
  // the oldest 500 went; the three most recently synced remain for the next pass
  EXPECT_EQ(sql("SELECT string_agg(id::text, ',' ORDER BY id) FROM tickets WHERE deleted_at IS NULL"),
            "100001,100002,100003");
}

TEST_F(PsaSyncTest, ClassificationsAreListedAndResynced) {
  seed(10);
  start_psa();
  EXPECT_EQ(call("GET", "/api/sync/classifications", nullptr, admin).json(), json::array());
  EXPECT_EQ(call("POST", "/api/sync/classifications").status, 401u);
  const auto synced = call("POST", "/api/sync/classifications", nullptr, admin);
  ASSERT_EQ(synced.status, 200u) << synced.body;
  ASSERT_GT(synced.json().size(), 0u);
  EXPECT_TRUE(synced.json()[0].contains("label"));
  EXPECT_EQ(call("GET", "/api/sync/classifications", nullptr, admin).json(), synced.json());

  fakes.autotask().set_faults({.server_errors = 1, .status = 401});
  const auto failed = call("POST", "/api/sync/classifications", nullptr, admin);
  EXPECT_EQ(failed.status, 502u);
  EXPECT_EQ(failed.body.find("sandbox-secret"), std::string::npos);  // no credential in the problem
}

TEST_F(PsaSyncTest, AWebhookForARowTheCopyLacksFetchesIt) {
  seed(10);
  start_psa();
  const json ticket = fakes.autotask().rows("Tickets").front();
  const json payload{{"Action", "Update"},          {"Guid", "g"},
                     {"EntityType", "Ticket"},      {"Id", ticket["id"]},
                     {"Fields", {{"Status", "8"}}}, {"EventTime", "2026-11-20T10:00:00Z"},
                     {"SequenceNumber", 1}};
  const auto res = core::testing::http(svc->port(), "POST", "/api/webhooks/psa", payload.dump());
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(sql("SELECT title FROM tickets WHERE id = " + ticket["id"].dump()),
            ticket["title"].get<std::string>());  // the whole row
}

TEST_F(PsaSyncTest, TheFakesSignedCalloutsAreTaken) {
  seed(10);
  auto env = psa_env();
  env["PSA_WEBHOOK_SECRET"] = "a-webhook-secret";
  add_user("boss@msp.example", "correct horse battery", true);
  start(env);
  sql("INSERT INTO tickets (id, title, status) VALUES (5, 'x', 1)");
  sandbox::AutotaskCallout callout{.url = "http://127.0.0.1:" + std::to_string(svc->port()) + "/api/webhooks/psa",
                                   .secret = "a-webhook-secret",
                                   .entity_type = "Ticket",
                                   .id = 5,
                                   .action = "Update",
                                   .fields = json{{"Status", "8"}}};
  core::testing::IoThreads io;
  const auto sent = io.run(fakes.autotask().send_webhook(callout));
  EXPECT_EQ(sent.status, 200) << sent.body;
  EXPECT_EQ(sql("SELECT status FROM tickets WHERE id = 5"), "8");
}

// The schedule's run: nothing while the PSA integration is switched off, a sync otherwise.
TEST_F(PsaSyncTest, TheScheduledRunSkipsWhileTheIntegrationIsOff) {
  seed(10);
  start_psa();
  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  ops_console::integrations::Registry registry(pool, {.env_disabled = {"psa"}});
  const auto env = psa_env();
  core::config::Reader reader(core::config::Environment(env.begin(), env.end()));
  const auto settings = ops_console::psa::read_psa_settings(reader);
  auto sync = std::make_shared<ops_console::psa::PsaSync>(
      pool, io.executor(),
      std::make_shared<ops_console::psa::AutotaskClient>(io.executor(), settings,
                                                         ops_console::integrations::Health(pool, io.executor())),
      settings);
  io.run(ops_console::scheduled_psa_sync(registry, *sync));
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history"), "0");

  ops_console::integrations::Registry enabled(pool, {});
  io.run(ops_console::scheduled_psa_sync(enabled, *sync));
  EXPECT_NE(sql("SELECT count(*) FROM sync_history WHERE entity_type = 'Tickets' AND status = 'succeeded'"), "0");
}

// The service's own PSA schedule (PSA_SYNC_INTERVAL_MINUTES) on a hand-moved clock (issue 31, part
// 6): while an administrator has switched the PSA integration off, six rounds of the schedule come
// and go without a sync_history row or a call to the PSA; switched on again, the next round's end
// runs the sync, and not a minute before.
TEST_F(PsaSyncTest, TheScheduleRunsNothingWhileTheIntegrationIsSwitchedOff) {
  seed(10);
  auto clock = std::make_shared<core::testing::ManualClock>();
  auto env = psa_env();
  env["PSA_SYNC_INTERVAL_MINUTES"] = "5";
  add_user("boss@msp.example", "correct horse battery", true);
  start(env, clock);
  admin = sign_in("boss@msp.example", "correct horse battery");
  const auto switch_psa = [&](bool disabled) {
    const auto res = call("PATCH", "/api/admin/integrations", {{"key", "psa"}, {"disabled", disabled}}, admin);
    EXPECT_EQ(res.status, 200u) << res.body;
  };
  const auto psa_requests = [&] { return fakes.autotask().stats()["requests"].get<long>(); };

  switch_psa(true);
  const long before = psa_requests();
  clock->advance(std::chrono::minutes(30));
  EXPECT_EQ(clock->rounds("psa sync"), 6);                   // the schedule came round six times ...
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history"), "0");  // ... and ran nothing
  EXPECT_EQ(psa_requests(), before);

  switch_psa(false);
  clock->advance(std::chrono::minutes(4));
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history"), "0");  // the round ends at 35 minutes
  clock->advance(std::chrono::minutes(1));                   // returns once the run is over
  EXPECT_EQ(clock->rounds("psa sync"), 7);
  EXPECT_EQ(sql("SELECT count(*) FROM sync_history WHERE status <> 'succeeded'"), "0");
  EXPECT_NE(sql("SELECT count(*) FROM sync_history WHERE entity_type = 'Tickets' AND status = 'succeeded'"), "0");
  EXPECT_GT(psa_requests(), before);
}

// Autotask's 429 (and 5xx) are retried after the Retry-After it asks for; the caller sees none.
TEST_F(PsaSyncTest, ThrottledCallsAreRetried) {
  seed(10);
  start_psa();
  fakes.autotask().set_faults({.throttle = 2, .retry_after = 1});
  const auto synced = call("POST", "/api/sync/classifications", nullptr, admin);
  EXPECT_EQ(synced.status, 200u) << synced.body;
  EXPECT_GE(fakes.autotask().stats()["requests"].get<long>(), 4);  // two refused, then both calls
}

// The PSA's credentials and the webhook secret reach no log line (at debug level), no stored
// error (the integration-health row's included) and no problem: through a sync, retried 429s and 5xx, refused credentials, a refused
// signature, a callout whose row is fetched from the PSA and one whose fetch fails.
TEST_F(PsaSyncTest, TheCredentialsReachNoLogLineStoredErrorOrProblem) {
  constexpr const char* kWebhookSecret = "webhook-secret-7f3a9c";
  constexpr const char* kWrongSecret = "refused-secret-51d0e2";
  seed(30);
  core::testing::CapturedLog captured;
  auto env = psa_env();
  env["LOG_LEVEL"] = "debug";
  env["PSA_WEBHOOK_SECRET"] = kWebhookSecret;
  add_user("boss@msp.example", "correct horse battery", true);
  start(env);
  admin = sign_in("boss@msp.example", "correct horse battery");

  fakes.autotask().set_faults({.throttle = 1, .retry_after = 1, .server_errors = 1, .status = 503});
  sync();
  fakes.autotask().set_faults({.server_errors = 50, .status = 500});  // Autotask's 500: not retried
  const auto failed = call("POST", "/api/sync/classifications", nullptr, admin);
  EXPECT_EQ(failed.status, 502u) << failed.body;
  fakes.autotask().set_faults({});

  const auto ticket = fakes.autotask().rows("Tickets").back()["id"].get<std::int64_t>();
  sql("DELETE FROM tickets WHERE id = " + std::to_string(ticket));  // the callout fetches it
  const std::string body =
      json{{"Action", "Update"},          {"Guid", "g"},        {"EntityType", "Ticket"}, {"Id", ticket},
           {"Fields", {{"Status", "8"}}}, {"SequenceNumber", 1}}
          .dump();
  const auto refused = core::testing::http(svc->port(), "POST", "/api/webhooks/psa", body,
                                           {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64("other", body)}});
  EXPECT_EQ(refused.status, 401u);
  const auto fetched =
      core::testing::http(svc->port(), "POST", "/api/webhooks/psa", body,
                          {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(kWebhookSecret, body)}});
  EXPECT_EQ(fetched.status, 200u) << fetched.body;
  // The PSA fails while a callout needs it: the 502 and its log line.
  sql("DELETE FROM tickets WHERE id = " + std::to_string(ticket));
  json later = json::parse(body);
  later["SequenceNumber"] = 2;
  const std::string later_body = later.dump();
  fakes.autotask().set_faults({.server_errors = 50, .status = 500});
  const auto unfetched =
      core::testing::http(svc->port(), "POST", "/api/webhooks/psa", later_body,
                          {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(kWebhookSecret, later_body)}});
  EXPECT_EQ(unfetched.status, 502u) << unfetched.body;
  fakes.autotask().set_faults({});

  env["PSA_SECRET"] = kWrongSecret;  // a second instance whose secret the PSA refuses
  core::testing::RunningService refusing(ops_console::definition(), database.url(),
                                         core::config::Environment(env.begin(), env.end()));
  const auto unauthorised = core::testing::http(refusing.port(), "POST", "/api/sync/classifications", "",
                                                {{"Cookie", "ops_session=" + admin}});
  EXPECT_EQ(unauthorised.status, 502u) << unauthorised.body;
  svc.reset();
  const std::string logged = captured.text();

  EXPECT_NE(logged.find("psa webhook refused"), std::string::npos);  // the capture saw the service
  EXPECT_NE(logged.find("psa webhook failed"), std::string::npos);
  const std::string stored = sql("SELECT coalesce(string_agg(error, ' '), '') FROM sync_history") + " " +
                             sql("SELECT coalesce(string_agg(error_message, ' '), '') FROM webhook_events") + " " +
                             sql("SELECT coalesce(string_agg(last_error, ' '), '') FROM integration_health");
  for (const std::string secret : {"sandbox-secret", "sandbox-integration", kWebhookSecret, kWrongSecret}) {
    EXPECT_EQ(logged.find(secret), std::string::npos) << secret << " in the log";
    EXPECT_EQ(stored.find(secret), std::string::npos) << secret << " in a stored error";
    for (const auto* answer : {&failed, &refused, &unfetched, &unauthorised})
      EXPECT_EQ(answer->body.find(secret), std::string::npos) << secret << " in " << answer->body;
  }
}

// The PSA webhook intake and its log (issue 17): the signature, duplicates and retries, every
// entity type, malformed payloads and failures kept with their error, and the log's views.
#include "core/util/digest.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include <chrono>
#include <future>
#include <optional>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

constexpr const char* kGuid = "3f1d1c0e-1111-4a4a-9b9b-000000000001";  // the webhook's, on every callout
constexpr const char* kSecret = "webhook-secret-of-some-length";

json callout(const std::string& entity, std::int64_t id, const std::string& action, json fields, int sequence) {
  return {{"Action", action},
          {"Guid", kGuid},
          {"EntityType", entity},
          {"Id", id},
          {"Fields", std::move(fields)},
          {"EventTime", "2026-11-20T10:00:0" + std::to_string(sequence % 10) + "Z"},
          {"SequenceNumber", sequence},
          {"PersonID", 29682885}};
}

struct WebhooksTest : ConsoleTest {
  std::string admin;

  void start_intake(std::map<std::string, std::string> env = {}) {
    add_user("boss@msp.example", "correct horse battery", true);
    start(std::move(env));
    admin = sign_in("boss@msp.example", "correct horse battery");
  }
  core::testing::HttpResponse post(const std::string& body, std::map<std::string, std::string> headers = {}) {
    return core::testing::http(svc->port(), "POST", "/api/webhooks/psa", body, headers);
  }
  core::testing::HttpResponse post(const json& payload) { return post(payload.dump()); }
  json get(const std::string& path) {
    const auto res = call("GET", path, nullptr, admin);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  void add_ticket(std::int64_t id, int status) {
    sql("INSERT INTO tickets (id, title, status, synced_at) VALUES (" + std::to_string(id) + ", 'Printer', " +
        std::to_string(status) + ", now() - interval '1 day')");
  }
  std::future<core::testing::HttpResponse> send(const json& payload) {
    return std::async(std::launch::async, [this, body = payload.dump()] { return post(body); });
  }

  // Tickets held in SHARE mode by a transaction of another connection: an UPDATE of a ticket (a
  // group's statement) waits until release_tickets(), and the callouts sent meanwhile queue.
  std::optional<core::testing::Session> holder;
  void hold_tickets() {
    holder.emplace(database.url());
    holder->sql("BEGIN; LOCK TABLE tickets IN SHARE MODE");
  }
  void release_tickets() { holder->sql("COMMIT"); }
  // Until a statement waits for a lock.
  void wait_for_a_waiter() {
    ASSERT_TRUE(core::testing::eventually([&] {
      return sql("SELECT count(*) FROM pg_locks WHERE NOT granted") != "0";
    })) << "the first group did not wait";
  }
};

}  // namespace

TEST_F(WebhooksTest, WithASecretOnlyASignedBodyIsTaken) {
  start_intake({{"PSA_WEBHOOK_SECRET", kSecret}});
  add_ticket(100, 1);
  const std::string body = callout("Ticket", 100, "Update", {{"Status", "8"}}, 1).dump();

  EXPECT_EQ(post(body).status, 401u);
  EXPECT_EQ(post(body, {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64("another secret", body)}}).status, 401u);
  EXPECT_EQ(post(body + " ", {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(kSecret, body)}}).status, 401u);
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events"), "0");  // nothing stored
  EXPECT_EQ(sql("SELECT status FROM tickets"), "1");

  const auto signed_base64 = post(body, {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_base64(kSecret, body)}});
  EXPECT_EQ(signed_base64.status, 200u) << signed_base64.body;
  EXPECT_EQ(sql("SELECT status FROM tickets"), "8");

  const std::string next = callout("Ticket", 100, "Update", {{"Status", "7"}}, 2).dump();
  const auto signed_hex = post(next, {{"X-Hook-Signature", "sha1=" + core::hmac_sha1_hex(kSecret, next)}});
  EXPECT_EQ(signed_hex.status, 200u) << signed_hex.body;  // hex is accepted too
  EXPECT_EQ(sql("SELECT status FROM tickets"), "7");
}

TEST_F(WebhooksTest, WithoutASecretNoSignatureIsAsked) {
  start_intake();
  add_ticket(100, 1);
  EXPECT_EQ(post(callout("Ticket", 100, "Update", {{"Status", "8"}}, 1)).status, 200u);
  EXPECT_EQ(sql("SELECT status FROM tickets"), "8");
}

// Autotask's Guid is the webhook's: a retried callout repeats everything and is a duplicate, a
// later change of the same ticket through the same webhook is a new event.
TEST_F(WebhooksTest, ARetriedCalloutIsADuplicateAndALaterChangeANewEvent) {
  start_intake();
  add_ticket(100, 1);
  const json first = callout("Ticket", 100, "Update", {{"Status", "8"}, {"Title", "Printer on fire"}}, 1);
  const auto processed = post(first);
  ASSERT_EQ(processed.status, 200u) << processed.body;
  EXPECT_EQ(processed.json()["status"], "processed");
  EXPECT_EQ(sql("SELECT status || ' ' || title FROM tickets"), "8 Printer on fire");

  sql("UPDATE tickets SET status = 1");  // were the retry applied again, this would change back
  const auto retried = post(first);
  EXPECT_EQ(retried.status, 200u);
  EXPECT_EQ(retried.json()["status"], "duplicate");
  EXPECT_EQ(retried.json()["event_id"], processed.json()["event_id"]);
  EXPECT_EQ(sql("SELECT status FROM tickets"), "1");
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events"), "1");

  const auto later = post(callout("Ticket", 100, "Update", {{"Status", "5"}}, 2));
  EXPECT_EQ(later.json()["status"], "processed");
  EXPECT_NE(later.json()["event_id"], processed.json()["event_id"]);
  EXPECT_EQ(sql("SELECT status FROM tickets"), "5");
  EXPECT_EQ(sql("SELECT count(DISTINCT guid) || ' ' || count(*) FROM webhook_events"), "1 2");
}

// Callouts that arrive while a group is being written go together in the next group (one
// statement, one commit: their log rows share the transaction's time). Held here by a lock on the
// tickets: the first callout waits on it alone while the others queue behind it. In a group, two
// changes of one ticket both land, and a callout retried while its first copy waits is a duplicate.
TEST_F(WebhooksTest, CalloutsArrivingTogetherAreWrittenInOneGroupAndNoneIsLost) {
  start_intake();
  constexpr int kTickets = 30;
  for (int i = 0; i < kTickets; ++i) add_ticket(200 + i, 1);
  hold_tickets();
  auto first = send(callout("Ticket", 200, "Update", {{"Title", "Held"}}, 1000));
  wait_for_a_waiter();

  std::vector<std::future<core::testing::HttpResponse>> status, priority, retried;
  for (int i = 0; i < kTickets; ++i) {
    status.push_back(send(callout("Ticket", 200 + i, "Update", {{"Status", "8"}}, 2 * i + 1)));
    priority.push_back(send(callout("Ticket", 200 + i, "Update", {{"Priority", "3"}}, 2 * i + 2)));
    retried.push_back(send(callout("Ticket", 200 + i, "Update", {{"Status", "8"}}, 2 * i + 1)));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the callouts reach the queue
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events"), "0");   // none answered before its commit
  release_tickets();

  EXPECT_EQ(first.get().status, 200u);
  std::map<std::string, int> answers;
  for (auto* sent : {&status, &priority, &retried})
    for (auto& f : *sent) {
      const auto res = f.get();
      ASSERT_EQ(res.status, 200u) << res.body;
      ++answers[res.json()["status"].get<std::string>()];
    }
  EXPECT_EQ(answers["processed"], 2 * kTickets);
  EXPECT_EQ(answers["duplicate"], kTickets);  // one of each pair of copies
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events WHERE status = 'processed'"), std::to_string(2 * kTickets + 1));
  EXPECT_EQ(sql("SELECT count(*) FROM tickets WHERE status = 8 AND priority = 3"), std::to_string(kTickets));
  EXPECT_EQ(sql("SELECT title FROM tickets WHERE id = 200"), "Held");
  // Written in groups: far fewer commits than callouts.
  EXPECT_LT(std::stoi(sql("SELECT count(DISTINCT received_at) FROM webhook_events")), 10);
}

// A group holding callouts of two entity types is a statement per entity in one transaction (a
// group of one entity is a single statement): both are written, or neither.
TEST_F(WebhooksTest, CalloutsOfTwoEntityTypesInOneGroupAreWrittenInOneTransaction) {
  start_intake();
  add_ticket(300, 1);
  add_ticket(301, 1);
  sql("INSERT INTO companies (id, company_name) VALUES (7, 'old')");
  hold_tickets();  // the first group waits; the next two callouts queue behind it
  auto first = send(callout("Ticket", 300, "Update", {{"Title", "Held"}}, 1));
  wait_for_a_waiter();
  auto company = send(callout("Company", 7, "Update", {{"CompanyName", "Contoso Ltd"}}, 2));
  auto ticket = send(callout("Ticket", 301, "Update", {{"Status", "8"}}, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // both reach the queue
  release_tickets();

  EXPECT_EQ(first.get().status, 200u);
  EXPECT_EQ(company.get().status, 200u);
  EXPECT_EQ(ticket.get().status, 200u);
  EXPECT_EQ(sql("SELECT company_name FROM companies WHERE id = 7"), "Contoso Ltd");
  EXPECT_EQ(sql("SELECT status FROM tickets WHERE id = 301"), "8");
  // now() is the transaction's start: the two were logged in one transaction, after the first's
  EXPECT_EQ(sql("SELECT count(DISTINCT received_at) FROM webhook_events WHERE entity_id IN (7, 301)"), "1");
  EXPECT_EQ(sql("SELECT count(DISTINCT received_at) FROM webhook_events"), "2");
}

TEST_F(WebhooksTest, EveryEntityTypeIsUpdatedAndSoftDeleted) {
  start_intake();
  struct Case {
    std::string entity, table, field, column, value;
  };
  const std::vector<Case> cases{
      {"Company", "companies", "CompanyName", "company_name", "Contoso Ltd"},
      {"Ticket", "tickets", "Title", "title", "VPN down"},
      {"Task", "tasks", "Title", "title", "Migrate mailboxes"},
      {"Project", "projects", "ProjectName", "project_name", "Office move"},
      {"TimeEntry", "time_entries", "SummaryNotes", "summary_notes", "Replaced toner"},
      {"Contact", "contacts", "EmailAddress", "email_address", "ann@contoso.example"},
      {"Contract", "contracts", "ContractName", "contract_name", "Managed services 2027"},
      {"ConfigurationItem", "configuration_items", "SerialNumber", "serial_number", "SN-0042"},
  };
  int sequence = 0;
  for (const auto& c : cases) {
    if (c.table == "companies")
      sql("INSERT INTO companies (id, company_name) VALUES (7, 'old')");
    else
      sql("INSERT INTO " + c.table + " (id) VALUES (7)");
    const auto updated = post(callout(c.entity, 7, "Update", {{c.field, c.value}}, ++sequence));
    EXPECT_EQ(updated.status, 200u) << c.entity << ": " << updated.body;
    EXPECT_EQ(sql("SELECT " + c.column + " FROM " + c.table + " WHERE id = 7"), c.value) << c.entity;

    const auto deleted = post(callout(c.entity, 7, "Delete", json::object(), ++sequence));
    EXPECT_EQ(deleted.status, 200u) << c.entity << ": " << deleted.body;
    EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM " + c.table + " WHERE id = 7"), "t") << c.entity;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events WHERE status = 'processed'"), "16");
  // the log spells each type one way, whatever the payload said
  EXPECT_EQ(sql("SELECT count(DISTINCT entity_type) FROM webhook_events"), "8");
}

TEST_F(WebhooksTest, FieldsAreStringsAndBlankMeansEmpty) {
  start_intake();
  add_ticket(100, 1);
  const auto res = post(callout(
      "Ticket", 100, "Update",
      {{"Priority", "2"}, {"DueDateTime", "2026-12-01T09:30:00Z"}, {"CompletedDate", ""}, {"NotAField", "x"}}, 1));
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(sql("SELECT priority || ' ' || to_char(due_date_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' ' || "
                "(completed_date IS NULL) FROM tickets"),
            "2 2026-12-01 09:30 true");
}

TEST_F(WebhooksTest, AMalformedPayloadIsA400AndAFailedLogRowOnly) {
  start_intake();
  add_ticket(100, 1);
  const auto not_json = post(std::string("{\"Action\": "));
  EXPECT_EQ(not_json.status, 400u);
  EXPECT_EQ(not_json.header("content-type"), "application/problem+json");

  json no_action = callout("Ticket", 100, "Update", {{"Status", "8"}}, 1);
  no_action.erase("Action");
  const auto refused = post(no_action);
  EXPECT_EQ(refused.status, 400u);
  EXPECT_EQ(refused.json()["errors"][0]["field"], "Action");

  json bad_id = callout("Ticket", 100, "Update", {{"Status", "8"}}, 2);
  bad_id["Id"] = "abc";
  EXPECT_EQ(post(bad_id).json()["errors"][0]["field"], "Id");

  EXPECT_EQ(sql("SELECT count(*) FROM webhook_events WHERE status = 'failed' AND error_message <> ''"), "3");
  EXPECT_EQ(sql("SELECT status FROM tickets"), "1");  // nothing else written
}

TEST_F(WebhooksTest, AFailureKeepsItsErrorAndARetryCanSucceed) {
  start_intake();  // the PSA is not configured: the intake cannot fetch what the copy lacks
  const json lacking = callout("Ticket", 555, "Update", {{"Status", "8"}}, 1);
  const auto failed = post(lacking);
  EXPECT_EQ(failed.status, 502u) << failed.body;
  EXPECT_EQ(sql("SELECT status || ': ' || error_message FROM webhook_events"),
            "failed: the copy lacks Ticket 555 and the PSA is not configured to fetch it");

  const auto unsupported = post(callout("TicketNote", 9, "Create", {{"Title", "n"}}, 1));
  EXPECT_EQ(unsupported.status, 422u);
  EXPECT_EQ(unsupported.json()["errors"][0]["field"], "EntityType");

  // Autotask retries the first: the copy has the ticket by now, so the retry succeeds in place.
  add_ticket(555, 1);
  const auto retried = post(lacking);
  EXPECT_EQ(retried.status, 200u) << retried.body;
  EXPECT_EQ(retried.json()["status"], "processed");
  EXPECT_EQ(sql("SELECT status FROM tickets WHERE id = 555"), "8");
  EXPECT_EQ(sql("SELECT string_agg(status || ' ' || entity_type, ', ' ORDER BY id) FROM webhook_events"),
            "processed Ticket, failed TicketNote");
}

TEST_F(WebhooksTest, TheLogListsFiltersAndPagesNewestFirst) {
  start_intake();
  add_ticket(100, 1);
  sql("INSERT INTO contacts (id) VALUES (5)");
  for (int i = 1; i <= 5; ++i) post(callout("Ticket", 100, "Update", {{"Status", std::to_string(i)}}, i));
  post(callout("Contact", 5, "Update", {{"FirstName", "Ann"}}, 1));
  post(callout("Ticket", 999, "Update", {{"Status", "8"}}, 1));  // fails: not in the copy

  const json page = get("/api/webhooks/logs?limit=3");
  ASSERT_EQ(page["items"].size(), 3u);
  EXPECT_EQ(page["items"][0]["entity_id"], 999);  // newest first
  EXPECT_EQ(page["items"][0]["status"], "failed");
  EXPECT_FALSE(page["items"][0]["error_message"].is_null());
  const json rest = get("/api/webhooks/logs?limit=3&before=" + std::to_string(page["next_before"].get<long>()));
  EXPECT_EQ(rest["items"].size(), 3u);
  const json last = get("/api/webhooks/logs?limit=3&before=" + std::to_string(rest["next_before"].get<long>()));
  EXPECT_EQ(last["items"].size(), 1u);
  EXPECT_TRUE(last["next_before"].is_null());

  EXPECT_EQ(get("/api/webhooks/logs?entityType=Contact")["items"].size(), 1u);
  EXPECT_EQ(get("/api/webhooks/logs?entityType=contacts")["items"].size(), 1u);  // the REST name reads the same
  EXPECT_EQ(get("/api/webhooks/logs?status=failed")["items"].size(), 1u);
  EXPECT_EQ(get("/api/webhooks/logs?since=2099-01-01T00:00:00Z")["items"].size(), 0u);
  for (const auto* bad : {"status=lost", "since=yesterday", "limit=0", "limit=501", "before=x"})
    EXPECT_EQ(call("GET", std::string("/api/webhooks/logs?") + bad, nullptr, admin).status, 400u) << bad;

  const json stats = get("/api/webhooks/stats");
  EXPECT_EQ(stats["last24h"]["total"], 7);
  EXPECT_EQ(stats["last24h"]["by_status"], json({{"processed", 6}, {"failed", 1}}));
  EXPECT_EQ(stats["last7d"]["by_entity_type"], json({{"Ticket", 6}, {"Contact", 1}}));
  EXPECT_FALSE(stats["last_event_at"].is_null());
}

TEST_F(WebhooksTest, SourceAddressesAreAggregated) {
  start_intake();
  add_ticket(100, 1);
  post(callout("Ticket", 100, "Update", {{"Status", "2"}}, 1).dump(),
       {{"X-Forwarded-For", "203.0.113.5, 10.0.0.1"}, {"User-Agent", "Autotask-Webhooks/1.0"}});
  post(callout("Ticket", 100, "Update", {{"Status", "3"}}, 2).dump(),
       {{"X-Forwarded-For", "203.0.113.5"}, {"User-Agent", "Autotask-Webhooks/1.1"}});
  post(callout("Ticket", 404, "Update", {{"Status", "3"}}, 3).dump(), {{"X-Real-IP", "198.51.100.7"}});
  post(callout("Ticket", 100, "Update", {{"Status", "4"}}, 4).dump());  // the peer: loopback
  sql("UPDATE webhook_events SET received_at = now() - interval '10 days' WHERE source_ip = '127.0.0.1'");

  const json ips = get("/api/webhooks/ips");
  ASSERT_EQ(ips.size(), 2u) << ips;  // the old one is outside the default 168 hours
  EXPECT_EQ(ips[0]["source_ip"], "203.0.113.5");
  EXPECT_EQ(ips[0]["total"], 2);
  EXPECT_EQ(ips[0]["successful"], 2);
  EXPECT_EQ(ips[0]["failed"], 0);
  EXPECT_EQ(ips[0]["entity_types"], json({"Ticket"}));
  EXPECT_EQ(ips[0]["user_agents"], json({"Autotask-Webhooks/1.0", "Autotask-Webhooks/1.1"}));
  EXPECT_EQ(ips[1]["source_ip"], "198.51.100.7");
  EXPECT_EQ(ips[1]["failed"], 1);
  EXPECT_EQ(get("/api/webhooks/ips?hours=300").size(), 3u);
  EXPECT_EQ(get("/api/webhooks/ips?entityType=Contact").size(), 0u);
  EXPECT_EQ(call("GET", "/api/webhooks/ips?hours=0", nullptr, admin).status, 400u);

  // an address longer than 45 characters is cut to 45
  post(callout("Ticket", 100, "Update", {{"Status", "5"}}, 5).dump(), {{"X-Forwarded-For", std::string(60, 'a')}});
  EXPECT_EQ(sql("SELECT max(length(source_ip)) FROM webhook_events"), "45");
}

TEST_F(WebhooksTest, SyncRoutesSayWhenThePsaIsOffOrNotConfigured) {
  start_intake();
  EXPECT_EQ(call("POST", "/api/sync/incremental").status, 503u);
  EXPECT_EQ(call("POST", "/api/sync/reconcile-tickets").status, 503u);
  EXPECT_EQ(call("GET", "/api/sync/classifications", nullptr, admin).status, 503u);
  const auto off = call("PATCH", "/api/admin/integrations", {{"key", "psa"}, {"disabled", true}}, admin);
  ASSERT_EQ(off.status, 200u) << off.body;
  EXPECT_EQ(call("POST", "/api/sync/incremental").status, 403u);  // switched off is said first
  EXPECT_EQ(call("POST", "/api/sync/reconcile-tickets").status, 403u);
  EXPECT_EQ(call("POST", "/api/sync/classifications", nullptr, admin).status, 403u);
}

TEST_F(WebhooksTest, PartlySetPsaCredentialsRefuseStart) {
  EXPECT_THROW(start({{"PSA_BASE_URL", "http://127.0.0.1:9/atservicesrest/"}}), std::exception);
}

// A callout that queues behind a group the database does not answer keeps its own bound
// (docs/guarantees.md: a 503 within DB_REQUEST_TIMEOUT_MS and its grace). The rule is
// core::async::Batcher's, which mail-triage's merged reads share (LogReads there). Four callouts
// at once while the database hangs: one group is sent, and fails once its cancel's grace has
// passed too; by then the others' bound has passed, and they are answered without a statement of
// their own (before, each took a fresh bound in the next group: twice the wait). Nothing was
// acknowledged, so the PSA sends them again; once the database answers, so does the intake.
TEST(WebhookIntake, CalloutsQueuedBehindAHungGroupAnswerWithinTheirOwnBound) {
  core::testing::TempCluster cluster;
  core::testing::sql(cluster.url(), "CREATE DATABASE svc");
  // No trends kept: no background read at start, so the pool's count is the callouts' alone.
  core::testing::RunningService svc(ops_console::definition(), cluster.url("svc"),
                                    {{"DB_REQUEST_TIMEOUT_MS", "1000"}, {"TRENDS_KEEP_SECONDS", "0"}});
  core::testing::sql(cluster.url("svc"),
                     "INSERT INTO tickets (id, title, status, synced_at) VALUES (100, 'Printer', 1, now())");
  const auto post = [&](int sequence) {
    const auto body = callout("Ticket", 100, "Update", {{"Title", "Title " + std::to_string(sequence)}}, sequence);
    return core::testing::http(svc.port(), "POST", "/api/webhooks/psa", body.dump());
  };
  ASSERT_EQ(post(1).status, 200u);

  const auto statements_before = svc.service().db().stats().acquires;
  cluster.freeze();
  constexpr int kCallouts = 4;
  const auto answers = core::testing::at_once(kCallouts, [&](int i) { return post(10 + i); });
  const auto statements = svc.service().db().stats().acquires - statements_before;
  cluster.thaw();
  EXPECT_EQ(statements, 1u);
  for (int i = 0; i < kCallouts; ++i) {
    const auto& answer = answers[i].response;
    EXPECT_EQ(answer.status, 503u) << i << ": " << answer.body;
    EXPECT_EQ(answer.header("content-type"), "application/problem+json") << i;
    // 1 s bound + 1 s grace + the sweeper's 0.1 s, as the service contract's hung read; a callout
    // that waited for the group before it and then ran its own took 4 s and more.
    EXPECT_LT(answers[i].took, std::chrono::milliseconds(3500)) << i;
  }
  // Once the database answers, so does the intake. The PSA sends again what was not acknowledged:
  // each callout ends as one event. (The group that was sent, one callout or more that came
  // together, may have been written once the database went on, unless its cancel came first:
  // their copies are then duplicates.)
  for (int i = 0; i < kCallouts; ++i) {
    const auto again = post(10 + i);
    EXPECT_EQ(again.status, 200u) << again.body;
  }
  EXPECT_EQ(core::testing::sql(cluster.url("svc"), "SELECT count(*) FROM webhook_events"),
            std::to_string(1 + kCallouts));
}

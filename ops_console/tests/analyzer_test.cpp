// The ticket analyzer (issue 21) against the model and Graph fakes: the ticket list and its
// filters, the job queue and its workers (a dead worker's job taken again, a lease renewed while
// the model is slow, one run per ticket at a time), the pipeline's stages and its failures, the
// route fallback, the cost gate at its edges, the feed's twelve fields, shares and reports.
#include <functional>
#include <thread>
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct AnalyzerTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss, tech;  // an administrator, a plain user in Pacific/Auckland

  std::map<std::string, std::string> analyzer_env() {
    return {{"LLM_BASE_URL", fakes.url()},
            {"ANALYZER_POLL_MS", "100"},
            {"GRAPH_LOGIN_URL", fakes.url()},
            {"GRAPH_BASE_URL", fakes.url()},
            {"GRAPH_TENANT_ID", "contoso-tenant"},
            {"GRAPH_CLIENT_ID", "sandbox-client"},
            {"GRAPH_CLIENT_SECRET", "sandbox-secret"},
            {"MAIL_SENDER", "helpdesk@msp.example"}};
  }
  void start_analyzer(std::map<std::string, std::string> extra = {}) {
    auto env = analyzer_env();
    for (auto& [k, v] : extra) env[k] = v;
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    sql("UPDATE users SET timezone = 'Pacific/Auckland' WHERE email = 'tech@msp.example'");
    seed_psa();
    fakes.graph().create_mailbox("helpdesk@msp.example");
    start(env);
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  // Two companies, five tickets (101 and 102 around Auckland's last midnight), picklists.
  void seed_psa() {
    sql("INSERT INTO companies (id, company_name) VALUES (1, 'Contoso'), (2, 'Fabrikam')");
    sql("INSERT INTO psa_picklists (entity, field, value, label, is_active) VALUES "
        "('Tickets', 'priority', 1, 'High', true), ('Tickets', 'priority', 2, 'Medium', true), "
        "('Tickets', 'priority', 9, 'Retired', false), ('Tickets', 'issueType', 4, 'Hardware', true), "
        "('Tickets', 'issueType', 5, 'Email', true), ('Tickets', 'status', 1, 'New', true), "
        "('Tickets', 'queueID', 8, 'Service Desk', true)");
    sql("INSERT INTO resources (id, first_name, last_name, is_active) VALUES (7, 'Ann', 'Tech', true), "
        "(8, 'Gone', 'Person', false)");
    const std::string midnight =
        "(date_trunc('day', now() AT TIME ZONE 'Pacific/Auckland') AT TIME ZONE "
        "'Pacific/Auckland')";
    sql("INSERT INTO tickets (id, ticket_number, title, description, status, priority, queue_id, company_id, "
        "issue_type, create_date) VALUES "
        "(101, 'T101', 'Laptop will not boot', 'Black screen after the update.', 1, 1, 8, 1, 4, " +
        midnight +
        " + interval '1 minute'), "
        "(102, 'T102', 'Mailbox full', 'Outlook says the mailbox is full.', 1, 2, 8, 1, 5, " +
        midnight +
        " - interval '1 minute'), "
        "(103, 'T103', 'Discount 50% not applied', 'Invoice shows the full price.', 1, 2, 8, 2, 5, now() - "
        "interval '20 days'), "
        "(104, 'T104', 'Discount 500 not applied', 'Another invoice.', 1, 2, 8, 2, 5, now() - interval '40 days'), "
        "(105, 'T105', 'Old printer', 'Jams.', 1, 2, 8, 2, 4, now() - interval '400 days')");
    sql("INSERT INTO time_entries (id, ticket_id, resource_id, date_worked, hours_worked, summary_notes) VALUES "
        "(1, 101, 7, now(), 0.5, 'Tried safe mode; no luck.')");
  }
  json get(const std::string& path, const std::string& token) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  json analyze(const json& body, const std::string& token, unsigned expected = 202) {
    const auto res = call("POST", "/api/analyzer/analyze", body, token);
    EXPECT_EQ(res.status, expected) << res.body;
    return res.json();
  }
  bool jobs_done() { return sql("SELECT count(*) FROM analysis_jobs WHERE status IN ('queued', 'running')") == "0"; }
  void wait_for_jobs() {
    ASSERT_TRUE(core::testing::eventually([&] { return jobs_done(); }, std::chrono::seconds(30)));
  }
};

std::vector<std::string> ids_of(const json& list) {
  std::vector<std::string> out;
  const json& items = list["items"];
  for (const auto& item : items) out.push_back(item["ticketNumber"]);
  return out;
}

TEST_F(AnalyzerTest, EveryRouteNeedsASession) {
  // Idle workers poll the database, and the mail platform's usage pull runs at start (GRAPH_* is
  // set): neither here, to count.
  start_analyzer({{"ANALYZER_WORKERS", "0"}, {"MAILPLATFORM_USAGE_MINUTES", "0"}});
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/api/analyzer/tickets/list"},
                                                        {"GET", "/api/analyzer/tickets/filter-options"},
                                                        {"POST", "/api/analyzer/analyze"},
                                                        {"GET", "/api/analyzer/jobs/1"},
                                                        {"GET", "/api/analyzer/analyses?ticketId=1"},
                                                        {"GET", "/api/analyzer/analyses/1"},
                                                        {"POST", "/api/analyzer/analyses/1/share"},
                                                        {"POST", "/api/analyzer/reports"},
                                                        {"GET", "/api/analyzer/reports/1"}}) {
    const auto work = database_work();
    EXPECT_EQ(call(method, path, json::object()).status, 401u) << path;
    EXPECT_EQ(database_work(), work) << path;  // refused before any query
  }
}

// The total of the period "all" comes from ticket_counts (migration 0037), kept by triggers: after
// each kind of change to the copy (the PSA sync's upsert, a deletion mark and its undoing, a move
// to another company or issue type, a row deleted, the table truncated) it equals a count of the
// live tickets, for every filter the count serves, and the rows of a page are the same either way.
TEST_F(AnalyzerTest, TheTotalOfAllTicketsStaysExactThroughEveryChangeOfTheCopy) {
  start_analyzer();
  const auto check = [&](const std::string& step) {
    SCOPED_TRACE(step);
    for (const auto& [filter, where] : std::vector<std::pair<std::string, std::string>>{
             {"", ""},
             {"&companyId=1", " AND company_id = 1"},
             {"&companyId=2", " AND company_id = 2"},
             {"&issueType=5", " AND issue_type = 5"},
             {"&issueType=0", " AND issue_type = 0"},
             {"&companyId=2&issueType=4", " AND company_id = 2 AND issue_type = 4"}}) {
      const auto page = get("/api/analyzer/tickets/list?period=all" + filter, tech);
      EXPECT_EQ(page["total"].dump(), sql("SELECT count(*) FROM tickets WHERE deleted_at IS NULL" + where)) << filter;
    }
    // ... and it is the triggers' table that the route read.
    EXPECT_EQ(sql("SELECT coalesce(sum(live), 0) FROM ticket_counts"),
              sql("SELECT count(*) FROM tickets WHERE deleted_at IS NULL"));
  };
  check("as seeded");
  // The PSA sync's upsert: two new tickets (one with no company and no issue type, one of type 0)
  // and 103 seen again under issue type 4.
  sql("INSERT INTO tickets (id, ticket_number, company_id, issue_type) VALUES (106, 'T106', NULL, NULL), "
      "(107, 'T107', 1, 0), (103, 'T103', 2, 4) "
      "ON CONFLICT (id) DO UPDATE SET issue_type = excluded.issue_type, deleted_at = NULL");
  check("after an upsert");
  sql("UPDATE tickets SET deleted_at = now() WHERE id IN (101, 105)");
  check("after deletion marks");
  sql("UPDATE tickets SET deleted_at = NULL WHERE id = 105");
  check("after a deletion mark is undone");
  sql("UPDATE tickets SET company_id = 1 WHERE id = 104");
  check("after a move to another company");
  sql("UPDATE tickets SET title = 'renamed' WHERE company_id = 2");
  check("after an update that changes no count");
  sql("DELETE FROM tickets WHERE id IN (102, 106)");
  check("after rows are deleted");
  EXPECT_EQ(get("/api/analyzer/tickets/list?period=all&limit=2", tech)["items"].size(), 2u);
  sql("TRUNCATE tickets CASCADE");
  check("after the table is truncated");
  EXPECT_EQ(sql("SELECT count(*) FROM ticket_counts WHERE live <> 0"), "0");
}

// Two writers of tickets (the webhook intake's groups, a second instance's, the PSA sync's pages)
// each lock the ticket_counts rows of the keys they change. Each statement's upsert takes its keys
// in order (migration 0041), so a statement that needs a key another transaction holds waits
// holding none of the keys after it, and cannot deadlock with a writer that takes them in the same
// order. Here writer A has taken company 1's row and is about to take company 3's; B's statement
// needs both. (0037's upsert took them in its hash's order, 3 before 1, and one of the two got
// "deadlock detected" for each branch below.) Tickets without a create date are not open, so the
// open tickets' counts (0038, ordered already) take no lock that would hold B back first.
TEST_F(AnalyzerTest, WritersOfTheSameTicketCountsInTheSameOrderDoNotDeadlock) {
  sql("INSERT INTO tickets (id, ticket_number, company_id, issue_type) VALUES "
      "(1, 'T1', 1, 4), (2, 'T2', 3, 4), (3, 'T3', 1, 4), (4, 'T4', 3, 4)");
  const auto no_deadlock = [&](const std::string& branch, const std::string& b_statement) {
    SCOPED_TRACE(branch);
    core::testing::Session a(database.url()), look(database.url());
    a.sql("BEGIN");
    a.sql("INSERT INTO tickets (id, ticket_number, company_id, issue_type) VALUES (10, 'A1', 1, 4)");
    std::string b_failure;
    std::thread b([&] {
      try {
        sql(b_statement);
      } catch (const std::exception& e) {
        b_failure = e.what();
      }
    });
    // B waits for A's lock on company 1's row (and, in the old order, already holds company 3's).
    const bool waiting = core::testing::eventually([&] {
      return look.sql(
                 "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                 "wait_event_type = 'Lock'") == "1";
    });
    std::string a_failure;
    try {
      a.sql("INSERT INTO tickets (id, ticket_number, company_id, issue_type) VALUES (11, 'A2', 3, 4)");
      a.sql("COMMIT");
    } catch (const std::exception& e) {
      a_failure = e.what();
    }
    b.join();
    EXPECT_TRUE(waiting) << "B never waited for A";
    EXPECT_EQ(a_failure, "");
    EXPECT_EQ(b_failure, "");
    // ... and the counts are still a count of the tickets.
    EXPECT_EQ(sql("SELECT string_agg(k || ':' || live, ' ' ORDER BY k) FROM (SELECT company_key || '/' || "
                  "issue_type_key AS k, live FROM ticket_counts WHERE live <> 0) c"),
              sql("SELECT string_agg(k || ':' || n, ' ' ORDER BY k) FROM (SELECT company_id || '/' || issue_type AS k, "
                  "count(*) AS n FROM tickets WHERE deleted_at IS NULL GROUP BY 1) t"));
    sql("DELETE FROM tickets WHERE id IN (10, 11)");
  };
  no_deadlock("INSERT",
              "INSERT INTO tickets (id, ticket_number, company_id, issue_type) VALUES "
              "(20, 'B1', 3, 4), (21, 'B2', 1, 4)");
  no_deadlock("UPDATE", "UPDATE tickets SET issue_type = 5 WHERE id IN (1, 2)");
  no_deadlock("DELETE", "DELETE FROM tickets WHERE id IN (3, 4)");
}

TEST_F(AnalyzerTest, TheListFiltersByCalendarPeriodsInTheUsersZone) {
  start_analyzer();
  // tech is in Auckland: 101 was created a minute after its midnight, 102 a minute before.
  EXPECT_EQ(ids_of(get("/api/analyzer/tickets/list?period=today", tech)), std::vector<std::string>{"T101"});
  EXPECT_EQ(ids_of(get("/api/analyzer/tickets/list?period=yesterday", tech)), std::vector<std::string>{"T102"});
  EXPECT_EQ(get("/api/analyzer/tickets/list?period=30d", tech)["total"], 3);
  EXPECT_EQ(get("/api/analyzer/tickets/list?period=60d", tech)["total"], 4);
  EXPECT_EQ(get("/api/analyzer/tickets/list?period=all", tech)["total"], 5);
  // A week starts on Monday: today's 101 is in this week; yesterday's 102 in this week or, on a Monday, the last.
  const auto this_week = ids_of(get("/api/analyzer/tickets/list?period=this%20week", tech));
  const auto last_week = ids_of(get("/api/analyzer/tickets/list?period=last%20week", tech));
  EXPECT_EQ(this_week.front(), "T101");
  EXPECT_EQ(
      std::count(this_week.begin(), this_week.end(), "T102") + std::count(last_week.begin(), last_week.end(), "T102"),
      1);
  // companyId, issueType, and a search whose % is literal.
  EXPECT_EQ(ids_of(get("/api/analyzer/tickets/list?companyId=2&issueType=5", tech)),
            (std::vector<std::string>{"T103", "T104"}));
  EXPECT_EQ(ids_of(get("/api/analyzer/tickets/list?search=50%25", tech)), std::vector<std::string>{"T103"});
  EXPECT_EQ(ids_of(get("/api/analyzer/tickets/list?search=t10_", tech)).size(), 0u);
  // Paging with the total.
  const auto page = get("/api/analyzer/tickets/list?limit=2&offset=1", tech);
  EXPECT_EQ(page["total"], 5);
  EXPECT_EQ(page["limit"], 2);
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"T102", "T103"}));
  EXPECT_TRUE(page["items"][0]["analysis"].is_null());
  // Bad values name their field.
  const auto bad = call("GET", "/api/analyzer/tickets/list?period=month&limit=0", nullptr, tech);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_NE(bad.body.find("\"period\""), std::string::npos) << bad.body;
  EXPECT_NE(bad.body.find("\"limit\""), std::string::npos) << bad.body;
}

TEST_F(AnalyzerTest, FilterOptionsListActiveValues) {
  start_analyzer();
  const auto options = get("/api/analyzer/tickets/filter-options", tech);
  EXPECT_EQ(options["clients"].size(), 2u);
  EXPECT_EQ(options["priorities"], json::parse(R"([{"value":1,"label":"High"},{"value":2,"label":"Medium"}])"));
  EXPECT_EQ(options["issueTypes"].size(), 2u);
  EXPECT_EQ(options["queues"][0]["label"], "Service Desk");
  EXPECT_EQ(options["statuses"][0]["label"], "New");
  EXPECT_EQ(options["assignees"], json::parse(R"([{"id":7,"name":"Ann Tech"}])"));
}

TEST_F(AnalyzerTest, AnalysesRunThroughTheStagesAndLeaveOnlyTheFeedFields) {
  start_analyzer();
  const auto queued = analyze({{"ticketIds", {101, 102, 101}}}, tech);
  ASSERT_EQ(queued["jobs"].size(), 2u);  // one job per ticket
  EXPECT_GT(queued["cost"]["estimate"].get<double>(), 0);
  EXPECT_FALSE(queued["cost"].contains("warning"));
  wait_for_jobs();
  EXPECT_EQ(sql("SELECT count(*) FROM analyses WHERE status = 'succeeded'"), "2");
  // Each run: one execution with its three stages, tokens and cost.
  EXPECT_EQ(sql("SELECT string_agg(s ->> 'name' || ':' || (s ->> 'status'), ',' ORDER BY ord) FROM "
                "pipeline_executions e, jsonb_array_elements(e.output_data -> 'stages') WITH ORDINALITY AS x(s, ord) "
                "WHERE e.ticket_id = 101"),
            "gather:succeeded,classify:succeeded,summarise:succeeded");
  // Every model call moved the analyzer's integration-health row.
  EXPECT_TRUE(health_shows("analyzer", "calls >= 2 AND failures = 0 AND last_success_at IS NOT NULL"));
  EXPECT_EQ(sql("SELECT bool_and(cost > 0 AND status = 'succeeded' AND (output_data -> 'stages' -> 1 ->> "
                "'promptTokens')::int > 0) FROM pipeline_executions"),
            "t");
  // The ticket reached the model as data between boundary markers.
  const auto requests = fakes.model().requests();
  const std::string user = requests["requests"][0]["user"];
  EXPECT_EQ(user.rfind("<<<TICKET ", 0), 0u) << user;
  // The list shows each ticket's latest analysis state.
  const auto list = get("/api/analyzer/tickets/list?period=all&search=T101", tech);
  EXPECT_EQ(list["items"][0]["analysis"]["status"], "succeeded");

  // A feed row is exactly the twelve whitelisted fields.
  const auto feed = get("/api/analyzer/analyses?ticketId=101", tech);
  ASSERT_EQ(feed.size(), 1u);
  std::set<std::string> keys;
  for (const auto& [k, v] : feed[0].items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"id", "ticketId", "ticketNumber", "ticketTitle", "companyId", "companyName",
                                         "status", "category", "urgency", "summary", "needsReview", "completedAt"}));
  // nowhere in the row either, at any depth (as a key: the fake model's free text may name them)
  std::set<std::string> all_keys;
  const std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object())
      for (const auto& [k, v] : j.items()) {
        all_keys.insert(k);
        walk(v);
      }
    else if (j.is_array())
      for (const auto& v : j) walk(v);
  };
  walk(feed);
  for (const auto* hidden : {"traces", "reviewReasons", "documentationReferences", "nextSteps"})
    EXPECT_FALSE(all_keys.contains(hidden)) << hidden;
  // The detail adds the rest; the traces only for an administrator.
  const std::string id = std::to_string(feed[0]["id"].get<std::int64_t>());
  const auto detail = get("/api/analyzer/analyses/" + id, tech);
  EXPECT_TRUE(detail["reviewReasons"].is_array());
  EXPECT_TRUE(detail["documentationReferences"].is_array());
  EXPECT_FALSE(detail.contains("traces"));
  EXPECT_EQ(get("/api/analyzer/analyses/" + id, boss)["traces"].size(), 2u);
  EXPECT_EQ(call("GET", "/api/analyzer/analyses/999999", nullptr, tech).status, 404u);
  const std::string job = std::to_string(queued["jobs"][0]["id"].get<std::int64_t>());
  EXPECT_EQ(get("/api/analyzer/jobs/" + job, tech)["status"], "succeeded");
}

TEST_F(AnalyzerTest, AFailedPipelineStillStoresAFailedAnalysis) {
  start_analyzer();
  fakes.model().set_faults({.refuse = 1});
  analyze({{"ticketIds", {101}}}, tech);
  wait_for_jobs();
  fakes.model().set_faults({.invalid_json = 1});
  analyze({{"ticketIds", {102}}}, tech);
  wait_for_jobs();
  EXPECT_EQ(sql("SELECT string_agg(ticket_id || ':' || status || ':' || (error IS NOT NULL), ',' ORDER BY ticket_id) "
                "FROM analyses"),
            "101:failed:true,102:failed:true");
  EXPECT_NE(sql("SELECT error FROM analyses WHERE ticket_id = 101").find("refused"), std::string::npos);
  // The failed stage is recorded with the run.
  EXPECT_EQ(sql("SELECT string_agg(e.status || '/' || (e.output_data -> 'stages' -> 1 ->> 'status'), ',') "
                "FROM pipeline_executions e"),
            "failed/failed,failed/failed");
  EXPECT_EQ(sql("SELECT string_agg(status, ',') FROM analysis_jobs"), "failed,failed");
  // A ticket not in the copy is refused before anything is queued.
  const auto missing = call("POST", "/api/analyzer/analyze", {{"ticketIds", {101, 424242}}}, tech);
  EXPECT_EQ(missing.status, 400u);
  EXPECT_NE(missing.body.find("424242"), std::string::npos);
  EXPECT_EQ(call("POST", "/api/analyzer/analyze", {{"ticketIds", json::array()}}, tech).status, 400u);
}

TEST_F(AnalyzerTest, ARouteWhoseModelIsMissingFallsBackToTheDefault) {
  start_analyzer({{"ANALYZER_ROUTES", "deep=gpt-huge"}});
  fakes.model().set_faults({.unknown_models = {"gpt-huge"}});
  EXPECT_EQ(call("POST", "/api/analyzer/analyze", {{"ticketIds", {101}}, {"route", "shallow"}}, tech).status, 400u);
  analyze({{"ticketIds", {101}}, {"route", "deep"}}, tech);
  wait_for_jobs();
  EXPECT_EQ(sql("SELECT status FROM analyses"), "succeeded");
  EXPECT_EQ(sql("SELECT output_data -> 'user_route_fallback' ->> 'route' FROM pipeline_executions"), "deep");
  const auto fallbacks = get("/api/admin/pipeline-executions?fallbacks_only=true", boss);
  ASSERT_EQ(fallbacks["items"].size(), 1u) << fallbacks.dump();
  EXPECT_EQ(fallbacks["items"][0]["has_fallback"], true);
}

TEST_F(AnalyzerTest, TheCostGateAtItsEdges) {
  // Free tokens: the day's total is exactly what is recorded below.
  start_analyzer({{"LLM_PRICE_INPUT_PER_MTOK", "0"},
                  {"LLM_PRICE_OUTPUT_PER_MTOK", "0"},
                  {"ANALYZER_WORKERS", "0"},
                  {"ANALYZER_DAILY_COST_OVERRIDE_USERS", "Boss@msp.example"}});
  const auto spent = [&](const std::string& total) {
    sql("DELETE FROM pipeline_executions");
    sql("INSERT INTO pipeline_executions (pipeline_id, status, cost) VALUES (1, 'succeeded', " + total + ")");
  };
  spent("19.999999");
  EXPECT_FALSE(analyze({{"ticketIds", {101}}}, tech)["cost"].contains("warning"));
  spent("20");
  const auto warned = analyze({{"ticketIds", {101}}}, tech);
  EXPECT_EQ(warned["cost"]["dayTotal"], 20);
  EXPECT_TRUE(warned["cost"]["warning"].is_string());
  spent("49.999999");
  EXPECT_TRUE(analyze({{"ticketIds", {101}}}, tech)["cost"].contains("warning"));
  spent("50");
  const auto blocked = call("POST", "/api/analyzer/analyze", {{"ticketIds", {102}}, {"confirmCost", true}}, tech);
  EXPECT_EQ(blocked.status, 429u) << blocked.body;
  EXPECT_EQ(blocked.json()["dayTotal"], 50);
  EXPECT_EQ(blocked.json()["limit"], 50);
  EXPECT_NE(blocked.header("content-type").find("application/problem+json"), std::string::npos);
  EXPECT_EQ(sql("SELECT count(*) FROM analysis_jobs WHERE ticket_id = 102"), "0");  // nothing queued
  // The override list (matched without regard to case) lets its users through, with the warning.
  const auto overridden = analyze({{"ticketIds", {102}}}, boss);
  EXPECT_TRUE(overridden["cost"].contains("warning"));
  // Reports pass the same gate.
  EXPECT_EQ(call("POST", "/api/analyzer/reports", {{"period", "all"}}, tech).status, 429u);
  // Every decision is audited with the user, the estimate and the day's total.
  EXPECT_EQ(
      sql("SELECT string_agg(decision || '@' || day_total::float8, ',' ORDER BY id) FROM analyzer_cost_decisions"),
      "allowed@19.999999,warned@20,warned@49.999999,blocked@50,overridden@50,blocked@50");
  EXPECT_EQ(sql("SELECT string_agg(DISTINCT user_email, ',') FROM analyzer_cost_decisions WHERE decision = "
                "'overridden'"),
            "boss@msp.example");
}

TEST_F(AnalyzerTest, AnEstimateAboveFiveNeedsConfirmation) {
  // At 10,000 units per million prompt tokens one ticket's analysis is estimated above 5.
  start_analyzer({{"LLM_PRICE_INPUT_PER_MTOK", "10000"}, {"ANALYZER_WORKERS", "0"}});
  const auto refused = call("POST", "/api/analyzer/analyze", {{"ticketIds", {101}}}, tech);
  ASSERT_EQ(refused.status, 409u) << refused.body;
  const auto problem = refused.json();
  EXPECT_GT(problem["estimate"].get<double>(), 5);
  EXPECT_EQ(problem["threshold"], 5);
  EXPECT_EQ(problem["confirmField"], "confirmCost");
  EXPECT_EQ(sql("SELECT count(*) FROM analysis_jobs"), "0");
  const auto confirmed = analyze({{"ticketIds", {101}}, {"confirmCost", true}}, tech);
  EXPECT_EQ(confirmed["jobs"].size(), 1u);
  EXPECT_EQ(sql("SELECT string_agg(decision, ',' ORDER BY id) FROM analyzer_cost_decisions"),
            "confirmation_required,confirmed");
}

TEST_F(AnalyzerTest, AJobWhoseWorkerDiedIsTakenAgain) {
  // What a worker killed mid-job leaves: its job running under a lease that ran out, its run open.
  start_analyzer({{"ANALYZER_WORKERS", "0"}});
  sql("INSERT INTO analysis_jobs (ticket_id, status, attempts, lease_owner, lease_until, started_at) "
      "VALUES (101, 'running', 1, 'dead-worker', now() - interval '1 second', now() - interval '40 seconds')");
  sql("INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, input_data) SELECT 1, 101, 'running', "
      "jsonb_build_object('jobId', id, 'ticketId', 101) FROM analysis_jobs");
  // And a job whose workers died three times already: failed, not run a fourth time.
  sql("INSERT INTO analysis_jobs (ticket_id, status, attempts, lease_owner, lease_until, started_at) "
      "VALUES (102, 'running', 3, 'dead-worker', now() - interval '1 second', now() - interval '40 seconds')");
  svc.reset();
  start(analyzer_env());  // a new instance, with workers
  wait_for_jobs();
  EXPECT_EQ(sql("SELECT status || ':' || attempts FROM analysis_jobs WHERE ticket_id = 101"), "succeeded:2");
  EXPECT_EQ(sql("SELECT j.status || ':' || a.status || ':' || a.error FROM analysis_jobs j JOIN analyses a ON "
                "a.id = j.analysis_id WHERE j.ticket_id = 102"),
            "failed:failed:the workers running this job stopped 3 times");
  EXPECT_EQ(sql("SELECT string_agg(status || ':' || coalesce(error, ''), ',' ORDER BY id) FROM pipeline_executions"),
            "failed:the worker stopped mid-run,succeeded:");
}

// Kill -9 of the service mid-job (README, "Reliability under kill -9"): the service dies while the
// model is asked. Another instance takes the job once its lease has run out and completes it once:
// the job succeeded at its second attempt, one analysis, the dead run's execution closed as failed.
TEST_F(AnalyzerTest, AJobHeldByAKilledServiceIsCompletedOnceByAnother) {
  start_analyzer({{"ANALYZER_WORKERS", "0"}});
  analyze({{"ticketIds", {101}}}, tech);  // queued: this instance runs no worker
  svc.reset();
  fakes.model().set_faults({.latency = std::chrono::seconds(5)});
  auto env = analyzer_env();
  env["ANALYZER_LEASE_SECONDS"] = "2";
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(env, [&] { return fakes.model().request_count() == 1; }));
  EXPECT_EQ(sql("SELECT status || ':' || attempts FROM analysis_jobs"), "running:1");
  fakes.model().set_faults({});

  start(env);
  wait_for_jobs();
  EXPECT_EQ(sql("SELECT status || ':' || attempts FROM analysis_jobs"), "succeeded:2");
  EXPECT_EQ(sql("SELECT count(*) || ' ' || string_agg(status, ',') FROM analyses"), "1 succeeded");
  EXPECT_EQ(sql("SELECT a.id = j.analysis_id FROM analyses a, analysis_jobs j"), "t");
  EXPECT_EQ(sql("SELECT string_agg(status || ':' || coalesce(error, ''), ',' ORDER BY id) FROM pipeline_executions"),
            "failed:the worker stopped mid-run,succeeded:");
  EXPECT_EQ(fakes.model().request_count(), 3);  // the killed run's question, asked again with the next
}

TEST_F(AnalyzerTest, ALeaseIsRenewedWhileTheModelIsSlowAndATicketRunsOnce) {
  start_analyzer({{"ANALYZER_LEASE_SECONDS", "1"}});
  fakes.model().set_faults({.latency = std::chrono::milliseconds(1200)});
  analyze({{"ticketIds", {101}}}, tech);
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT count(*) FROM analysis_jobs WHERE status = 'running'") == "1"; }));
  analyze({{"ticketIds", {101}}}, tech);  // the same ticket again while it runs: a second job waits
  wait_for_jobs();
  // Two workers, a lease of one second and a model taking 1.2 s a stage: without renewal the
  // second worker would have taken the first job again.
  EXPECT_EQ(sql("SELECT string_agg(status || ':' || attempts, ',' ORDER BY id) FROM analysis_jobs"),
            "succeeded:1,succeeded:1");
  EXPECT_EQ(fakes.model().requests()["most_in_flight"], 1);  // never two runs of ticket 101 at once
  EXPECT_EQ(fakes.model().request_count(), 4);
}

TEST_F(AnalyzerTest, ASharesRecordComesFirstAndAFailedMailStillAnswers200) {
  start_analyzer();
  analyze({{"ticketIds", {101}}}, tech);
  wait_for_jobs();
  const std::string id = sql("SELECT id FROM analyses");
  const auto bad = call("POST", "/api/analyzer/analyses/" + id + "/share", {{"recipients", {"not an address"}}}, tech);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_NE(bad.body.find("recipients"), std::string::npos);
  EXPECT_EQ(call("POST", "/api/analyzer/analyses/999999/share", {{"recipients", {"a@b.example"}}}, tech).status, 404u);

  const auto sent = call("POST", "/api/analyzer/analyses/" + id + "/share",
                         {{"recipients", {"Lead@MSP.example"}}, {"message", "Please look"}}, tech);
  ASSERT_EQ(sent.status, 200u) << sent.body;
  EXPECT_EQ(sent.json()["emailSent"], true);
  EXPECT_EQ(sent.json()["share"]["recipients"], json::array({"lead@msp.example"}));
  const auto mails = fakes.graph().sent();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].from, "helpdesk@msp.example");
  EXPECT_EQ(mails[0].to.at(0).address, "lead@msp.example");
  EXPECT_NE(mails[0].body.find("Please look"), std::string::npos);
  EXPECT_NE(mails[0].subject.find("T101"), std::string::npos);

  fakes.graph().set_faults({.send_fail_status = 503, .send_fail_code = "ServiceUnavailable"});
  const auto failed = call("POST", "/api/analyzer/analyses/" + id + "/share", {{"recipients", {"a@b.example"}}}, tech);
  ASSERT_EQ(failed.status, 200u) << failed.body;
  EXPECT_EQ(failed.json()["emailSent"], false);
  EXPECT_TRUE(failed.json()["emailError"].is_string());
  EXPECT_EQ(failed.body.find("sandbox-secret"), std::string::npos);
  EXPECT_EQ(sql("SELECT string_agg(coalesce(email_sent::text, 'null'), ',' ORDER BY id) FROM analysis_shares"),
            "true,false");
}

TEST_F(AnalyzerTest, AReportStoresItsDistributionsAtOnceAndItsNarrativeLater) {
  start_analyzer();
  analyze({{"ticketIds", {101, 102, 103}}}, tech);
  wait_for_jobs();
  fakes.model().set_faults({.latency = std::chrono::milliseconds(300)});
  const auto res = call("POST", "/api/analyzer/reports", {{"period", "30d"}, {"companyId", 1}}, tech);
  ASSERT_EQ(res.status, 202u) << res.body;
  const auto report = res.json();
  EXPECT_EQ(report["status"], "pending");
  EXPECT_EQ(report["distributions"]["tickets"], 2);
  int categorised = 0;
  const json& by_category = report["distributions"]["byCategory"];
  for (const auto& c : by_category) categorised += c["count"].get<int>();
  EXPECT_EQ(categorised, 2);
  EXPECT_EQ(report["distributions"]["byCompany"], json::parse(R"([{"key":"1","label":"Contoso","count":2}])"));
  EXPECT_EQ(report["distributions"]["byIssueType"].size(), 2u);
  const std::string path = "/api/analyzer/reports/" + std::to_string(report["id"].get<std::int64_t>());
  ASSERT_TRUE(core::testing::eventually([&] { return get(path, tech)["status"] == "succeeded"; }));
  EXPECT_FALSE(get(path, tech)["narrative"].get<std::string>().empty());
  EXPECT_EQ(sql("SELECT count(*) FROM pipeline_executions WHERE pipeline_id = 2 AND status = 'succeeded'"), "1");
  EXPECT_EQ(call("POST", "/api/analyzer/reports", {{"period", "fortnight"}}, tech).status, 400u);
}

TEST_F(AnalyzerTest, WithoutAModelAnalysesAnswer503AndTheListStillWorks) {
  add_user("tech@msp.example", kPassword);
  seed_psa();
  start();
  tech = sign_in("tech@msp.example", kPassword);
  const auto res = call("POST", "/api/analyzer/analyze", {{"ticketIds", {101}}}, tech);
  EXPECT_EQ(res.status, 503u);
  EXPECT_NE(res.body.find("LLM_BASE_URL"), std::string::npos);
  EXPECT_EQ(get("/api/analyzer/tickets/list", tech)["total"], 5);
}

}  // namespace

namespace {

// The phishing classify route (it shares the analyzer's model client and cost accounting).
TEST_F(AnalyzerTest, ACampaignIsClassifiedFromItsIndicators) {
  start_analyzer();
  add_user("analyst@msp.example", kPassword, false, {{"phishing", "analyze"}, {"phishing", "read"}});
  const auto analyst = sign_in("analyst@msp.example", kPassword);
  const std::string campaign =
      sql("INSERT INTO phishing_campaigns (first_seen, last_seen) VALUES (now(), now()) "
          "RETURNING id");
  sql("INSERT INTO phishing_reports (ticket_id, campaign_id) VALUES (101, '" + campaign + "')");
  sql("INSERT INTO phishing_messages (report_id, sha256, source, subject) SELECT id, 'abc', 'pasted_headers', "
      "'Your mailbox is full' FROM phishing_reports");
  sql("INSERT INTO phishing_indicators (message_id, kind, value) SELECT id, k, v FROM phishing_messages, (VALUES "
      "('sender_domain', 'micros0ft-support.example'), ('spf', 'fail'), ('url_domain', 'login.micros0ft.example')) "
      "AS i(k, v)");
  const std::string path = "/api/phishing/campaigns/" + campaign + "/classify";

  EXPECT_EQ(call("POST", path, nullptr, tech).status, 403u);  // signed in, without phishing:analyze
  EXPECT_EQ(fakes.model().request_count(), 0);
  const auto malformed = call("POST", "/api/phishing/campaigns/not-a-uuid/classify", nullptr, analyst);
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_NE(malformed.body.find("\"id\""), std::string::npos);
  EXPECT_EQ(
      call("POST", "/api/phishing/campaigns/00000000-0000-4000-8000-000000000000/classify", nullptr, analyst).status,
      404u);

  const auto res = call("POST", path, nullptr, analyst);
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto result = res.json();
  EXPECT_TRUE(result["verdict"] == "malicious" || result["verdict"] == "suspicious" || result["verdict"] == "spam" ||
              result["verdict"] == "benign");
  EXPECT_GE(result["confidence"].get<double>(), 0);
  EXPECT_FALSE(result["reasons"].empty());
  EXPECT_EQ(result["campaignId"], campaign);
  // The evidence went to the model as data; the classification is stored and shown with the campaign.
  const auto requests = fakes.model().requests();
  const std::string user = requests["requests"][0]["user"];
  EXPECT_NE(user.find("micros0ft-support.example"), std::string::npos);
  EXPECT_EQ(user.rfind("<<<EVIDENCE ", 0), 0u);
  EXPECT_EQ(get("/api/phishing/campaigns/" + campaign, analyst)["classifications"].size(), 1u);
  EXPECT_EQ(sql("SELECT status FROM pipeline_executions WHERE pipeline_id = 3"), "succeeded");

  fakes.model().set_faults({.refuse = 1});
  EXPECT_EQ(call("POST", path, nullptr, analyst).status, 502u);
  EXPECT_EQ(sql("SELECT count(*) FROM phishing_classifications"), "1");
  EXPECT_EQ(sql("SELECT string_agg(status, ',' ORDER BY id) FROM pipeline_executions WHERE pipeline_id = 3"),
            "succeeded,failed");
}

}  // namespace

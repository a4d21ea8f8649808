// POST /api/v1/process end to end: the service against the Graph and model fakes (in-process
// sandbox) and a real PostgreSQL database.
#include "mail_triage/pipeline/triage.hpp"
#include "mail_triage/tests/sandbox_fixture.hpp"

#include <future>
#include <set>

namespace {

using core::testing::HttpResponse;
using mail_triage::testing::kMailbox;
using nlohmann::json;
using ProcessTest = mail_triage::testing::SandboxTest;

// Whether the service's metrics (docs/metrics.md) hold `line`.
bool metrics_hold(core::testing::RunningService& svc, const std::string& line) {
  const auto scrape = core::testing::http(svc.service().metrics_port(), "GET", "/metrics");
  return scrape.body.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_F(ProcessTest, LogsEveryUnreadMessageOnceWithItsSenderTypeAndActsOnIt) {
  sql("INSERT INTO customers (name, domain) VALUES ('Contoso', 'contoso.example')");
  sql("INSERT INTO vendors (name, email_address) VALUES ('Pax8', 'billing@pax8.example')");
  sql("INSERT INTO whitelist (domain, description) VALUES ('partner.example', 'our partner')");
  fakes.graph().create_mailbox(kMailbox);
  const auto support = add("VPN is not working", "Anna@Contoso.example", "Please help, I cannot connect.");
  const auto invoice = add("Invoice INV-1 for October", "billing@pax8.example", "Payment due in 30 days.");
  const auto partner = add("Lunch?", "bob@partner.example", "Are you free?");
  const auto alert = add("[Alert] Disk space low", "alerts@monitoring.example", "This is an automated notification.");
  const auto news = add("November newsletter", "news@cloud.example", "In this issue: five things.");
  const auto read = add("Already read", "x@y.example", "", 1, true);
  const auto old = add("Too old", "x@y.example", "", 24 * 15);
  start();

  const auto res = process();
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json(), json({{"processed", 5}}));

  EXPECT_EQ(entry(support), "completed|customer|support_request|keep");
  EXPECT_EQ(entry(invoice), "completed|vendor|billing|keep");
  EXPECT_EQ(entry(partner), "skipped|whitelist|-|keep");
  EXPECT_EQ(entry(alert), "completed|unknown|notification|mark_read");
  EXPECT_EQ(entry(news), "completed|unknown|newsletter|archive");
  EXPECT_EQ(entry(read), "");  // read mail and mail past the look-back window are not fetched
  EXPECT_EQ(entry(old), "");
  EXPECT_EQ(sql("SELECT sender_address FROM email_log WHERE message_id = '" + support + "'"), "anna@contoso.example");
  EXPECT_EQ(sql("SELECT count(DISTINCT run_id) FROM email_log"), "1");
  EXPECT_EQ(sql("SELECT bool_and(llm_prompt_tokens > 0 AND llm_model = 'gpt-4o-mini') FROM email_log WHERE status = "
                "'completed'"),
            "t");

  // whitelisted mail never reaches the model; the mail is delimited data in the user message
  const auto calls = fakes.model().requests();
  EXPECT_EQ(calls["count"], 4);
  for (const auto& r : calls["requests"]) {
    EXPECT_EQ(r["user"].get<std::string>().find("Are you free?"), std::string::npos);
    EXPECT_NE(r["user"].get<std::string>().find("<<<EMAIL "), std::string::npos);
    EXPECT_EQ(r["temperature"], 0);
    EXPECT_EQ(r["response_format"], "json_schema");
  }
  // the actions happened in the mailbox
  EXPECT_TRUE(in_mailbox(alert).is_read);
  EXPECT_EQ(in_mailbox(news).folder, "archive");
  EXPECT_FALSE(in_mailbox(support).is_read);
  EXPECT_FALSE(in_mailbox(partner).is_read);

  // a second run finds nothing new to do
  const auto again = process();
  EXPECT_EQ(again.json(), json({{"processed", 0}}));
  EXPECT_EQ(fakes.model().request_count(), 4);
  EXPECT_EQ(sql("SELECT count(*) FROM email_log"), "5");

  // the runs and their messages, by outcome
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_processing_runs_total{outcome=\"ok\"} 2"));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_processing_run_duration_seconds_count 2"));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_messages_total{outcome=\"completed\"} 4"));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_messages_total{outcome=\"skipped\"} 1"));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_messages_total{outcome=\"failed\"} 0"));
}

TEST_F(ProcessTest, ModelErrorsAreFailedEntriesThatTheNextRunRetries) {
  fakes.graph().create_mailbox(kMailbox);
  const auto a = add("Printer not working", "a@contoso.example", "help");
  const auto b = add("Quote please", "b@prospect.example", "pricing");
  start();
  fakes.model().set_faults({.fail = 100, .status = 500});
  const auto first = process();
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(first.json()["processed"], 2);
  EXPECT_EQ(sql("SELECT string_agg(status, ',') FROM email_log"), "failed,failed");
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_messages_total{outcome=\"failed\"} 2"));
  EXPECT_NE(sql("SELECT error FROM email_log WHERE message_id = '" + a + "'").find("language model answered 500"),
            std::string::npos);

  fakes.model().set_faults({});
  EXPECT_EQ(process().json()["processed"], 2);
  EXPECT_EQ(entry(a), "completed|unknown|support_request|keep");
  EXPECT_EQ(sql("SELECT error IS NULL FROM email_log WHERE message_id = '" + b + "'"), "t");
}

TEST_F(ProcessTest, AnInvalidModelReplyIsAFailedEntryNotACrash) {
  fakes.graph().create_mailbox(kMailbox);
  const auto a = add("Printer not working", "a@contoso.example", "help");
  start();
  fakes.model().set_faults({.invalid_json = 1});
  EXPECT_EQ(process().status, 200u);
  EXPECT_EQ(sql("SELECT status || ': ' || error FROM email_log WHERE message_id = '" + a + "'"),
            "failed: the model's reply is not a JSON object");
  EXPECT_EQ(core::testing::http(svc->port(), "GET", "/healthz").status, 200u);
}

TEST_F(ProcessTest, GraphThrottlingIsWaitedOut) {
  fakes.graph().create_mailbox(kMailbox);
  add("[Alert] Disk space low", "alerts@monitoring.example", "automated notification");
  start();
  fakes.graph().set_faults({.throttle = 2, .retry_after = 1});
  const auto res = process();
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["processed"], 1);
  EXPECT_EQ(sql("SELECT status FROM email_log"), "completed");
}

TEST_F(ProcessTest, DryRunRecordsTheIntendedActionAndTouchesNothing) {
  fakes.graph().seed(kMailbox, 60);
  const auto before = fakes.graph().messages(kMailbox);
  start({{"TRIAGE_DRY_RUN", "true"}});
  ASSERT_EQ(process().status, 200u);
  const auto after = fakes.graph().messages(kMailbox);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].folder, before[i].folder);
    EXPECT_EQ(after[i].is_read, before[i].is_read);
    EXPECT_EQ(after[i].flag, before[i].flag);
  }
  EXPECT_EQ(sql("SELECT bool_and(dry_run) AND count(DISTINCT final_action) > 2 FROM email_log"), "t");
}

TEST_F(ProcessTest, ConcurrentRunsGetOne409) {
  fakes.graph().seed(kMailbox, 8);
  start();
  fakes.model().set_faults({.latency = std::chrono::milliseconds(300)});
  auto one = std::async(std::launch::async, [&] { return process().status; });
  auto two = std::async(std::launch::async, [&] { return process().status; });
  const std::multiset<unsigned> statuses{one.get(), two.get()};
  EXPECT_EQ(statuses, (std::multiset<unsigned>{200u, 409u}));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_processing_runs_total{outcome=\"busy\"} 1"));
  EXPECT_TRUE(metrics_hold(*svc, "mail_triage_processing_runs_total{outcome=\"ok\"} 1"));
}

TEST_F(ProcessTest, AMailboxThatCannotBeReadDoesNotStopTheOthers) {
  fakes.graph().create_mailbox(kMailbox);
  add("Printer not working", "a@contoso.example", "help");
  start({{"GRAPH_MAILBOX", std::string(kMailbox) + ",ghost@msp.example"}});
  const auto res = process();
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["processed"], 1);
  EXPECT_EQ(res.json()["mailbox_errors"][0]["mailbox"], "ghost@msp.example");
  EXPECT_NE(res.json()["mailbox_errors"][0]["error"].get<std::string>().find("ErrorInvalidUser"), std::string::npos);
}

TEST_F(ProcessTest, NoReadableMailboxIsA502AndNoConfigurationA503) {
  start({{"GRAPH_MAILBOX", "ghost@msp.example"}});
  const auto none = process();
  EXPECT_EQ(none.status, 502u);
  EXPECT_EQ(none.header("content-type"), "application/problem+json");
  core::testing::RunningService bare(mail_triage::definition(), database.url(), {{"API_KEYS", "k"}});
  const auto unconfigured =
      core::testing::http(bare.port(), "POST", "/api/v1/process", "", {{"Authorization", "Bearer k"}});
  EXPECT_EQ(unconfigured.status, 503u);
  EXPECT_NE(unconfigured.json()["detail"].get<std::string>().find("GRAPH_TENANT_ID"), std::string::npos);
}

TEST_F(ProcessTest, AMessageLeftProcessingByACrashedRunIsTakenUpAfterTheTimeout) {
  fakes.graph().create_mailbox(kMailbox);
  const auto stale = add("Printer not working", "a@contoso.example", "help");
  const auto fresh = add("VPN not working", "b@contoso.example", "help");
  sql("INSERT INTO email_log (mailbox, message_id, sender_address, received_at, status, updated_at) VALUES "
      "('inbox@msp.example', '" +
      stale +
      "', 'a@contoso.example', now(), 'processing', now() - interval '31 minutes'), "
      "('inbox@msp.example', '" +
      fresh + "', 'b@contoso.example', now(), 'processing', now() - interval '5 minutes')");
  start();
  EXPECT_EQ(process().json()["processed"], 1);
  EXPECT_EQ(sql("SELECT status FROM email_log WHERE message_id = '" + stale + "'"), "completed");
  EXPECT_EQ(sql("SELECT status FROM email_log WHERE message_id = '" + fresh + "'"), "processing");
}

TEST_F(ProcessTest, ModelsThatRefuseJsonSchemaAreAskedForJsonObject) {
  fakes.graph().create_mailbox(kMailbox);
  add("Printer not working", "a@contoso.example", "help");
  add("Invoice 7", "billing@x.example", "payment");
  start({{"LLM_CONCURRENCY", "1"}});
  fakes.model().set_faults({.reject_json_schema = true});
  EXPECT_EQ(process().json()["processed"], 2);
  EXPECT_EQ(sql("SELECT string_agg(status, ',') FROM email_log"), "completed,completed");
  std::vector<std::string> formats;
  const auto calls = fakes.model().requests();
  for (const auto& r : calls["requests"]) formats.push_back(r["response_format"]);
  EXPECT_EQ(formats, (std::vector<std::string>{"json_schema", "json_object", "json_object"}));
}

TEST_F(ProcessTest, WithoutAModelServerTheRulesClassifierRuns) {
  fakes.graph().seed(kMailbox, 40);
  start({{"LLM_BASE_URL", ""}});
  ASSERT_EQ(process().status, 200u);
  EXPECT_EQ(fakes.model().request_count(), 0);
  EXPECT_EQ(sql("SELECT bool_and(llm_model = 'rules') FROM email_log WHERE status = 'completed'"), "t");
  EXPECT_GT(std::stoi(sql("SELECT count(DISTINCT llm_classification) FROM email_log")), 4);
}

TEST_F(ProcessTest, NoMoreThanFourGraphRequestsPerMailboxAtOnce) {
  fakes.graph().seed(kMailbox, 40);
  start({{"LLM_CONCURRENCY", "16"}});
  fakes.graph().set_faults({.latency = std::chrono::milliseconds(20)});
  ASSERT_EQ(process().status, 200u);
  const int most = fakes.graph().stats()["mailboxes"][kMailbox]["most_in_flight"];
  EXPECT_GE(most, 2);
  EXPECT_LE(most, 4);
}

TEST_F(ProcessTest, TheScheduleRunsTheSameJobUntilStopped) {
  fakes.graph().create_mailbox(kMailbox);
  const auto first = add("Printer not working", "a@contoso.example", "help");
  core::testing::IoThreads io(2);
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  core::config::Reader env(environment());
  auto settings = mail_triage::pipeline::read_triage_settings(env);
  settings.interval = std::chrono::milliseconds(50);  // PROCESS_INTERVAL_MINUTES, shortened for the test
  auto triage = std::make_shared<mail_triage::pipeline::Triage>(
      io.executor(), pool, settings, mail_triage::pipeline::make_graph_client(io.executor(), settings));
  const std::weak_ptr<mail_triage::pipeline::Triage> alive = triage;
  triage->start_schedule();
  EXPECT_TRUE(core::testing::eventually([&] { return entry(first).starts_with("completed"); }));
  const auto later = add("VPN not working", "b@contoso.example", "help");  // picked up by a later run
  EXPECT_TRUE(core::testing::eventually([&] { return entry(later).starts_with("completed"); }));
  triage->stop_schedule();
  triage.reset();
  EXPECT_TRUE(core::testing::eventually([&] { return alive.expired(); }));  // the loop has ended
}

TEST_F(ProcessTest, AScheduledServiceStopsPromptly) {
  fakes.graph().create_mailbox(kMailbox);
  start({{"PROCESS_INTERVAL_MINUTES", "1"}});
  // Without the stop hook the pending timer would keep the I/O threads (and this test) waiting.
  std::future<void> stopped = std::async(std::launch::async, [&] { svc.reset(); });
  EXPECT_EQ(stopped.wait_for(std::chrono::seconds(30)), std::future_status::ready);
}

TEST_F(ProcessTest, GraphAndModelSettingsAreCheckedAtStart) {
  auto refused = [&](const std::map<std::string, std::string>& env) {
    try {
      core::testing::RunningService s(mail_triage::definition(), database.url(),
                                      core::config::Environment(env.begin(), env.end()));
      return std::string();
    } catch (const core::config::ConfigError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refused({{"API_KEYS", "k"}, {"GRAPH_TENANT_ID", "t"}}).find("set all four or none"), std::string::npos);
  EXPECT_NE(refused({{"API_KEYS", "k"}, {"CLASSIFIER", "openai"}}).find("CLASSIFIER=openai needs LLM_BASE_URL"),
            std::string::npos);
  EXPECT_EQ(refused({{"API_KEYS", "k"}}), "");  // no Graph at all is allowed: /process answers 503
}

TEST_F(ProcessTest, ModelCallsRunInParallelUpToLlmConcurrency) {
  fakes.graph().seed(kMailbox, 120, 1, true);
  start({{"LLM_CONCURRENCY", "16"}});
  fakes.model().set_faults({.latency = std::chrono::milliseconds(200)});
  const auto res = process();
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["processed"], 120);
  // With 120 slow replies and 16 permits, the permits are all taken at once; the outbound HTTP
  // pool (once 8 threads) must not cap them below LLM_CONCURRENCY, nor may they go above it.
  const int most = fakes.model().requests()["most_in_flight"];
  EXPECT_GT(most, 8);
  EXPECT_LE(most, 16);
}

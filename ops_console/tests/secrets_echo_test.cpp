// No secret in a log line or an answer (issue 31, part 4), vendor by vendor: each fake is switched to
// echo the credential or token it received in its error bodies, in that vendor's error shape and
// followed by 240 KB of filler (sandbox/echo.hpp), and the console's calls to it fail. Then neither
// the log, captured at debug level, nor anything stored in the database (integration_health's last
// error, sync_history, analyses, audits ...) nor any answer (problem+json or not) holds any value the
// fake echoed, or the filler whole; and the echo did reach at least one of them, masked. A test per
// client: the PSA, the distributor, accounting (its token endpoint too), the mail platform (token
// endpoint, photos, usage reports and their downloads, remediation, sendMail), the model, MFA,
// endpoint security and mail security; and the 240 KB body cut to a bounded length in the log line
// and in the stored error.
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr int kFiller = 240'000;                                                // bytes of filler after each echo
constexpr const char* kModelKey = "sk-proj-echoed-model-key-0123456789abcdef";  // the model fake accepts only it
constexpr const char* kEncryptionKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

// What a fake's fault switches add: the credentials it received, quoted in its errors, and the filler.
constexpr sandbox::EchoSwitch kEcho{.credentials = true, .padding = kFiller};

struct SecretsEchoTest : ConsoleTest {
  core::testing::CapturedLog log;  // from the start, before any service
  sandbox::InProcess fakes{{}, {.api_key = kModelKey}};
  std::string boss;
  std::vector<core::testing::HttpResponse> answers;
  std::vector<std::unique_ptr<core::testing::RunningService>> others;  // more instances (other credentials)

  std::map<std::string, std::string> with_debug(std::map<std::string, std::string> env) {
    env["LOG_LEVEL"] = "debug";
    return env;
  }
  void start_console(std::map<std::string, std::string> env) {
    add_user("boss@msp.example", kPassword, true);
    start(with_debug(std::move(env)));
    boss = sign_in("boss@msp.example", kPassword);
  }
  // Another instance over the same database (other credentials), as the signed-in administrator.
  std::uint16_t start_other(std::map<std::string, std::string> env) {
    env = with_debug(std::move(env));
    env.emplace("LOGIN_DELAY_MS", "1");
    others.push_back(std::make_unique<core::testing::RunningService>(
        ops_console::definition(), database.url(), core::config::Environment(env.begin(), env.end())));
    return others.back()->port();
  }
  // Another instance whose credential `variable` is `value`, which the vendor refuses.
  std::uint16_t start_refused(std::map<std::string, std::string> env, const std::string& variable,
                              const std::string& value) {
    env[variable] = value;
    return start_other(std::move(env));
  }
  // A call as the administrator, its answer kept for the check.
  core::testing::HttpResponse ask(const std::string& method, const std::string& path, const json& body = nullptr,
                                  std::uint16_t port = 0) {
    auto res = core::testing::http(port ? port : svc->port(), method, path, body.is_null() ? "" : body.dump(),
                                   {{"Cookie", "ops_session=" + boss}});
    answers.push_back(res);
    return res;
  }
  // Waits until `finished` runs of `entity` are in sync_history and no run is under way (none
  // running, no sync's advisory lock held).
  void wait_for_runs(const std::string& entity, int finished = 1) {
    ASSERT_TRUE(core::testing::eventually(
        [&] {
          return sql("SELECT (SELECT count(*) FROM sync_history WHERE entity_type = '" + entity +
                     "' AND status <> 'running') >= " + std::to_string(finished) +
                     " AND NOT EXISTS (SELECT 1 FROM sync_history WHERE status = 'running') AND NOT EXISTS (SELECT 1 "
                     "FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND "
                     "d.datname = current_database())") == "t";
        },
        std::chrono::seconds(60)));
  }
  // A sync started on the console, whose run fails on the fake's errors; then one on another
  // instance whose credential `variable` the vendor refuses (`refused_value`).
  void sync_fails_then_is_refused(const std::string& route, const std::string& entity,
                                  std::map<std::string, std::string> env, const std::string& variable,
                                  const std::string& refused_value) {
    EXPECT_EQ(ask("POST", route).status, 202u);
    wait_for_runs(entity);
    EXPECT_EQ(ask("POST", route, nullptr, start_refused(std::move(env), variable, refused_value)).status, 202u);
    wait_for_runs(entity, 2);
  }
  // The check (core::testing::expect_no_secret), once `health_key`'s row shows the last failure
  // (written in the background) and the services have stopped (their last lines written).
  void expect_nothing_leaked(const std::string& health_key, const std::vector<std::string>& echoed,
                             const std::vector<std::string>& configured,
                             const std::string& last_failure = "last_error LIKE '%redacted%'") {
    if (!health_key.empty()) ASSERT_TRUE(health_shows(health_key, last_failure)) << health_key;
    svc.reset();
    others.clear();
    core::testing::expect_no_secret(core::testing::said(log.text(), database.url(), answers), echoed, configured);
  }
};

}  // namespace

// Autotask: a refusal of the credentials quotes the Secret and ApiIntegrationCode headers, a 500
// quotes them too; through the classifications sync (502), an incremental sync (sync_history) and
// a second instance whose secret the PSA refuses.
TEST_F(SecretsEchoTest, PsaCredentials) {
  const std::map<std::string, std::string> env = {{"PSA_BASE_URL", fakes.url() + "/autotask/atservicesrest"},
                                                  {"PSA_USERNAME", "api@msp.example"},
                                                  {"PSA_SECRET", "sandbox-secret"},
                                                  {"PSA_INTEGRATION_CODE", "sandbox-integration"},
                                                  {"PSA_SYNC_INTERVAL_MINUTES", "0"}};
  start_console(env);
  fakes.autotask().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("POST", "/api/sync/classifications").status, 502u);
  EXPECT_EQ(ask("POST", "/api/sync/incremental").status, 202u);
  wait_for_runs("Tickets");

  EXPECT_EQ(
      ask("POST", "/api/sync/classifications", nullptr, start_refused(env, "PSA_SECRET", "refused-psa-secret-51d0e2"))
          .status,
      502u);
  expect_nothing_leaked("psa", fakes.autotask().echoed(), {"sandbox-secret", "refused-psa-secret-51d0e2"});
}

// Pax8: the token route's refusal quotes the client secret, an API error the bearer token.
TEST_F(SecretsEchoTest, DistributorCredentialsAndToken) {
  const std::map<std::string, std::string> env = {{"DISTRIBUTOR_BASE_URL", fakes.url() + "/pax8"},
                                                  {"DISTRIBUTOR_CLIENT_ID", "sandbox-distributor"},
                                                  {"DISTRIBUTOR_CLIENT_SECRET", "sandbox-distributor-secret"}};
  start_console(env);
  fakes.pax8().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  sync_fails_then_is_refused("/api/distributor/sync", "distributor", env, "DISTRIBUTOR_CLIENT_SECRET",
                             "refused-distributor-secret-7c1");
  expect_nothing_leaked("distributor", fakes.pax8().echoed(),
                        {"sandbox-distributor-secret", "refused-distributor-secret-7c1"});
}

// Xero: the identity service's refusal of a code quotes the Basic credentials (their base64), the
// client secret, the code and the PKCE verifier; the Accounting API's errors the bearer token.
TEST_F(SecretsEchoTest, AccountingTokenEndpointAndApi) {
  fakes.xero().set_limits({.minute = 0, .day = 0, .concurrent = 0});
  fakes.xero().seed({.seed = 3, .contacts = 2, .months = 1});
  const std::map<std::string, std::string> env = {
      {"ACCOUNTING_CLIENT_ID", "sandbox-accounting"},
      {"ACCOUNTING_CLIENT_SECRET", "sandbox-accounting-secret"},
      {"ACCOUNTING_REDIRECT_URI", "http://127.0.0.1:8081/api/accounting/callback"},
      {"ACCOUNTING_AUTHORIZE_URL", fakes.url() + "/xero/identity/connect/authorize"},
      {"ACCOUNTING_TOKEN_URL", fakes.url() + "/xero/identity/connect/token"},
      {"ACCOUNTING_API_URL", fakes.url() + "/xero/api"},
      {"DATA_ENCRYPTION_KEY", kEncryptionKey}};
  // The consent: the authorize URL, the fake's redirect, the callback on `port`.
  const auto connect = [&](std::uint16_t port) {
    const auto auth = ask("POST", "/api/accounting/auth", nullptr, port);
    EXPECT_EQ(auth.status, 200u) << auth.body;
    const std::string url = auth.json()["authorizeUrl"];
    const auto page = core::testing::http(fakes.port(), "GET", url.substr(fakes.url().size()));
    const std::string location = page.header("location");
    return ask("GET", "/api/accounting/callback" + location.substr(location.find('?')), nullptr, port);
  };
  start_console(env);
  ASSERT_EQ(connect(svc->port()).status, 200u);
  fakes.xero().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("POST", "/api/accounting/sync").status, 202u);
  wait_for_runs("accounting");

  EXPECT_EQ(connect(start_refused(env, "ACCOUNTING_CLIENT_SECRET", "refused-accounting-secret-3b9")).status, 502u);
  expect_nothing_leaked("accounting", fakes.xero().echoed(),
                        {"sandbox-accounting-secret", "refused-accounting-secret-3b9",
                         core::base64("sandbox-accounting:refused-accounting-secret-3b9")},
                        "last_error LIKE '%invalid_client: (received: Authorization=[redacted]%'");
}

// Microsoft Graph: the token endpoint's refusal quotes the client secret; the API's errors the
// bearer token (a photo, the usage report, a remediation move); a failed report download its
// pre-authenticated URL's token.
TEST_F(SecretsEchoTest, MailPlatformTokenEndpointPhotosReportsAndRemediation) {
  fakes.graph().set_photo("adele@msp.example", "image/png", "\x89PNG-not-really");
  fakes.graph().create_mailbox("victim@msp.example");
  const std::map<std::string, std::string> env = {
      {"GRAPH_LOGIN_URL", fakes.url()},
      {"GRAPH_BASE_URL", fakes.url()},
      {"GRAPH_TENANT_ID", "contoso-tenant"},
      {"GRAPH_CLIENT_ID", "sandbox-client"},
      {"GRAPH_CLIENT_SECRET", "sandbox-secret"}};  // the usage pull runs at start
  fakes.graph().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  start_console(env);
  wait_for_runs("mailplatform");
  EXPECT_EQ(ask("GET", "/api/mobile/engagement/user/adele@msp.example/photo").status, 502u);
  const auto moved = ask("POST", "/api/mailsec/mailbox-remediate",
                         {{"action", "move"}, {"mailbox", "victim@msp.example"}, {"messageIds", {"AAMkAGI2-some-id"}}});
  EXPECT_EQ(moved.status, 200u) << moved.body.substr(0, 300);

  // The report is answered, its download fails (and is retried: every attempt fails).
  fakes.graph().set_faults({.download_errors = 100, .echo = kEcho});
  start_other(env);
  wait_for_runs("mailplatform", 2);
  EXPECT_GT(fakes.graph().stats()["downloads"].get<int>(), 0);

  auto no_pull = env;
  no_pull["MAILPLATFORM_USAGE_MINUTES"] = "0";
  const auto refused = start_refused(no_pull, "GRAPH_CLIENT_SECRET", "refused-graph-secret-9e44");
  EXPECT_EQ(ask("GET", "/api/mobile/engagement/user/adele@msp.example/photo", nullptr, refused).status, 502u);
  expect_nothing_leaked("mailplatform", fakes.graph().echoed(), {"sandbox-secret", "refused-graph-secret-9e44"},
                        "last_error LIKE '%token request%'");
}

// The model: a 500 quotes the key in full (as a proxy might), so does the 401 of a key it refuses;
// through failed analyses; and sendMail's failure (the analysis shared) quotes the bearer token.
TEST_F(SecretsEchoTest, ModelKeyAndSendMail) {
  sql("INSERT INTO companies (id, company_name) VALUES (1, 'Contoso')");
  sql("INSERT INTO tickets (id, ticket_number, title, description, status, priority, queue_id, company_id, "
      "issue_type, create_date) VALUES (101, 'T101', 'Laptop will not boot', 'Black screen.', 1, 1, 8, 1, 4, now()), "
      "(102, 'T102', 'Mailbox full', 'Outlook says so.', 1, 2, 8, 1, 5, now()), "
      "(103, 'T103', 'Printer jams', 'Every page.', 1, 2, 8, 1, 4, now())");
  fakes.graph().create_mailbox("helpdesk@msp.example");
  const std::map<std::string, std::string> env = {{"LLM_BASE_URL", fakes.url()},
                                                  {"LLM_API_KEY", kModelKey},
                                                  {"ANALYZER_POLL_MS", "100"},
                                                  {"GRAPH_LOGIN_URL", fakes.url()},
                                                  {"GRAPH_BASE_URL", fakes.url()},
                                                  {"GRAPH_TENANT_ID", "contoso-tenant"},
                                                  {"GRAPH_CLIENT_ID", "sandbox-client"},
                                                  {"GRAPH_CLIENT_SECRET", "sandbox-secret"},
                                                  {"MAIL_SENDER", "helpdesk@msp.example"},
                                                  {"MAILPLATFORM_USAGE_MINUTES", "0"}};
  const auto analysed = [&](const std::string& ticket) {
    return core::testing::eventually(
        [&] {
          return sql("SELECT count(*) FROM analyses WHERE ticket_id = " + ticket + " AND status <> 'running'") != "0";
        },
        std::chrono::seconds(30));
  };
  start_console(env);
  fakes.model().set_faults({.fail = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("POST", "/api/analyzer/analyze", {{"ticketIds", {101}}}).status, 202u);
  ASSERT_TRUE(analysed("101"));
  fakes.model().set_faults({});
  EXPECT_EQ(ask("POST", "/api/analyzer/analyze", {{"ticketIds", {102}}}).status, 202u);
  ASSERT_TRUE(analysed("102"));
  fakes.graph().set_faults({.send_fail_status = 503, .send_fail_code = "ServiceUnavailable", .echo = kEcho});
  const auto shared =
      ask("POST", "/api/analyzer/analyses/" + sql("SELECT id FROM analyses WHERE ticket_id = 102") + "/share",
          {{"recipients", {"lead@msp.example"}}});
  EXPECT_EQ(shared.status, 200u) << shared.body.substr(0, 300);

  // A key the model refuses: its 401 quotes it. This instance alone runs the analyzer's worker.
  svc.reset();
  fakes.model().set_faults({.echo = kEcho});
  const auto refused = start_refused(env, "LLM_API_KEY", "sk-proj-refused-model-key-fedcba9876543210");
  EXPECT_EQ(ask("POST", "/api/analyzer/analyze", {{"ticketIds", {103}}}, refused).status, 202u);
  ASSERT_TRUE(analysed("103"));
  EXPECT_EQ(sql("SELECT string_agg(status, ',' ORDER BY ticket_id) FROM analyses"), "failed,succeeded,failed");
  expect_nothing_leaked("", fakes.model().echoed(), {kModelKey, "sk-proj-refused-model-key-fedcba9876543210"});
}

// Duo: a refused signature, a failing child account (its error in a 200 answer) and a server error
// quote the Authorization header (base64 of the integration key and this request's signature).
TEST_F(SecretsEchoTest, MfaSignedCredentials) {
  fakes.duo().seed({.seed = 1, .children = 1, .users = 10});
  const std::map<std::string, std::string> env = {{"MFA_BASE_URL", fakes.url() + "/duo"},
                                                  {"MFA_INTEGRATION_KEY", fakes.duo().options().ikey},
                                                  {"MFA_SECRET_KEY", fakes.duo().options().skey},
                                                  {"MFA_CACHE_SECONDS", "0"}};
  start_console(env);
  fakes.duo().set_faults({.echo = kEcho});
  ASSERT_TRUE(fakes.duo().set_account_failing(fakes.duo().accounts()[1]["account_id"], 403));
  const auto partial = ask("GET", "/api/mfa/users/flagged");
  EXPECT_EQ(partial.status, 200u) << partial.body.substr(0, 300);
  EXPECT_NE(partial.body.find("[redacted]"), std::string::npos) << partial.body.substr(0, 600);
  fakes.duo().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("GET", "/api/mfa/users/flagged").status, 502u);

  fakes.duo().set_faults({.echo = kEcho});
  const auto refused = start_refused(env, "MFA_SECRET_KEY", "refused-duo-secret-key-000000000000000000");
  EXPECT_EQ(ask("GET", "/api/mfa/status", nullptr, refused).status, 502u);
  expect_nothing_leaked("mfa", fakes.duo().echoed(),
                        {fakes.duo().options().skey, "refused-duo-secret-key-000000000000000000"});
}

// SentinelOne: a 401 and a server error quote the ApiToken.
TEST_F(SecretsEchoTest, EndpointSecurityToken) {
  const std::map<std::string, std::string> env = {{"ENDPOINTSEC_BASE_URL", fakes.url() + "/sentinelone/web/api/v2.1"},
                                                  {"ENDPOINTSEC_API_TOKEN", fakes.sentinelone().options().token}};
  start_console(env);
  fakes.sentinelone().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  sync_fails_then_is_refused("/api/endpointsec/sync", "endpointsec", env, "ENDPOINTSEC_API_TOKEN",
                             "refused-endpointsec-token-2a7f");
  expect_nothing_leaked("endpointsec", fakes.sentinelone().echoed(),
                        {fakes.sentinelone().options().token, "refused-endpointsec-token-2a7f"});
}

// Datto BCDR: a 401 and a server error quote the public and the secret key (HTTP Basic).
TEST_F(SecretsEchoTest, BackupKeys) {
  const std::map<std::string, std::string> env = {{"BACKUP_BASE_URL", fakes.url() + "/datto/v1/bcdr"},
                                                  {"BACKUP_PUBLIC_KEY", fakes.datto().options().public_key},
                                                  {"BACKUP_SECRET_KEY", fakes.datto().options().secret_key},
                                                  {"BACKUP_SYNC_MINUTES", "0"}};
  start_console(env);
  fakes.datto().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  sync_fails_then_is_refused("/api/backup/sync", "backup", env, "BACKUP_SECRET_KEY", "refused-backup-secret-9c1e");
  expect_nothing_leaked("backup", fakes.datto().echoed(),
                        {fakes.datto().options().secret_key, "refused-backup-secret-9c1e"});
}

// Tactical RMM: a refused X-API-KEY is quoted in the 401's detail, a server error quotes it too; through
// the sync (sync_history), a second instance whose key Tactical refuses, and a script execution whose
// run-script call fails (its stored error).
TEST_F(SecretsEchoTest, RemoteManagementKey) {
  const std::map<std::string, std::string> env = {{"RMM_BASE_URL", fakes.url() + "/tacticalrmm"},
                                                  {"RMM_API_KEY", fakes.tacticalrmm().options().key}};
  start_console(env);
  fakes.tacticalrmm().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  sync_fails_then_is_refused("/api/rmm/sync", "rmm", env, "RMM_API_KEY", "refused-rmm-key-5c1d");
  sql("INSERT INTO rmm_executions (device, script, agent_id, script_id) VALUES ('pc', 'x', '" +
      fakes.tacticalrmm().agents()[0]["agent_id"].get<std::string>() + "', 1)");
  ASSERT_TRUE(core::testing::eventually([&] { return sql("SELECT status FROM rmm_executions") == "failed"; },
                                        std::chrono::seconds(20)));
  expect_nothing_leaked("rmm", fakes.tacticalrmm().echoed(),
                        {fakes.tacticalrmm().options().key, "refused-rmm-key-5c1d"});
}

// Cloudflare Access: a 401 and a server error quote the bearer token; the sync route is public.
TEST_F(SecretsEchoTest, AccessGatewayToken) {
  const std::map<std::string, std::string> env = {
      {"ACCESS_GATEWAY_BASE_URL", fakes.url() + "/cloudflare/client/v4"},
      {"ACCESS_GATEWAY_ACCOUNT_ID", fakes.cloudflare().options().account_id},
      {"ACCESS_GATEWAY_API_TOKEN", fakes.cloudflare().options().token}};
  start_console(env);
  fakes.cloudflare().seed({});
  fakes.cloudflare().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  sync_fails_then_is_refused("/api/access-gateway/sync", "access_gateway", env, "ACCESS_GATEWAY_API_TOKEN",
                             "refused-access-gateway-token-91c3");
  expect_nothing_leaked("access_gateway", fakes.cloudflare().echoed(),
                        {fakes.cloudflare().options().token, "refused-access-gateway-token-91c3"});
}

// Mimecast: the token route's refusal quotes the client secret, an API error the bearer token.
TEST_F(SecretsEchoTest, MailSecurityCredentialsAndToken) {
  const std::map<std::string, std::string> env = {{"MAILSEC_BASE_URL", fakes.url() + "/mimecast"},
                                                  {"MAILSEC_CLIENT_ID", "sandbox-mailsec"},
                                                  {"MAILSEC_CLIENT_SECRET", "sandbox-mailsec-secret"},
                                                  {"MAILSEC_COUNTS_MINUTES", "0"}};
  start_console(env);
  fakes.mimecast().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("GET", "/api/mailsec/held").status, 502u);

  fakes.mimecast().set_faults({.echo = kEcho});
  const auto refused = start_refused(env, "MAILSEC_CLIENT_SECRET", "refused-mailsec-secret-64d2");
  EXPECT_EQ(ask("GET", "/api/mailsec/held", nullptr, refused).status, 502u);
  expect_nothing_leaked("mailsec", fakes.mimecast().echoed(),
                        {"sandbox-mailsec-secret", "refused-mailsec-secret-64d2"});
}

// A 240 KB error body (the photo request whose 500 echoes the bearer token): the warning
// line, the stored error and the answer are each cut to a few kilobytes, masked, saying how much
// was cut.
TEST_F(SecretsEchoTest, AHugeErrorBodyIsCutInTheLogLineAndTheStoredError) {
  fakes.graph().set_photo("adele@msp.example", "image/png", "\x89PNG-not-really");
  start_console({{"GRAPH_LOGIN_URL", fakes.url()},
                 {"GRAPH_BASE_URL", fakes.url()},
                 {"GRAPH_TENANT_ID", "contoso-tenant"},
                 {"GRAPH_CLIENT_ID", "sandbox-client"},
                 {"GRAPH_CLIENT_SECRET", "sandbox-secret"},
                 {"MAILPLATFORM_USAGE_MINUTES", "0"}});
  fakes.graph().set_faults({.server_errors = 1000, .status = 500, .echo = kEcho});
  EXPECT_EQ(ask("GET", "/api/mobile/engagement/user/adele@msp.example/photo").status, 502u);
  ASSERT_TRUE(health_shows("mailplatform", "last_error IS NOT NULL"));
  const std::string stored = sql("SELECT last_error FROM integration_health WHERE key = 'mailplatform'");
  svc.reset();
  const std::string logged = log.text();

  std::string warning;
  for (const auto line : core::split(logged, '\n'))
    if (line.find("the mail platform did not supply a photo") != std::string_view::npos) warning = line;
  ASSERT_FALSE(warning.empty()) << logged.substr(0, 2000);
  EXPECT_LT(warning.size(), 4096u) << warning.substr(0, 300);
  EXPECT_NE(warning.find("[redacted]"), std::string::npos) << warning.substr(0, 600);
  EXPECT_NE(warning.find("bytes more)"), std::string::npos) << warning.substr(0, 600);
  EXPECT_LT(stored.size(), 2200u);
  EXPECT_NE(stored.find("[redacted]"), std::string::npos) << stored.substr(0, 600);
  for (const auto& value : fakes.graph().echoed()) {
    EXPECT_EQ(warning.find(value), std::string::npos) << value;
    EXPECT_EQ(stored.find(value), std::string::npos) << value;
  }
}

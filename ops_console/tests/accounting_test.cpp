// The accounting connection and copy (issue 19) against the Xero fake: the consent (state, PKCE,
// a replayed or foreign state), the sealed tokens, the refresh under two concurrent callers, a
// refused refresh token, the sync (paging, If-Modified-Since, 429), disconnect, the finance
// figures with the spec's day-boundary rules, and the routes' state table.
#include "core/db/pool.hpp"
#include "core/http/query.hpp"
#include "core/util/secret_box.hpp"
#include "ops_console/accounting/connection.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr const char* kKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
constexpr const char* kTenantName = "Northwind IT Services (Demo)";

struct AccountingTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss, tech;  // an administrator, a plain user

  void SetUp() override { fakes.xero().set_limits({.minute = 0, .day = 0, .concurrent = 0}); }

  std::map<std::string, std::string> accounting_env() {
    return {{"ACCOUNTING_CLIENT_ID", "sandbox-accounting"},
            {"ACCOUNTING_CLIENT_SECRET", "sandbox-accounting-secret"},
            {"ACCOUNTING_REDIRECT_URI", "http://127.0.0.1:8081/api/accounting/callback"},
            {"ACCOUNTING_AUTHORIZE_URL", fakes.url() + "/xero/identity/connect/authorize"},
            {"ACCOUNTING_TOKEN_URL", fakes.url() + "/xero/identity/connect/token"},
            {"ACCOUNTING_API_URL", fakes.url() + "/xero/api"},
            {"DATA_ENCRYPTION_KEY", kKey}};
  }
  void start_accounting(std::map<std::string, std::string> env) {
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  void start_accounting() { start_accounting(accounting_env()); }

  json get(const std::string& path, const std::string& token = "") {
    const auto res = call("GET", path, nullptr, token.empty() ? boss : token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  // POST /api/accounting/auth, then the consent page: the callback target it sends the browser to.
  std::string consent(const std::string& token) {
    const auto res = call("POST", "/api/accounting/auth", nullptr, token);
    EXPECT_EQ(res.status, 200u) << res.body;
    const std::string url = res.json()["authorizeUrl"];
    const auto page = core::testing::http(fakes.port(), "GET", url.substr(fakes.url().size()));
    EXPECT_EQ(page.status, 302u) << page.body;
    const std::string location = page.header("location");
    return "/api/accounting/callback" + location.substr(location.find('?'));
  }
  void connect() {
    const auto res = call("GET", consent(boss), nullptr, boss);
    ASSERT_EQ(res.status, 200u) << res.body;
  }
  void sync(bool full = false) {
    const auto res = call("POST", "/api/accounting/sync", {{"full", full}}, boss);
    ASSERT_EQ(res.status, 202u) << res.body;
    ASSERT_TRUE(core::testing::eventually([&] { return get("/api/accounting/status")["inProgress"] == false; },
                                          std::chrono::seconds(60)));
  }
  std::int64_t stat(const std::string& name) { return fakes.xero().stats()[name].get<std::int64_t>(); }
  std::size_t fake_rows(const std::string& kind, const std::string& field, const std::string& value) {
    std::size_t n = 0;
    for (const auto& row : fakes.xero().rows(kind)) n += row.value(field, "") == value;
    return n;
  }
};

std::map<std::string, std::string> query_of(const std::string& target) {
  std::map<std::string, std::string> out;
  const auto parsed = core::http::parse_query(target.substr(target.find('?') + 1));
  EXPECT_TRUE(parsed.has_value());
  for (const auto& [k, v] : parsed->items()) out[std::string(k)] = std::string(v);
  return out;
}

}  // namespace

TEST_F(AccountingTest, ConnectingStoresTheOrganisationWithItsTokensSealed) {
  start_accounting();
  const auto auth = call("POST", "/api/accounting/auth", nullptr, boss);
  ASSERT_EQ(auth.status, 200u) << auth.body;
  const std::string url = auth.json()["authorizeUrl"];
  ASSERT_TRUE(url.starts_with(fakes.url() + "/xero/identity/connect/authorize?")) << url;
  const auto q = query_of(url);
  EXPECT_EQ(q.at("response_type"), "code");
  EXPECT_EQ(q.at("client_id"), "sandbox-accounting");
  EXPECT_EQ(q.at("redirect_uri"), "http://127.0.0.1:8081/api/accounting/callback");
  EXPECT_NE(q.at("scope").find("offline_access"), std::string::npos);
  EXPECT_EQ(q.at("code_challenge_method"), "S256");
  EXPECT_EQ(q.at("code_challenge").size(), 43u);  // base64url of a SHA-256, unpadded
  EXPECT_GE(q.at("state").size(), 43u);
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_auth_states WHERE state_hash = encode(sha256('" + q.at("state") +
                "'), 'hex')"),
            "1");  // only the state's hash is kept

  EXPECT_EQ(call("POST", "/api/accounting/auth", nullptr, tech).status, 403u);  // admins only
  const std::string target = consent(boss);
  EXPECT_EQ(call("GET", target, nullptr, tech).status, 403u);
  const auto done = call("GET", target, nullptr, boss);
  ASSERT_EQ(done.status, 200u) << done.body;
  EXPECT_EQ(done.json()["connected"], true);
  EXPECT_EQ(done.json()["tenantName"], kTenantName);
  EXPECT_EQ(done.json()["tenantId"], fakes.xero().options().tenant_id);

  // Sealed: neither token is stored as Xero issued it (its access tokens are JWTs, "eyJ...").
  EXPECT_EQ(sql("SELECT access_token LIKE 'v1.%' AND refresh_token LIKE 'v1.%' AND access_token NOT LIKE '%eyJ%' "
                "AND access_expires_at > now() + interval '25 minutes' FROM accounting_connection"),
            "t");
  EXPECT_EQ(stat("codes_redeemed"), 1);
  EXPECT_EQ(fakes.xero().connections().size(), 1u);
  const json status = get("/api/accounting/status", tech);
  EXPECT_EQ(status["configured"], true);
  EXPECT_EQ(status["connected"], true);
  EXPECT_EQ(status["needsReconnect"], false);
  EXPECT_TRUE(status["lastSync"].is_null());
}

// Bad, replayed, expired or another session's state: 400, the state spent, nothing stored.
TEST_F(AccountingTest, ABadReplayedExpiredOrForeignStateIs400AndStoresNothing) {
  start_accounting();
  add_user("other-boss@msp.example", kPassword, true);
  const std::string other = sign_in("other-boss@msp.example", kPassword);
  const auto refused = [&](const std::string& target, const std::string& token, const std::string& field) {
    const auto res = call("GET", target, nullptr, token);
    EXPECT_EQ(res.status, 400u) << target << ": " << res.body;
    if (res.status == 400u) EXPECT_EQ(res.json()["errors"][0]["field"], field) << res.body;
  };

  const std::string foreign = consent(boss);
  refused(foreign, other, "state");  // another administrator's session
  refused(foreign, boss, "state");   // and now spent
  refused("/api/accounting/callback?code=abc", boss, "state");
  refused("/api/accounting/callback?code=abc&state=made-up", boss, "state");
  const std::string stale = consent(boss);
  sql("UPDATE accounting_auth_states SET expires_at = now() - interval '1 second'");
  refused(stale, boss, "state");
  fakes.xero().set_faults({.deny_authorizations = 1});  // the user says no at the consent page
  refused(consent(boss), boss, "error");
  const std::string state_only = consent(boss);
  refused(state_only.substr(0, state_only.find('?')) + "?state=" + query_of(state_only).at("state"), boss, "code");
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_connection"), "0");
  EXPECT_EQ(stat("codes_redeemed"), 0);

  const std::string good = consent(boss);
  ASSERT_EQ(call("GET", good, nullptr, boss).status, 200u);
  const std::string connected_at = sql("SELECT connected_at FROM accounting_connection");
  refused(good, boss, "state");  // replayed after it worked
  EXPECT_EQ(sql("SELECT connected_at FROM accounting_connection"), connected_at);
  EXPECT_EQ(stat("codes_redeemed"), 1);
}

// A browser the consent page sends back (it asks for HTML) lands on the web UI's accounting page
// with the outcome in the fragment's query; a refusal names its field and detail there, and
// stores nothing. An API client keeps the JSON answers (the tests above).
TEST_F(AccountingTest, ABrowserIsSentBackToTheAccountingPageWithTheOutcome) {
  start_accounting();
  const std::map<std::string, std::string> browser = {
      {"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}};
  const auto location = [](const core::testing::HttpResponse& res) { return std::string(res.header("location")); };

  fakes.xero().set_faults({.deny_authorizations = 1});  // the user says no at the consent page
  const auto denied = call("GET", consent(boss), nullptr, boss, browser);
  EXPECT_EQ(denied.status, 303u) << denied.body;
  EXPECT_TRUE(location(denied).starts_with("/#/distributor/accounting?error=error&detail=")) << location(denied);
  const auto replayed = call("GET", "/api/accounting/callback?code=abc&state=made-up", nullptr, boss, browser);
  EXPECT_EQ(replayed.status, 303u);
  EXPECT_TRUE(location(replayed).starts_with("/#/distributor/accounting?error=state&detail=")) << location(replayed);
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_connection"), "0");

  EXPECT_EQ(call("GET", consent(boss), nullptr, tech, browser).status, 403u);  // access first, as for any client
  const auto done = call("GET", consent(boss), nullptr, boss, browser);
  EXPECT_EQ(done.status, 303u) << done.body;
  EXPECT_EQ(location(done), "/#/distributor/accounting?connected=1");
  EXPECT_EQ(done.header("cache-control"), "no-store");
  EXPECT_EQ(get("/api/accounting/status")["connected"], true);
}

// Two instances find the access token expired at once: one refreshes, the other waits and uses
// what it stored. With Xero's grace period off, a second refresh with the old token would be
// refused and the connection lost.
TEST_F(AccountingTest, TwoConcurrentCallersRefreshOnceAndBothUseTheNewToken) {
  start_accounting();
  connect();
  fakes.xero().set_token_settings({.refresh_grace = std::chrono::seconds(0)});
  fakes.xero().set_faults({.latency = std::chrono::milliseconds(0)});
  sql("UPDATE accounting_connection SET access_expires_at = now() - interval '1 minute'");
  const std::int64_t before = stat("refreshes");

  core::testing::IoThreads io(2);
  auto env = accounting_env();
  core::config::Environment environment(env.begin(), env.end());
  core::config::Reader reader(environment);
  const auto settings = ops_console::accounting::read_accounting_settings(reader);
  core::db::Pool first_db(io.executor(), {.conninfo = database.url(), .max_size = 2});
  core::db::Pool second_db(io.executor(), {.conninfo = database.url(), .max_size = 2});
  const ops_console::integrations::Health health(first_db, io.executor());
  ops_console::accounting::AccountingConnection first(
      first_db, std::make_shared<ops_console::accounting::XeroClient>(io.executor(), settings, health));
  ops_console::accounting::AccountingConnection second(
      second_db, std::make_shared<ops_console::accounting::XeroClient>(io.executor(), settings, health));
  auto a = std::async(std::launch::async, [&] { return io.run(first.access()); });
  auto b = std::async(std::launch::async, [&] { return io.run(second.access()); });
  const auto got_a = a.get(), got_b = b.get();

  EXPECT_EQ(stat("refreshes") - before, 1);
  EXPECT_TRUE(health_shows("accounting", "calls > 0 AND last_success_at IS NOT NULL"));  // the refresh, recorded
  EXPECT_EQ(got_a.token, got_b.token);
  EXPECT_EQ(got_a.tenant_id, fakes.xero().options().tenant_id);
  EXPECT_EQ(sql("SELECT refreshes || ' ' || (needs_reconnect IS NULL) FROM accounting_connection"), "1 true");
  // The stored refresh token is the newest: the next refresh works.
  sql("UPDATE accounting_connection SET access_expires_at = now() - interval '1 minute'");
  const auto again = io.run(first.access());
  EXPECT_NE(again.token, got_a.token);
  EXPECT_EQ(stat("refreshes") - before, 2);
  EXPECT_EQ(stat("refused_refresh_tokens"), 0);
  first_db.close();
  second_db.close();
}

// Xero refuses the refresh token: the connection says so, the sync route answers 409, and a
// disconnect still clears it.
TEST_F(AccountingTest, ARefusedRefreshTokenAsksForANewConnection) {
  start_accounting();
  connect();
  fakes.xero().set_token_settings({.refresh_lifetime = std::chrono::seconds(0)});  // refresh tokens expired
  sql("UPDATE accounting_connection SET access_expires_at = now() - interval '1 minute'");
  sync();
  const json status = get("/api/accounting/status");
  EXPECT_EQ(status["needsReconnect"], true);
  EXPECT_EQ(status["lastSync"]["status"], "failed");
  EXPECT_NE(status["lastSync"]["error"].get<std::string>().find("connect again"), std::string::npos);
  const auto again = call("POST", "/api/accounting/sync", nullptr, boss);
  EXPECT_EQ(again.status, 409u) << again.body;
  const auto gone = call("POST", "/api/accounting/disconnect", nullptr, boss);
  ASSERT_EQ(gone.status, 200u) << gone.body;
  EXPECT_EQ(gone.json()["removedUpstream"], false);
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_connection"), "0");
}

// Also: no token, client secret or key reaches a log line (at debug) or an answer.
TEST_F(AccountingTest, ASyncCopiesReceivablesReceiptsAndContactsThenOnlyWhatChanged) {
  fakes.xero().seed({.seed = 7, .contacts = 12, .months = 14});
  const std::size_t receivables = fake_rows("Invoices", "Type", "ACCREC");
  ASSERT_GT(receivables, 100u);  // more than one page
  core::testing::CapturedLog captured;
  auto logged_env = accounting_env();
  logged_env["LOG_LEVEL"] = "debug";
  start_accounting(logged_env);
  connect();

  auto env = accounting_env();
  core::testing::RunningService other(ops_console::definition(), database.url(),
                                      core::config::Environment(env.begin(), env.end()));
  fakes.xero().set_faults({.latency = std::chrono::milliseconds(100)});  // a run takes a while
  ASSERT_EQ(call("POST", "/api/accounting/sync", nullptr, boss).status, 202u);
  const auto second =
      core::testing::http(other.port(), "POST", "/api/accounting/sync", "", {{"Cookie", "ops_session=" + boss}});
  EXPECT_EQ(second.status, 409u) << second.body;
  EXPECT_EQ(get("/api/accounting/status")["inProgress"], true);
  fakes.xero().set_faults({});
  ASSERT_TRUE(core::testing::eventually([&] { return get("/api/accounting/status")["inProgress"] == false; },
                                        std::chrono::seconds(60)));

  json status = get("/api/accounting/status");
  EXPECT_EQ(status["counts"]["invoices"], receivables);
  EXPECT_EQ(status["counts"]["payments"], fake_rows("Payments", "PaymentType", "ACCRECPAYMENT"));
  EXPECT_EQ(status["counts"]["contacts"], fakes.xero().rows("Contacts").size());
  EXPECT_EQ(status["baseCurrency"], "GBP");
  EXPECT_EQ(status["lastSync"]["entityType"], "accounting");
  EXPECT_EQ(status["lastSync"]["kind"], "full");
  EXPECT_EQ(status["lastSync"]["status"], "succeeded");
  // Every call of the run moved the accounting integration's health row.
  EXPECT_TRUE(health_shows("accounting", "calls > 0 AND last_success_at IS NOT NULL"));

  // Field by field, one partly paid invoice.
  json invoice;
  for (const auto& row : fakes.xero().rows("Invoices"))
    if (row["Type"] == "ACCREC" && row["Status"] == "AUTHORISED") invoice = row;
  ASSERT_FALSE(invoice.is_null());
  const std::string id = invoice["InvoiceID"];
  EXPECT_EQ(sql("SELECT number || ' ' || status || ' ' || due_date || ' ' || amount_due || ' ' || contact_name FROM "
                "accounting_invoices WHERE id = '" +
                id + "'"),
            invoice["InvoiceNumber"].get<std::string>() + " AUTHORISED " +
                invoice["DueDateString"].get<std::string>().substr(0, 10) + " " +
                sql("SELECT " + invoice["AmountDue"].dump() + "::numeric") + " " +
                invoice["Contact"]["Name"].get<std::string>());

  // Then only what changed since, asked with If-Modified-Since; a 429 on the way is waited out,
  // and the access token, expired meanwhile, is refreshed.
  fakes.xero().touch_invoice(id, {.pay = invoice["AmountDue"].get<double>()});
  fakes.xero().set_faults({.throttle = 1, .retry_after = 1});
  sql("UPDATE accounting_connection SET access_expires_at = now() - interval '1 minute'");
  sync();
  status = get("/api/accounting/status");
  EXPECT_EQ(sql("SELECT refreshes FROM accounting_connection"), "1");
  EXPECT_EQ(status["lastSync"]["kind"], "incremental");
  EXPECT_EQ(status["lastSync"]["status"], "succeeded") << status["lastSync"];
  EXPECT_TRUE(status["lastSync"]["counts"]["modifiedSince"].contains("Invoices"));
  EXPECT_GE(status["lastSync"]["counts"]["Invoices"].get<int>(), 1);
  EXPECT_LT(status["lastSync"]["counts"]["Invoices"].get<std::size_t>(), receivables / 10);
  EXPECT_EQ(sql("SELECT status || ' ' || (amount_due = 0) FROM accounting_invoices WHERE id = '" + id + "'"),
            "PAID true");
  EXPECT_EQ(status["counts"]["payments"], fake_rows("Payments", "PaymentType", "ACCRECPAYMENT"));
  EXPECT_EQ(stat("throttled"), 1);

  const auto box = core::SecretBox::from_base64(kKey);
  ASSERT_TRUE(box);
  const auto access = box->unseal(sql("SELECT access_token FROM accounting_connection"));
  const auto refresh = box->unseal(sql("SELECT refresh_token FROM accounting_connection"));
  ASSERT_TRUE(access && refresh);
  const std::string answers = status.dump() + get("/api/accounting/summary").dump();
  svc.reset();  // its last lines written
  const std::string log = captured.text();
  EXPECT_NE(log.find("accounting organisation connected"), std::string::npos);
  for (const std::string& secret :
       {*access, *refresh, std::string("sandbox-accounting-secret"), std::string(kKey), std::string("eyJ")}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret;
    EXPECT_EQ(answers.find(secret), std::string::npos) << secret;
  }
}

TEST_F(AccountingTest, DisconnectRemovesTheConnectionAtXeroAndKeepsTheCopy) {
  fakes.xero().seed({.seed = 3, .contacts = 6, .months = 3});
  start_accounting();
  connect();
  sync();
  const std::string invoices = sql("SELECT count(*) FROM accounting_invoices");
  ASSERT_NE(invoices, "0");
  EXPECT_EQ(call("POST", "/api/accounting/disconnect", nullptr, tech).status, 403u);
  const auto gone = call("POST", "/api/accounting/disconnect", nullptr, boss);
  ASSERT_EQ(gone.status, 200u) << gone.body;
  EXPECT_EQ(gone.json()["removedUpstream"], true);
  EXPECT_TRUE(fakes.xero().connections().empty());
  EXPECT_EQ(stat("disconnections"), 1);
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_connection"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_invoices"), invoices);
  EXPECT_EQ(get("/api/accounting/status")["connected"], false);
  EXPECT_EQ(get("/api/accounting/summary")["configured"], false);
  EXPECT_EQ(call("POST", "/api/accounting/sync", nullptr, boss).status, 409u);
  EXPECT_EQ(call("POST", "/api/accounting/disconnect", nullptr, boss).status, 409u);
}

// The day-boundary rules on a fixed instant: 02:00 UTC on 1 March 2026 is still 28 February in
// New York (rule 3: the instant goes to the zone directly); the revenue months follow UTC (rule 4).
TEST_F(AccountingTest, TheFinanceFiguresFollowTheDayBoundaryRules) {
  start_accounting();
  const std::string tenant = "6c7d5a2e-3b1f-4e8a-9d0c-52f1b7e4a913";
  sql("INSERT INTO accounting_connection (connection_id, tenant_id, tenant_name, base_currency, access_token, "
      "refresh_token, access_expires_at) VALUES (gen_random_uuid(), '" +
      tenant + "', 'Books', 'GBP', 'v1.x', 'v1.y', now())");
  const auto payment = [&](const std::string& date, const std::string& amount, const std::string& type,
                           const std::string& status = "AUTHORISED") {
    sql("INSERT INTO accounting_payments (tenant_id, id, payment_type, status, payment_date, amount) VALUES ('" +
        tenant + "', gen_random_uuid(), '" + type + "', '" + status + "', '" + date + "', " + amount + ")");
  };
  payment("2026-02-27", "100", "ACCRECPAYMENT");  // this month in New York
  payment("2026-02-28", "5", "ACCRECPAYMENT");
  payment("2026-02-28", "1000", "ACCPAYPAYMENT");  // paid out, not received
  payment("2026-02-28", "77", "ACCRECPAYMENT", "DELETED");
  payment("2026-03-01", "40", "ACCRECPAYMENT");  // March in UTC, the future in New York
  payment("2026-01-05", "20", "ACCRECPAYMENT");  // this year
  payment("2025-12-31", "9", "ACCRECPAYMENT");   // last year
  // Open receivables due so many days before 2026-02-28.
  for (const int days : {-3, 0, 1, 30, 31, 60, 61, 90, 91, 120, 121, 400})
    sql("INSERT INTO accounting_invoices (tenant_id, id, number, type, status, invoice_date, due_date, amount_due, "
        "total, sub_total) VALUES ('" +
        tenant + "', gen_random_uuid(), 'INV-" + std::to_string(days) +
        "', 'ACCREC', 'AUTHORISED', date '2025-01-01', date '2026-02-28' - " + std::to_string(days) + ", 10, 10, 0)");
  sql("INSERT INTO accounting_invoices (tenant_id, id, type, status, due_date, amount_due) VALUES ('" + tenant +
      "', gen_random_uuid(), 'ACCREC', 'DRAFT', date '2025-01-01', 999)");  // a draft is not owed yet
  // Revenue before tax: March 2026 (UTC) is the last month, April 2025 the first.
  const auto revenue = [&](const std::string& date, const std::string& status, const std::string& sub_total,
                           const std::string& rate = "1") {
    sql("INSERT INTO accounting_invoices (tenant_id, id, type, status, invoice_date, due_date, sub_total, total, "
        "amount_due, currency_rate) VALUES ('" +
        tenant + "', gen_random_uuid(), 'ACCREC', '" + status + "', '" + date + "', '" + date + "', " + sub_total +
        ", " + sub_total + " * 1.2, 0, " + rate + ")");
  };
  revenue("2026-03-01", "PAID", "300");
  revenue("2026-02-10", "PAID", "200");
  revenue("2026-02-11", "PAID", "100", "2");  // another currency: 50 in the organisation's
  revenue("2026-02-12", "VOIDED", "5000");
  revenue("2025-04-01", "PAID", "70");
  revenue("2025-03-31", "PAID", "60");  // thirteen months back

  const json f =
      json::parse(sql("SELECT accounting_finance_json('America/New_York', timestamptz '2026-03-01 02:00:00+00')"));
  EXPECT_EQ(f["configured"], true);
  EXPECT_EQ(f["today"], "2026-02-28");
  EXPECT_EQ(f["paymentsMonthToDate"], 105);
  EXPECT_EQ(f["paymentsYearToDate"], 125);
  ASSERT_EQ(f["aging"].size(), 6u);
  const std::vector<std::pair<std::string, int>> buckets{{"current", 2}, {"1-30", 2},   {"31-60", 2},
                                                         {"61-90", 2},   {"91-120", 2}, {"over-120", 2}};
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    EXPECT_EQ(f["aging"][i]["key"], buckets[i].first);
    EXPECT_EQ(f["aging"][i]["invoices"], buckets[i].second) << f["aging"][i];
    EXPECT_EQ(f["aging"][i]["amount"], 10 * buckets[i].second) << f["aging"][i];
  }
  EXPECT_EQ(f["aging"][1]["maxDaysOverdue"], 30);
  EXPECT_EQ(f["aging"][5]["maxDaysOverdue"], 400);
  EXPECT_EQ(f["overdueInvoices"].size(), 10u);
  EXPECT_EQ(f["overdueInvoices"][0]["daysOverdue"], 400);
  EXPECT_EQ(f["overdueInvoices"][9]["daysOverdue"], 1);
  ASSERT_EQ(f["revenue"].size(), 12u);
  EXPECT_EQ(f["revenue"][0]["month"], "2025-04");
  EXPECT_EQ(f["revenue"][0]["amount"], 70);
  EXPECT_EQ(f["revenue"][10]["month"], "2026-02");
  EXPECT_EQ(f["revenue"][10]["amount"], 250);
  EXPECT_EQ(f["revenue"][11]["month"], "2026-03");
  EXPECT_EQ(f["revenue"][11]["amount"], 300);
  EXPECT_EQ(f["revenue"][5]["amount"], 0);  // zero-filled

  // In UTC the same instant is 1 March: a new month, so only the March receipt counts.
  const json utc = json::parse(sql("SELECT accounting_finance_json('UTC', timestamptz '2026-03-01 02:00:00+00')"));
  EXPECT_EQ(utc["paymentsMonthToDate"], 40);
  // The route answers in the signed-in user's zone.
  ASSERT_EQ(call("PUT", "/api/me/timezone", {{"timezone", "Pacific/Kiritimati"}}, tech).status, 200u);
  const json mine = get("/api/accounting/summary", tech);
  EXPECT_EQ(mine["configured"], true);
  EXPECT_EQ(mine["today"], sql("SELECT (now() AT TIME ZONE 'Pacific/Kiritimati')::date"));
}

// 403 switched off (first), 503 not configured or without DATA_ENCRYPTION_KEY, 409 not connected,
// 403 for a user who is not an administrator, 401 without a session.
TEST_F(AccountingTest, TheRoutesFollowTheirStateTable) {
  start_accounting({});
  for (const char* path : {"/api/accounting/auth", "/api/accounting/sync", "/api/accounting/disconnect"}) {
    const auto res = call("POST", path, nullptr, boss);
    EXPECT_EQ(res.status, 503u) << path;
    EXPECT_NE(res.body.find("ACCOUNTING_CLIENT_ID"), std::string::npos) << res.body;
    EXPECT_EQ(call("POST", path, nullptr, tech).status, 403u) << path;
    EXPECT_EQ(call("POST", path, nullptr).status, 401u) << path;
  }
  EXPECT_EQ(call("GET", "/api/accounting/callback?state=x&code=y", nullptr, boss).status, 503u);
  EXPECT_EQ(get("/api/accounting/status", tech)["configured"], false);
  EXPECT_EQ(get("/api/accounting/summary", tech)["configured"], false);
  EXPECT_EQ(call("GET", "/api/accounting/status").status, 401u);
  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "accounting"}, {"disabled", true}}, boss).status, 200u);
  ASSERT_TRUE(core::testing::eventually(
      [&] { return call("POST", "/api/accounting/auth", nullptr, boss).status == 403u; }, std::chrono::seconds(5)));

  auto env = accounting_env();
  env.erase("DATA_ENCRYPTION_KEY");
  start(env);
  EXPECT_EQ(call("POST", "/api/accounting/auth", nullptr, boss).status, 403u);  // still switched off
  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "accounting"}, {"disabled", false}}, boss).status, 200u);
  ASSERT_TRUE(core::testing::eventually(
      [&] { return call("POST", "/api/accounting/auth", nullptr, boss).status != 403u; }, std::chrono::seconds(5)));
  const auto keyless = call("POST", "/api/accounting/auth", nullptr, boss);
  EXPECT_EQ(keyless.status, 503u);
  EXPECT_NE(keyless.body.find("DATA_ENCRYPTION_KEY"), std::string::npos) << keyless.body;
  EXPECT_EQ(sql("SELECT count(*) FROM accounting_auth_states"), "0");
  const auto unconnected = call("POST", "/api/accounting/sync", nullptr, boss);
  EXPECT_EQ(unconnected.status, 409u) << unconnected.body;
  const auto bad_body = call("POST", "/api/accounting/sync", {{"full", "yes"}}, boss);
  EXPECT_EQ(bad_body.status, 400u);
  EXPECT_EQ(bad_body.json()["errors"][0]["field"], "full");
}

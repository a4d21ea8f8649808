// The distributor (issue 19) against the Pax8 fake: the sync copies and soft-deletes, the spec's
// state table of the sync route, the matching of distributor companies to PSA companies, the
// resolve table, the company list and detail, the token cache and throttling.
#include "core/util/strings.hpp"
#include "ops_console/sync_history.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct DistributorTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss, tech;  // an administrator, a plain user

  std::map<std::string, std::string> distributor_env() {
    return {{"DISTRIBUTOR_BASE_URL", fakes.url() + "/pax8"},
            {"DISTRIBUTOR_CLIENT_ID", "sandbox-distributor"},
            {"DISTRIBUTOR_CLIENT_SECRET", "sandbox-distributor-secret"}};
  }
  void start_distributor(std::map<std::string, std::string> env) {
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  void start_distributor() { start_distributor(distributor_env()); }
  void seed(int companies = 12, int subscriptions = 4, int invoices = 2) {
    sandbox::Pax8SeedCounts counts;
    counts.companies = companies;
    counts.subscriptions_per_company = subscriptions;
    counts.invoices_per_company = invoices;
    fakes.pax8().seed(counts);
  }
  json get(const std::string& path, const std::string& token = "") {
    const auto res = call("GET", path, nullptr, token.empty() ? boss : token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  // Starts a sync and waits until no run holds the lock.
  void sync() {
    const auto res = call("POST", "/api/distributor/sync", nullptr, boss);
    ASSERT_EQ(res.status, 202u) << res.body;
    ASSERT_TRUE(core::testing::eventually([&] { return get("/api/distributor/sync")["inProgress"] == false; },
                                          std::chrono::seconds(60)));
  }
  std::string company_named(const std::string& name) {
    return sql("SELECT id FROM distributor_companies WHERE name = '" + name + "'");
  }
  void add_psa_company(std::int64_t id, const std::string& name) {
    sql("INSERT INTO companies (id, company_name) VALUES (" + std::to_string(id) + ", $$" + name + "$$)");
  }
  std::size_t fake_count(const std::string& kind) { return fakes.pax8().rows(kind).size(); }
};

}  // namespace

TEST_F(DistributorTest, ASyncCopiesTheDistributorAndSoftDeletesWhatItNoLongerReturns) {
  seed();
  start_distributor();
  sync();
  const json state = get("/api/distributor/sync");
  EXPECT_EQ(state["counts"]["companies"], fake_count("companies"));
  EXPECT_EQ(state["counts"]["subscriptions"], fake_count("subscriptions"));
  std::size_t order_items = 0;
  for (const auto& order : fakes.pax8().rows("orders")) order_items += order["lineItems"].size();
  EXPECT_EQ(state["counts"]["items"], fake_count("invoice_items") + order_items);
  ASSERT_EQ(state["history"].size(), 1u);
  EXPECT_EQ(state["history"][0]["status"], "succeeded");
  EXPECT_EQ(state["history"][0]["entityType"], "distributor");
  // Every request of the run moved the distributor's integration-health row.
  EXPECT_TRUE(health_shows("distributor", "calls > 0 AND failures = 0 AND last_success_at IS NOT NULL"));

  // Field by field, one subscription.
  const json s = fakes.pax8().rows("subscriptions").front();
  EXPECT_EQ(
      sql("SELECT company_id || ' ' || product_name || ' ' || status FROM distributor_subscriptions WHERE id = '" +
          s["id"].get<std::string>() + "'"),
      s["companyId"].get<std::string>() + " " + s["productName"].get<std::string>() + " " +
          s["status"].get<std::string>());

  const std::string gone_company = fakes.pax8().rows("companies").back()["id"];
  const std::string gone_subscription = fakes.pax8().rows("subscriptions").front()["id"];
  fakes.pax8().remove_company(gone_company);
  fakes.pax8().remove_subscription(gone_subscription);
  sync();
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM distributor_companies WHERE id = '" + gone_company + "'"), "t");
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM distributor_subscriptions WHERE id = '" + gone_subscription + "'"),
            "t");
  const json after = get("/api/distributor/sync");
  EXPECT_EQ(after["counts"]["companies"], fake_count("companies"));
  EXPECT_EQ(after["counts"]["subscriptions"], fake_count("subscriptions"));
  EXPECT_EQ(after["history"].size(), 2u);
  EXPECT_EQ(after["history"][0]["counts"]["softDeleted"]["companies"], 1);
}

// The spec's cap: the last 10 runs, newest first, and only the distributor's.
TEST_F(DistributorTest, TheStatusShowsTheLastTenDistributorRuns) {
  start_distributor({});
  for (int i = 1; i <= 12; ++i)
    sql("INSERT INTO sync_history (entity_type, kind, started_at, finished_at, status, counts) VALUES ('distributor', "
        "'distributor', now() - interval '" +
        std::to_string(100 - i) + " minutes', now(), 'succeeded', '{\"run\": " + std::to_string(i) + "}')");
  sql("INSERT INTO sync_history (entity_type, kind) VALUES ('Tickets', 'full')");  // another sync's run
  const json history = get("/api/distributor/sync")["history"];
  ASSERT_EQ(history.size(), 10u);
  EXPECT_EQ(history[0]["counts"]["run"], 12);  // newest first
  EXPECT_EQ(history[9]["counts"]["run"], 3);
  for (const auto& h : history) EXPECT_EQ(h["entityType"], "distributor");
}

// Kill -9 of the service mid-sync (README, "Reliability under kill -9"): PostgreSQL releases the
// run's lock with the dead session, so the next run is started, not refused with 409; it closes the
// row the dead run left running as interrupted, and the copy ends equal to the distributor's.
TEST_F(DistributorTest, ASyncKilledMidRunIsClosedAsInterruptedAndTheNextRunCompletesTheCopy) {
  seed();
  add_user("boss@msp.example", kPassword, true);
  add_user("tech@msp.example", kPassword);
  fakes.pax8().set_faults({.latency = std::chrono::seconds(2)});
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(
      distributor_env(),
      [&] {
        return fakes.pax8().stats()["in_flight"].get<int>() > 0 &&
               sql("SELECT count(*) FROM sync_history WHERE status = 'running'") == "1";
      },
      [](std::uint16_t port) {
        const auto login = core::testing::http(port, "POST", "/api/auth/login",
                                               json{{"email", "boss@msp.example"}, {"password", kPassword}}.dump());
        const auto res = core::testing::http(port, "POST", "/api/distributor/sync", "",
                                             {{"Cookie", "ops_session=" + token_of(login)}});
        EXPECT_EQ(res.status, 202u) << res.body;
      }));
  fakes.pax8().set_faults({});

  start(distributor_env());
  boss = sign_in("boss@msp.example", kPassword);
  sync();  // 202: the dead run holds no lock
  const json state = get("/api/distributor/sync");
  ASSERT_EQ(state["history"].size(), 2u) << state;
  EXPECT_EQ(state["history"][0]["status"], "succeeded");
  EXPECT_EQ(state["history"][1]["status"], "failed");
  EXPECT_EQ(state["history"][1]["error"], ops_console::kInterrupted);
  EXPECT_EQ(state["counts"]["companies"], fake_count("companies"));
  EXPECT_EQ(state["counts"]["subscriptions"], fake_count("subscriptions"));
}

// The spec's state table: 403 while switched off (checked first, also while a run is under way),
// 409 while a run is under way on any instance, else 202 at once.
TEST_F(DistributorTest, TheSyncRouteFollowsTheStateTable) {
  seed();
  start_distributor();
  const auto env = distributor_env();
  core::testing::RunningService other(ops_console::definition(), database.url(),
                                      core::config::Environment(env.begin(), env.end()));
  fakes.pax8().set_faults({.latency = std::chrono::milliseconds(150)});  // a run takes a while
  EXPECT_EQ(call("POST", "/api/distributor/sync", nullptr, boss).status, 202u);
  const auto other_call =
      core::testing::http(other.port(), "POST", "/api/distributor/sync", "", {{"Cookie", "ops_session=" + boss}});
  EXPECT_EQ(other_call.status, 409u) << other_call.body;
  EXPECT_EQ(call("POST", "/api/distributor/sync", nullptr, tech).status, 409u);
  EXPECT_EQ(get("/api/distributor/sync")["inProgress"], true);

  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "distributor"}, {"disabled", true}}, boss).status, 200u);
  ASSERT_TRUE(core::testing::eventually(
      [&] { return call("POST", "/api/distributor/sync", nullptr, boss).status == 403u; }, std::chrono::seconds(5)));
  EXPECT_EQ(get("/api/distributor/sync")["inProgress"], true);  // the 403 came first, the run goes on
  fakes.pax8().set_faults({});
  ASSERT_TRUE(core::testing::eventually([&] { return get("/api/distributor/sync")["inProgress"] == false; },
                                        std::chrono::seconds(60)));
  EXPECT_EQ(call("POST", "/api/distributor/sync", nullptr, boss).status, 403u);
  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "distributor"}, {"disabled", false}}, boss).status, 200u);
  EXPECT_TRUE(core::testing::eventually(
      [&] { return call("POST", "/api/distributor/sync", nullptr, boss).status == 202u; }, std::chrono::seconds(5)));
  EXPECT_EQ(call("POST", "/api/distributor/sync").status, 401u);  // signed-in only: not on the public list
}

TEST_F(DistributorTest, WithoutCredentialsTheSyncIsUnavailableAndTheCopyStillAnswers) {
  start_distributor({});
  const auto res = call("POST", "/api/distributor/sync", nullptr, boss);
  EXPECT_EQ(res.status, 503u);
  EXPECT_NE(res.body.find("not configured"), std::string::npos);
  EXPECT_EQ(get("/api/distributor/sync")["counts"]["companies"], 0);
  EXPECT_EQ(get("/api/distributor/companies")["total"], 0);
}

TEST_F(DistributorTest, PartlySetCredentialsRefuseStart) {
  EXPECT_THROW(start({{"DISTRIBUTOR_CLIENT_ID", "sandbox-distributor"}}), std::exception);
}

TEST_F(DistributorTest, NamesAreNormalisedForMatching) {
  start_distributor({});
  for (const auto& [raw, normalised] :
       std::vector<std::pair<std::string, std::string>>{{"Contoso Pty. Ltd.", "contoso"},
                                                        {"CONTOSO, INC.", "contoso"},
                                                        {"contoso", "contoso"},
                                                        {"Smith & Co GmbH", "smith"},
                                                        {"Fabrikam, L.L.C.", "fabrikam"},
                                                        {"Ltd", "ltd"},  // a suffix alone is a name
                                                        {"Blue  Yonder   Airlines Limited", "blue yonder airlines"}})
    EXPECT_EQ(sql("SELECT distributor_normalised_name($$" + raw + "$$)"), normalised) << raw;
}

// After a sync every distributor company is matched or reviewed: an exact match of the normalised
// name is recorded, a near one (or two PSA companies of one name) opens a review with candidates,
// and a resolved review stays resolved through later syncs.
TEST_F(DistributorTest, MatchingRecordsExactNamesAndReviewsTheRest) {
  seed(6, 1, 1);
  const json companies = fakes.pax8().rows("companies");
  const std::string exact = companies[0]["name"], near = companies[1]["name"], twice = companies[2]["name"];
  std::string shouted = exact;
  for (auto& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  add_psa_company(101, shouted + ", Inc.");  // equal once normalised
  add_psa_company(102, near + "x");          // a typo away
  add_psa_company(103, twice);               // two PSA companies of one name
  add_psa_company(104, twice + " Ltd");
  start_distributor();
  sync();

  EXPECT_EQ(
      sql("SELECT matched_company_id || ' ' || match_method FROM distributor_companies WHERE name = $$" + exact + "$$"),
      "101 exact");
  EXPECT_EQ(sql("SELECT count(*) FROM distributor_company_matches m JOIN distributor_companies d "
                "ON d.id = m.distributor_company_id WHERE d.name = $$" +
                exact + "$$"),
            "0");
  const json reviews = get("/api/distributor/company-matches");
  EXPECT_EQ(reviews.size(), companies.size() - 1);  // all but the exact one
  json near_review, twice_review;
  for (const auto& r : reviews) {
    EXPECT_EQ(r["unresolved"], true);
    EXPECT_LE(r["candidates"].size(), 5u);
    if (r["distributorCompanyName"] == near) near_review = r;
    if (r["distributorCompanyName"] == twice) twice_review = r;
  }
  ASSERT_FALSE(near_review.is_null());
  EXPECT_EQ(near_review["candidates"][0]["companyId"], 102);
  EXPECT_EQ(near_review["candidates"][0]["name"], near + "x");
  EXPECT_GT(near_review["candidates"][0]["confidence"].get<double>(), 0.5);
  EXPECT_LT(near_review["candidates"][0]["confidence"].get<double>(), 1.0);
  ASSERT_FALSE(twice_review.is_null());
  std::set<std::int64_t> both;
  for (const auto& c : twice_review["candidates"]) both.insert(c["companyId"].get<std::int64_t>());
  EXPECT_TRUE(both.contains(103) && both.contains(104));

  // Resolved by hand to another company than the best candidate: later syncs keep it.
  const auto resolved =
      call("POST", "/api/distributor/company-matches/" + std::to_string(near_review["id"].get<long>()) + "/resolve",
           {{"companyId", 104}, {"note", "Acquired by them"}}, boss);
  ASSERT_EQ(resolved.status, 200u) << resolved.body;
  sync();
  EXPECT_EQ(
      sql("SELECT matched_company_id || ' ' || match_method FROM distributor_companies WHERE name = $$" + near + "$$"),
      "104 review");
  EXPECT_EQ(sql("SELECT resolved || ' ' || resolved_company_id FROM distributor_company_matches WHERE id = " +
                std::to_string(near_review["id"].get<long>())),
            "true 104");
  EXPECT_EQ(get("/api/distributor/company-matches").size(), companies.size() - 2);
}

// The spec's resolve table: 200, 404 no such review, 409 resolved already, 400 an invalid body
// or a company that does not exist; both tables in one transaction, who and when recorded.
TEST_F(DistributorTest, TheResolveRouteFollowsTheResolveTable) {
  seed(3, 1, 1);
  add_psa_company(201, "Unrelated Holdings");
  start_distributor();
  sync();
  const json reviews = get("/api/distributor/company-matches");
  ASSERT_FALSE(reviews.empty());
  const std::string at =
      "/api/distributor/company-matches/" + std::to_string(reviews[0]["id"].get<long>()) + "/resolve";

  for (const json& bad : {json{{"companyId", 0}}, json{{"companyId", "201"}}, json{{"note", "x"}},
                          json{{"companyId", 201}, {"note", std::string(501, 'n')}}}) {
    const auto res = call("POST", at, bad, boss);
    EXPECT_EQ(res.status, 400u) << bad.dump();
  }
  const auto missing_company = call("POST", at, {{"companyId", 999}}, boss);
  EXPECT_EQ(missing_company.status, 400u);
  EXPECT_NE(missing_company.body.find("companyId"), std::string::npos);
  EXPECT_EQ(call("POST", "/api/distributor/company-matches/987654/resolve", {{"companyId", 201}}, boss).status, 404u);
  EXPECT_EQ(call("POST", at, {{"companyId", 201}}, tech).status, 403u);  // perm(admin, access)
  EXPECT_EQ(sql("SELECT count(*) FROM distributor_company_matches WHERE resolved"), "0");

  const std::string note = "Größe ✓ " + std::string(491, 'n');  // 500 characters, more bytes
  const auto ok = call("POST", at, {{"companyId", 201}, {"note", note}}, boss);
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["unresolved"], false);
  EXPECT_EQ(ok.json()["resolvedCompanyId"], 201);
  EXPECT_EQ(sql("SELECT (resolved_by = (SELECT id FROM users WHERE email = 'boss@msp.example')) || ' ' || "
                "(resolved_at IS NOT NULL) FROM distributor_company_matches WHERE resolved"),
            "true true");
  EXPECT_EQ(sql("SELECT matched_company_id FROM distributor_companies WHERE id = '" +
                reviews[0]["distributorCompanyId"].get<std::string>() + "'"),
            "201");
  EXPECT_EQ(call("POST", at, {{"companyId", 201}}, boss).status, 409u);
}

TEST_F(DistributorTest, CompaniesAreListedSearchedSortedAndPaged) {
  seed(30, 3, 1);
  start_distributor();
  sync();
  const json all = get("/api/distributor/companies?limit=200");
  EXPECT_EQ(all["total"], 30);
  EXPECT_EQ(all["limit"], 200);
  EXPECT_EQ(all["offset"], 0);
  EXPECT_EQ(get("/api/distributor/companies")["items"].size(), 30u);  // default 50
  EXPECT_EQ(get("/api/distributor/companies?limit=10&offset=25")["items"].size(), 5u);

  std::vector<std::string> names;
  for (const auto& c : all["items"]) names.push_back(core::to_lower(c["name"].get<std::string>()));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  const json by_cost = get("/api/distributor/companies?sort=monthlyCost&order=desc&limit=200");
  for (std::size_t i = 1; i < by_cost["items"].size(); ++i)
    EXPECT_GE(by_cost["items"][i - 1]["monthlyCost"].get<double>(), by_cost["items"][i]["monthlyCost"].get<double>());
  const json by_active = get("/api/distributor/companies?sort=activeSubscriptions&order=asc&limit=200");
  for (std::size_t i = 1; i < by_active["items"].size(); ++i)
    EXPECT_LE(by_active["items"][i - 1]["activeSubscriptions"].get<int>(),
              by_active["items"][i]["activeSubscriptions"].get<int>());
  EXPECT_EQ(get("/api/distributor/companies?sort=matchedCompany")["total"], 30);

  // Search is a plain substring: % and _ are literal characters.
  const std::string some = all["items"][3]["name"];
  const json found = get("/api/distributor/companies?search=" + core::url_encode(some.substr(1, 5)));
  EXPECT_GE(found["total"].get<int>(), 1);
  sql("UPDATE distributor_companies SET name = '100% Cloud_Co' WHERE name = $$" + some + "$$");
  EXPECT_EQ(get("/api/distributor/companies?search=" + core::url_encode("0% C"))["total"], 1);
  EXPECT_EQ(get("/api/distributor/companies?search=" + core::url_encode("d_C"))["total"], 1);
  EXPECT_EQ(get("/api/distributor/companies?search=" + core::url_encode("%"))["total"], 1);
  EXPECT_EQ(get("/api/distributor/companies?search=" + core::url_encode("_"))["total"], 1);

  const auto bad = call("GET", "/api/distributor/companies?limit=201&offset=-1&sort=id&order=up", nullptr, boss);
  EXPECT_EQ(bad.status, 400u);
  const json problem = bad.json();
  std::set<std::string> fields;
  for (const auto& e : problem["errors"]) fields.insert(e["field"].get<std::string>());
  EXPECT_EQ(fields, (std::set<std::string>{"limit", "offset", "sort", "order"})) << bad.body;
}

TEST_F(DistributorTest, ACompanyShowsItsSubscriptionsLatestCostsLabelsAndOrphanedOrderItems) {
  seed(4, 3, 3);
  start_distributor();
  sync();
  EXPECT_EQ(call("GET", "/api/distributor/companies/not-a-uuid", nullptr, boss).status, 400u);
  EXPECT_EQ(call("GET", "/api/distributor/companies/00000000-0000-4000-8000-000000000000", nullptr, boss).status, 404u);

  // Pick a subscription with invoice items; its latest billed cost is its latest item's line total.
  const std::string subscription = sql(
      "SELECT subscription_id FROM distributor_items WHERE kind = 'invoice' AND subscription_id IS NOT NULL LIMIT 1");
  const std::string company = sql("SELECT company_id FROM distributor_subscriptions WHERE id = '" + subscription + "'");
  const std::string latest = sql("SELECT total FROM distributor_items WHERE kind = 'invoice' AND subscription_id = '" +
                                 subscription + "' ORDER BY coalesce(end_period, item_date) DESC, id DESC LIMIT 1");
  const json detail = get("/api/distributor/companies/" + company);
  bool seen = false;
  for (const auto& s : detail["subscriptions"]) {
    EXPECT_FALSE(s["label"].is_null());
    if (s["id"] == subscription) {
      seen = true;
      EXPECT_DOUBLE_EQ(s["latestBilledCost"].get<double>(), std::stod(latest));
    }
  }
  EXPECT_TRUE(seen);

  // Labels: the product name, else the description, else the product id.
  sql("UPDATE distributor_items SET product_name = '', description = 'Backup add-on', product_id = 'P-1' "
      "WHERE kind = 'order'");
  sql("INSERT INTO distributor_items (kind, id, parent_id, company_id, subscription_id, product_id, item_date) "
      "VALUES ('order', 'gone-1', 'order-x', '" +
      company + "', '11111111-1111-4111-8111-111111111111', 'P-9', now())");
  const json with_orphans = get("/api/distributor/companies/" + company);
  bool orphan = false;
  for (const auto& i : with_orphans["orphanedOrderItems"]) {
    if (i["id"] == "gone-1") {
      orphan = true;
      EXPECT_EQ(i["label"], "P-9");  // no name, no description
    }
    EXPECT_NE(i["subscriptionId"], nullptr);
  }
  EXPECT_TRUE(orphan);
  EXPECT_EQ(sql("SELECT distributor_item_label(i) FROM distributor_items i WHERE kind = 'order' AND id <> 'gone-1' "
                "LIMIT 1"),
            "Backup add-on");
}

TEST_F(DistributorTest, OneTokenServesTheWholeSyncAndThrottlingIsWaitedOut) {
  seed(20, 4, 2);
  start_distributor();
  fakes.pax8().set_faults({.throttle = 2, .retry_after = 1});
  sync();
  const json stats = fakes.pax8().stats();
  EXPECT_EQ(stats["tokens_issued"], 1);
  EXPECT_GT(stats["requests"].get<int>(), 10);
  EXPECT_EQ(get("/api/distributor/sync")["history"][0]["status"], "succeeded");
  EXPECT_EQ(get("/api/distributor/sync")["counts"]["companies"], 20);
}

// Endpoint security (issue 20) against the SentinelOne fake: the sync (cursor paging, agent
// counts, history), the state table, site-to-company mappings, and coverage against the PSA
// copy's configuration items.
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct EndpointSecTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss, tech;

  std::map<std::string, std::string> endpointsec_env() {
    return {{"ENDPOINTSEC_BASE_URL", fakes.url() + "/sentinelone/web/api/v2.1"},
            {"ENDPOINTSEC_API_TOKEN", fakes.sentinelone().options().token}};
  }
  void start_endpointsec(std::map<std::string, std::string> env) {
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  json get(const std::string& path, const std::string& token) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  void sync() {
    const auto res = call("POST", "/api/endpointsec/sync", nullptr, boss);
    ASSERT_EQ(res.status, 202u) << res.body;
    ASSERT_TRUE(core::testing::eventually([&] { return get("/api/endpointsec/sync", tech)["inProgress"] == false; },
                                          std::chrono::seconds(30)));
  }
};

}  // namespace

TEST_F(EndpointSecTest, ASyncStoresEverySiteWithItsLicencesAndAgents) {
  fakes.sentinelone().seed({.seed = 2, .sites = 25, .agents_min = 5, .agents_max = 30});
  auto env = endpointsec_env();
  env["ENDPOINTSEC_PAGE_LIMIT"] = "10";  // three pages
  start_endpointsec(env);
  EXPECT_EQ(call("POST", "/api/endpointsec/sync", nullptr, tech).status, 403u);  // admins only
  fakes.sentinelone().set_faults({.latency = std::chrono::milliseconds(100)});   // a run takes a while
  ASSERT_EQ(call("POST", "/api/endpointsec/sync", nullptr, boss).status, 202u);
  EXPECT_EQ(call("POST", "/api/endpointsec/sync", nullptr, boss).status, 409u);  // one run at a time
  EXPECT_EQ(get("/api/endpointsec/sync", tech)["inProgress"], true);
  fakes.sentinelone().set_faults({});
  ASSERT_TRUE(core::testing::eventually([&] { return get("/api/endpointsec/sync", tech)["inProgress"] == false; },
                                        std::chrono::seconds(30)));
  sql("DELETE FROM sync_history");
  sync();
  const json state = get("/api/endpointsec/sync", tech);
  const json sites = fakes.sentinelone().sites();
  EXPECT_EQ(state["sites"], sites.size());
  ASSERT_EQ(state["history"].size(), 1u);
  EXPECT_EQ(state["history"][0]["status"], "succeeded") << state["history"][0];
  EXPECT_EQ(state["history"][0]["entityType"], "endpointsec");
  const json& one = sites[7];
  EXPECT_EQ(sql("SELECT name || ' ' || agents || ' ' || active_agents || ' ' || total_licenses FROM endpointsec_sites "
                "WHERE id = '" +
                one["id"].get<std::string>() + "'"),
            one["name"].get<std::string>() + " " + one["agents"].dump() + " " + one["active_agents"].dump() + " " +
                one["totalLicenses"].dump());
  EXPECT_EQ(fakes.sentinelone().stats()["calls"]["sites"], 6);  // two runs of three pages
  EXPECT_TRUE(core::testing::eventually([&] {
    return sql("SELECT failures || ' ' || (calls >= 3) FROM integration_health WHERE key = 'endpointsec'") == "0 true";
  }));
}

TEST_F(EndpointSecTest, MappingsAndCoverage) {
  fakes.sentinelone().seed({.seed = 4, .sites = 5, .agents_min = 10, .agents_max = 20});
  start_endpointsec(endpointsec_env());
  sync();
  sql("INSERT INTO companies (id, company_name) VALUES (11, 'Alder & Finch Law'), (12, 'Cobalt Logistics')");
  for (int i = 0; i < 8; ++i)
    sql("INSERT INTO configuration_items (id, company_id, is_active) VALUES (" + std::to_string(100 + i) + ", 11, " +
        (i < 6 ? "true" : "false") + ")");  // six active
  const std::string site = fakes.sentinelone().sites()[1]["id"];
  const int agents = fakes.sentinelone().sites()[1]["agents"];

  EXPECT_EQ(call("POST", "/api/endpointsec/company-mappings", {{"siteId", site}, {"companyId", 11}}, tech).status,
            403u);
  const auto unknown_site =
      call("POST", "/api/endpointsec/company-mappings", {{"siteId", "999999999999999999"}, {"companyId", 11}}, boss);
  EXPECT_EQ(unknown_site.status, 400u);
  EXPECT_EQ(unknown_site.json()["errors"][0]["field"], "siteId");
  const auto unknown_company =
      call("POST", "/api/endpointsec/company-mappings", {{"siteId", site}, {"companyId", 77}}, boss);
  EXPECT_EQ(unknown_company.status, 400u);
  EXPECT_EQ(unknown_company.json()["errors"][0]["field"], "companyId");
  EXPECT_EQ(sql("SELECT count(*) FROM endpointsec_company_mappings"), "0");

  ASSERT_EQ(call("POST", "/api/endpointsec/company-mappings", {{"siteId", site}, {"companyId", 12}}, boss).status,
            200u);
  ASSERT_EQ(call("POST", "/api/endpointsec/company-mappings", {{"siteId", site}, {"companyId", 11}}, boss).status,
            200u);  // remapped
  const json mappings = get("/api/endpointsec/company-mappings", tech);
  ASSERT_EQ(mappings.size(), 1u);
  EXPECT_EQ(mappings[0]["companyName"], "Alder & Finch Law");

  json mapped;
  for (const auto& s : get("/api/endpointsec/coverage", tech))
    if (s["siteId"] == site) mapped = s;
  ASSERT_FALSE(mapped.is_null());
  EXPECT_EQ(mapped["companyId"], 11);
  EXPECT_EQ(mapped["configurationItems"], 6);
  EXPECT_EQ(mapped["agents"]["total"], agents);
  EXPECT_DOUBLE_EQ(mapped["coverage"].get<double>(), std::round(agents / 6.0 * 100) / 100);
  EXPECT_EQ(get("/api/endpointsec/coverage", tech)[0]["coverage"].is_null(),
            get("/api/endpointsec/coverage", tech)[0]["siteId"] != site);

  EXPECT_EQ(call("DELETE", "/api/endpointsec/company-mappings?siteId=" + site, nullptr, tech).status, 403u);
  EXPECT_EQ(call("DELETE", "/api/endpointsec/company-mappings?siteId=" + site, nullptr, boss).status, 204u);
  EXPECT_EQ(call("DELETE", "/api/endpointsec/company-mappings?siteId=" + site, nullptr, boss).status, 404u);
  EXPECT_EQ(call("DELETE", "/api/endpointsec/company-mappings", nullptr, boss).status, 400u);
}

TEST_F(EndpointSecTest, TheRoutesFollowTheirStateTable) {
  start_endpointsec({});
  const auto res = call("POST", "/api/endpointsec/sync", nullptr, boss);
  EXPECT_EQ(res.status, 503u);
  EXPECT_NE(res.body.find("ENDPOINTSEC_BASE_URL, ENDPOINTSEC_API_TOKEN"), std::string::npos) << res.body;
  EXPECT_EQ(call("GET", "/api/endpointsec/coverage").status, 401u);

  auto env = endpointsec_env();
  env["ENDPOINTSEC_API_TOKEN"] = "wrong-token";
  start(env);
  ASSERT_EQ(call("POST", "/api/endpointsec/sync", nullptr, boss).status, 202u);
  ASSERT_TRUE(core::testing::eventually([&] { return get("/api/endpointsec/sync", tech)["inProgress"] == false; },
                                        std::chrono::seconds(30)));
  const json run = get("/api/endpointsec/sync", tech)["history"][0];
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(run["error"].get<std::string>().find("4010010"), std::string::npos) << run;
  EXPECT_EQ(run["error"].get<std::string>().find("wrong-token"), std::string::npos);

  env = endpointsec_env();
  env["INTEGRATIONS_DISABLED"] = "sentinelone";
  start(env);
  for (const char* path : {"/api/endpointsec/sync", "/api/endpointsec/coverage", "/api/endpointsec/company-mappings"})
    EXPECT_EQ(call("GET", path, nullptr, tech).status, 403u) << path;
  EXPECT_EQ(call("POST", "/api/endpointsec/sync", nullptr, boss).status, 403u);
}

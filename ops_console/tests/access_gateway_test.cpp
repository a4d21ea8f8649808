// The access gateway (issue 33) against the Cloudflare Access fake: the configuration-only health row,
// the public sync route and its state table (403 off first, 503 not configured, 409, 202), the copy of
// the applications and their policies (paged to the end, deleted ones marked), and the health rows.
#include "ops_console/access_gateway/cloudflare.hpp"
#include "ops_console/access_gateway/page.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;
using ops_console::testing::kPassword;

struct AccessGatewayTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string tech;

  std::map<std::string, std::string> gateway_env() {
    return {{"ACCESS_GATEWAY_BASE_URL", fakes.url() + "/cloudflare/client/v4"},
            {"ACCESS_GATEWAY_ACCOUNT_ID", fakes.cloudflare().options().account_id},
            {"ACCESS_GATEWAY_API_TOKEN", fakes.cloudflare().options().token}};
  }
  void start_gateway(std::map<std::string, std::string> env) {
    if (tech.empty()) add_user("tech@msp.example", kPassword);
    start(std::move(env));
    tech = sign_in("tech@msp.example", kPassword);
  }
  json get(const std::string& path) {
    const auto res = call("GET", path, nullptr, tech);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  void wait_for_run() {
    ASSERT_TRUE(core::testing::eventually([&] { return get("/api/access-gateway/sync")["inProgress"] == false; },
                                          std::chrono::seconds(30)));
  }
};

}  // namespace

TEST_F(AccessGatewayTest, APublicSyncCopiesTheApplicationsAndWhoMayReachThem) {
  fakes.cloudflare().seed({.seed = 5, .apps = 7});
  auto env = gateway_env();
  env["ACCESS_GATEWAY_PAGE_SIZE"] = "3";  // three pages of applications
  start_gateway(env);
  const json health = get("/api/access-gateway/health");
  EXPECT_EQ(health["configured"], true);
  EXPECT_TRUE(health["missing"].empty());

  fakes.cloudflare().set_faults({.latency = std::chrono::milliseconds(100)});  // a run takes a while
  ASSERT_EQ(call("POST", "/api/access-gateway/sync").status, 202u);            // no session: public
  EXPECT_EQ(call("POST", "/api/access-gateway/sync").status, 409u);            // one run at a time
  EXPECT_EQ(get("/api/access-gateway/sync")["inProgress"], true);
  fakes.cloudflare().set_faults({});
  wait_for_run();

  const json expected = fakes.cloudflare().apps();
  const json copy = get("/api/access-gateway/applications");
  ASSERT_EQ(copy.size(), expected.size());
  for (const auto& want : expected) {
    json found;
    for (const auto& app : copy)
      if (app["id"] == want["id"]) found = app;
    ASSERT_FALSE(found.is_null()) << want["id"];
    EXPECT_EQ(found["name"], want["name"]);
    EXPECT_EQ(found["domain"], want["domain"]);
    ASSERT_EQ(found["policies"].size(), want["policies"].size());
    EXPECT_EQ(found["policies"][0]["decision"], want["policies"][0]["decision"]);
    EXPECT_EQ(found["policies"][0]["include"], want["policies"][0]["include"]);
  }
  const json state = get("/api/access-gateway/sync");
  EXPECT_EQ(state["applications"], 7);
  EXPECT_EQ(state["history"][0]["status"], "succeeded") << state;
  EXPECT_EQ(state["history"][0]["entityType"], "access_gateway");
  EXPECT_EQ(fakes.cloudflare().stats()["calls"]["apps"], 3);

  // An application removed at Cloudflare is marked deleted by the next run.
  fakes.cloudflare().seed({.seed = 5, .apps = 5});
  ASSERT_EQ(call("POST", "/api/access-gateway/sync").status, 202u);
  wait_for_run();
  EXPECT_EQ(get("/api/access-gateway/applications").size(), 5u);
  EXPECT_EQ(sql("SELECT count(*) FROM access_gateway_apps WHERE deleted_at IS NOT NULL"), "2");
  EXPECT_TRUE(health_shows("access_gateway", "failures = 0 AND calls >= 8"));
}

TEST_F(AccessGatewayTest, TheHealthRowAndTheSyncFollowTheirStateTable) {
  start_gateway({});
  const json health = get("/api/access-gateway/health");
  EXPECT_EQ(health["key"], "access_gateway");
  EXPECT_EQ(health["configured"], false);
  EXPECT_EQ(health["missing"],
            json({"ACCESS_GATEWAY_BASE_URL", "ACCESS_GATEWAY_ACCOUNT_ID", "ACCESS_GATEWAY_API_TOKEN"}));
  const auto unconfigured = call("POST", "/api/access-gateway/sync");
  EXPECT_EQ(unconfigured.status, 503u);
  EXPECT_NE(unconfigured.body.find("ACCESS_GATEWAY_BASE_URL"), std::string::npos) << unconfigured.body;
  EXPECT_EQ(call("GET", "/api/access-gateway/health").status, 401u);
  EXPECT_EQ(sql("SELECT count(*) FROM integration_health WHERE key = 'access_gateway'"), "0");  // no call made

  auto env = gateway_env();
  env["ACCESS_GATEWAY_API_TOKEN"] = "wrong-token";
  start_gateway(env);
  ASSERT_EQ(call("POST", "/api/access-gateway/sync").status, 202u);
  wait_for_run();
  const json run = get("/api/access-gateway/sync")["history"][0];
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(run["error"].get<std::string>().find("10000"), std::string::npos) << run;
  EXPECT_TRUE(health_shows("access_gateway", "failures = 1"));

  env = gateway_env();
  env["INTEGRATIONS_DISABLED"] = "accessgateway";
  start_gateway(env);
  EXPECT_EQ(call("POST", "/api/access-gateway/sync").status, 403u);  // switched off comes first
  EXPECT_EQ(call("GET", "/api/access-gateway/applications", nullptr, tech).status, 403u);
  EXPECT_EQ(get("/api/access-gateway/health")["switchedOff"], true);
}

// A partly set group refuses start.
TEST(AccessGatewaySettingsTest, APartlySetGroupRefusesStart) {
  core::config::Reader env(
      core::config::Environment{{"ACCESS_GATEWAY_BASE_URL", "https://api.cloudflare.com/client/v4"}});
  (void)ops_console::access_gateway::read_access_gateway_settings(env);
  EXPECT_THROW(env.finish(), core::config::ConfigError);
}

// fuzz/corpus/cloudflare_page/success_not_boolean: `success` of another type was read with
// json::value(), whose type_error escaped the client as a 500 instead of a refused page (502).
TEST(CloudflarePageTest, ASuccessThatIsNotTrueRefusesThePageWithoutAnException) {
  using ops_console::access_gateway::parse_cloudflare_page;
  EXPECT_FALSE(parse_cloudflare_page(R"({"success":1,"result":[]})"));
  EXPECT_FALSE(parse_cloudflare_page(R"({"success":"true","result":[]})"));
  EXPECT_FALSE(parse_cloudflare_page(R"({"result":[]})"));
  const auto page =
      parse_cloudflare_page(R"({"success":true,"result":[{"id":"a"}],"result_info":{"total_pages":"3"}})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->result.size(), 1u);
  EXPECT_EQ(page->total_pages, 1);  // not an integer: this page is the last
}

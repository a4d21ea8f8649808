// The Cloudflare Access fake speaks Cloudflare's API v4 over real HTTP: the bearer token and its 401
// envelope, page-numbered lists with result_info to the last page, an application's policies, the
// account check, bad paging, and the fault switches (429 with Retry-After, 5xx, the echo switch).
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

constexpr const char* kAccessApps = "/cloudflare/client/v4/accounts/sandbox-account/access/apps";

class CloudflareAccessFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse get(const std::string& target, const std::string& token = "sandbox-access-gateway-token") {
    return http(fakes.port(), "GET", target, {}, {{"Authorization", "Bearer " + token}});
  }
};

}  // namespace

TEST_F(CloudflareAccessFakeTest, ListsApplicationsPageByPageWithResultInfo) {
  fakes.cloudflare().seed({.seed = 3, .apps = 7});
  std::set<std::string> ids;
  for (int page = 1; page <= 3; ++page) {
    const auto res = get(std::string(kAccessApps) + "?page=" + std::to_string(page) + "&per_page=3");
    ASSERT_EQ(res.status, 200u) << res.body;
    const auto body = res.json();
    EXPECT_EQ(body["success"], true);
    EXPECT_TRUE(body["errors"].empty());
    EXPECT_EQ(body["result_info"]["total_count"], 7);
    EXPECT_EQ(body["result_info"]["total_pages"], 3);
    EXPECT_EQ(body["result_info"]["page"], page);
    EXPECT_EQ(body["result_info"]["count"], page < 3 ? 3 : 1);
    for (const auto& app : body["result"]) {
      EXPECT_TRUE(app["domain"].is_string());
      ids.insert(app["id"]);
    }
  }
  EXPECT_EQ(ids.size(), 7u);
  EXPECT_TRUE(get(std::string(kAccessApps) + "?page=4&per_page=3").json()["result"].empty());  // past the last

  const json apps = fakes.cloudflare().apps();
  const std::string first = apps[0]["id"];
  const auto policies = get(std::string(kAccessApps) + "/" + first + "/policies?page=1&per_page=50");
  ASSERT_EQ(policies.status, 200u);
  EXPECT_EQ(policies.json()["result"], apps[0]["policies"]);
  EXPECT_EQ(policies.json()["result"][0]["decision"], "allow");
  EXPECT_EQ(get(std::string(kAccessApps) + "/no-such-app/policies").status, 404u);
}

TEST_F(CloudflareAccessFakeTest, RefusesWrongTokensAccountsAndPaging) {
  fakes.cloudflare().seed({});
  const auto wrong = get(kAccessApps, "nope");
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.json()["success"], false);
  EXPECT_EQ(wrong.json()["errors"][0]["code"], 10000);
  EXPECT_EQ(wrong.json()["errors"][0]["message"], "Authentication error");
  EXPECT_TRUE(wrong.json()["result"].is_null());
  EXPECT_EQ(get("/cloudflare/client/v4/accounts/another/access/apps").status, 403u);
  EXPECT_EQ(get(std::string(kAccessApps) + "?per_page=1001").status, 400u);
  EXPECT_EQ(get(std::string(kAccessApps) + "?page=0").status, 400u);
  EXPECT_EQ(fakes.cloudflare().stats()["unauthorized"], 1);
}

TEST_F(CloudflareAccessFakeTest, FaultSwitchesThrottleFailAndEcho) {
  fakes.cloudflare().seed({});
  fakes.cloudflare().set_faults({.throttle = 1, .retry_after = 7, .server_errors = 1, .status = 502});
  const auto throttled = get(kAccessApps);
  EXPECT_EQ(throttled.status, 429u);
  EXPECT_EQ(throttled.header("retry-after"), "7");
  EXPECT_EQ(get(kAccessApps).status, 502u);
  EXPECT_EQ(get(kAccessApps).status, 200u);
  fakes.cloudflare().set_faults({.echo = {.credentials = true}});
  const auto echoed = get(kAccessApps, "wrong-token-echoed");
  EXPECT_NE(echoed.body.find("wrong-token-echoed"), std::string::npos);
  EXPECT_EQ(fakes.cloudflare().echoed(), std::vector<std::string>{"wrong-token-echoed"});
}

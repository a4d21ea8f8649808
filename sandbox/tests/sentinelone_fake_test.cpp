// The SentinelOne fake speaks SentinelOne's management API v2.1 over real HTTP: the ApiToken and its
// 401, cursor paging of sites and agents to the end, the per-site agent counts agreeing with the sites'
// licences, validation errors, the fault switches, and a deterministic seed whose site names match the PSA
// fake's companies in part.
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/sentinelone_seed.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

constexpr const char* kS1Api = "/sentinelone/web/api/v2.1";

class SentinelOneFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse get(const std::string& target, const std::string& token = "sandbox-endpointsec-token") {
    return http(fakes.port(), "GET", kS1Api + target, {}, {{"Authorization", "ApiToken " + token}});
  }
  // Every row of a list, following nextCursor; `data` picks the rows out of a page.
  template <class Pick>
  std::vector<json> all(const std::string& target, int limit, Pick data, int* pages = nullptr) {
    std::vector<json> out;
    const auto sep = target.find('?') == std::string::npos ? "?" : "&";
    std::string cursor;
    for (int n = 1; n < 10'000; ++n) {
      const auto res = get(target + sep + "limit=" + std::to_string(limit) +
                           (cursor.empty() ? "" : "&cursor=" + core::url_encode(cursor)));
      EXPECT_EQ(res.status, 200u) << res.body;
      const auto body = res.json();
      for (const auto& row : data(body)) out.push_back(row);
      if (pages) *pages = n;
      if (body["pagination"]["nextCursor"].is_null()) break;
      cursor = body["pagination"]["nextCursor"];
    }
    return out;
  }
  std::vector<json> all_sites(int limit) {
    return all("/sites", limit, [](const json& b) { return b["data"]["sites"]; });
  }
  std::vector<json> all_agents(const std::string& target, int limit, int* pages = nullptr) {
    return all(
        target, limit, [](const json& b) { return b["data"]; }, pages);
  }
  static void expect_error(const HttpResponse& res, unsigned status, int code, const json& detail,
                           const std::string& title) {
    EXPECT_EQ(res.status, status) << res.body;
    EXPECT_EQ(res.json(), json({{"errors", {{{"code", code}, {"detail", detail}, {"title", title}}}}})) << res.body;
  }
};

}  // namespace

TEST_F(SentinelOneFakeTest, EveryCallNeedsTheApiToken) {
  fakes.sentinelone().seed({.sites = 3});
  const auto none = http(fakes.port(), "GET", std::string(kS1Api) + "/sites");
  expect_error(none, 401, 4010010, nullptr, "Authentication Failed");
  expect_error(get("/agents", "someone-elses-token"), 401, 4010010, nullptr, "Authentication Failed");
  EXPECT_EQ(http(fakes.port(), "GET", std::string(kS1Api) + "/sites", {},
                 {{"Authorization", "Bearer sandbox-endpointsec-token"}})
                .status,
            401u);
  EXPECT_EQ(get("/sites").status, 200u);
  EXPECT_EQ(get("/agents/count").status, 200u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/sentinelone/token", R"({"token": "rotated"})").status, 204u);
  EXPECT_EQ(get("/sites").status, 401u);
  EXPECT_EQ(get("/sites", "rotated").status, 200u);
  const auto stats = fakes.sentinelone().stats();
  EXPECT_EQ(stats["unauthorized"], 4);
  EXPECT_EQ(stats["requests"], 7);
}

TEST_F(SentinelOneFakeTest, PagesSitesByCursorToTheEnd) {
  fakes.sentinelone().seed({});
  const auto first = get("/sites");
  ASSERT_EQ(first.status, 200u) << first.body;
  const auto body = first.json();
  EXPECT_EQ(body["data"]["sites"].size(), 10u);  // SentinelOne's default limit
  EXPECT_EQ(body["pagination"]["totalItems"], 12);
  ASSERT_TRUE(body["pagination"]["nextCursor"].is_string());
  const auto rest = get("/sites?cursor=" + core::url_encode(body["pagination"]["nextCursor"].get<std::string>()));
  ASSERT_EQ(rest.status, 200u) << rest.body;
  EXPECT_EQ(rest.json()["data"]["sites"].size(), 2u);
  EXPECT_TRUE(rest.json()["pagination"]["nextCursor"].is_null());
  // allSites sums every site, whatever the page.
  EXPECT_EQ(rest.json()["data"]["allSites"], body["data"]["allSites"]);

  for (const int limit : {1, 5, 12, 1000}) {
    const auto sites = all_sites(limit);
    ASSERT_EQ(sites.size(), 12u) << limit;
    std::set<std::string> ids;
    std::int64_t active = 0, total = 0;
    for (const auto& s : sites) {
      ids.insert(s["id"]);
      active += s["activeLicenses"].get<std::int64_t>();
      total += s["totalLicenses"].get<std::int64_t>();
      for (const char* key : {"id", "name", "accountId", "accountName", "state", "siteType", "totalLicenses",
                              "activeLicenses", "isDefault", "sku", "unlimitedLicenses", "createdAt"})
        EXPECT_TRUE(s.contains(key)) << key;
    }
    EXPECT_EQ(ids.size(), 12u);
    EXPECT_EQ(body["data"]["allSites"], json({{"activeLicenses", active}, {"totalLicenses", total}}));
  }
  expect_error(get("/sites?limit=1001"), 400, 4000010, "limit: Must be between 1 and 1000.", "Validation Error");
  expect_error(get("/sites?limit=0"), 400, 4000010, "limit: Must be between 1 and 1000.", "Validation Error");
  expect_error(get("/sites?cursor=not-a-cursor"), 400, 4000010, "Invalid cursor value received", "Validation Error");
  // A cursor of the agents list is not one of the sites list.
  const auto agents = get("/agents?limit=1").json();
  expect_error(get("/sites?cursor=" + core::url_encode(agents["pagination"]["nextCursor"].get<std::string>())), 400,
               4000010, "Invalid cursor value received", "Validation Error");
  const auto count_only = get("/sites?countOnly=true").json();
  EXPECT_EQ(count_only["data"]["sites"], json::array());
  EXPECT_EQ(count_only["pagination"]["totalItems"], 12);
}

TEST_F(SentinelOneFakeTest, PagesAgentsBySiteToTheEnd) {
  fakes.sentinelone().seed({.sites = 4, .agents_min = 120, .agents_max = 160});
  const auto sites = all_sites(100);
  ASSERT_EQ(sites.size(), 4u);
  std::size_t sum = 0;
  std::set<std::string> every;
  for (const auto& s : sites) {
    const std::string id = s["id"];
    int pages = 0;
    const auto agents = all_agents("/agents?siteIds=" + id, 50, &pages);
    EXPECT_EQ(agents.size(), s["activeLicenses"].get<std::size_t>()) << s["name"];
    EXPECT_EQ(pages, static_cast<int>((agents.size() + 49) / 50));
    std::string previous;
    for (const auto& a : agents) {
      EXPECT_EQ(a["siteId"], id);
      EXPECT_EQ(a["siteName"], s["name"]);
      for (const char* key : {"id", "computerName", "isActive", "lastActiveDate", "osType", "agentVersion"})
        EXPECT_TRUE(a.contains(key)) << key;
      // In id order: equal-length decimal ids compare as text.
      EXPECT_LT(previous, a["id"].get<std::string>());
      previous = a["id"];
      every.insert(a["id"]);
    }
    sum += agents.size();
  }
  EXPECT_EQ(every.size(), sum);
  // Two sites at once, and every agent of the account, in pages of the largest size.
  const auto two =
      get("/agents?limit=1&siteIds=" + sites[1]["id"].get<std::string>() + "," + sites[2]["id"].get<std::string>());
  EXPECT_EQ(two.json()["pagination"]["totalItems"],
            sites[1]["activeLicenses"].get<int>() + sites[2]["activeLicenses"].get<int>());
  EXPECT_EQ(all_agents("/agents", 1000).size(), sum);
  const auto page = get("/agents").json();
  EXPECT_EQ(page["data"].size(), 10u);
  EXPECT_EQ(page["pagination"]["totalItems"], sum);

  expect_error(get("/agents?siteIds=0"), 400, 4000010,
               "siteIds: 0: Must be greater than or equal to 100000000000000000.", "Validation Error");
  EXPECT_EQ(get("/agents?siteIds=999999999999999999").json()["pagination"]["totalItems"], 0);
  EXPECT_EQ(fakes.sentinelone().stats()["bad_requests"], 1);
}

TEST_F(SentinelOneFakeTest, AgentCountsAgreeWithSitesAndLists) {
  fakes.sentinelone().seed({.seed = 5});
  const auto sites = all_sites(1000);
  ASSERT_EQ(sites.size(), 12u);
  std::int64_t sum = 0;
  for (const auto& s : sites) {
    const std::string id = s["id"];
    const auto count = get("/agents/count?siteIds=" + id);
    ASSERT_EQ(count.status, 200u) << count.body;
    const auto total = count.json()["data"]["total"].get<std::int64_t>();
    EXPECT_EQ(total, s["activeLicenses"].get<std::int64_t>()) << s["name"];
    EXPECT_EQ(get("/agents?countOnly=true&siteIds=" + id).json()["pagination"]["totalItems"], total);
    const auto active = get("/agents/count?isActive=true&siteIds=" + id).json()["data"]["total"].get<std::int64_t>();
    EXPECT_LE(active, total);
    sum += total;
  }
  EXPECT_EQ(get("/agents/count").json()["data"]["total"], sum);
  EXPECT_EQ(get("/sites?limit=1").json()["data"]["allSites"]["activeLicenses"], sum);
  const auto windows = get("/agents/count?osTypes=windows").json()["data"]["total"].get<std::int64_t>();
  EXPECT_GT(windows, sum / 2);
  EXPECT_LT(windows, sum);
  // One site is over-deployed, one has unlimited licences: what a coverage report has to cope with.
  int over = 0, unlimited = 0;
  for (const auto& s : sites) {
    over += s["activeLicenses"].get<int>() > s["totalLicenses"].get<int>() && !s["unlimitedLicenses"].get<bool>();
    unlimited += s["unlimitedLicenses"].get<bool>();
  }
  EXPECT_EQ(over, 1);
  EXPECT_EQ(unlimited, 1);
  const auto stats = fakes.sentinelone().stats();
  EXPECT_GT(stats["calls"]["agents_count"].get<int>(), 12);
}

TEST_F(SentinelOneFakeTest, ThrottlesAndFailsOnDemand) {
  fakes.sentinelone().seed({.sites = 2});
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/sentinelone/faults",
                 R"({"throttle": 1, "retry_after": 4, "server_errors": 1, "status": 503})")
                .status,
            204u);
  const auto throttled = get("/sites");
  EXPECT_EQ(throttled.status, 429u) << throttled.body;
  EXPECT_EQ(throttled.header("retry-after"), "4");
  EXPECT_EQ(throttled.json()["errors"][0]["title"], "Too Many Requests");
  const auto failed = get("/agents");
  EXPECT_EQ(failed.status, 503u) << failed.body;
  EXPECT_TRUE(failed.json()["errors"].is_array());
  EXPECT_EQ(get("/sites").status, 200u);
  // A wrong token is refused before any fault.
  fakes.sentinelone().set_faults({.throttle = 1});
  EXPECT_EQ(get("/sites", "wrong").status, 401u);
  EXPECT_EQ(get("/sites").status, 429u);
  const auto stats = fakes.sentinelone().stats();
  EXPECT_EQ(stats["throttled"], 2);
  EXPECT_EQ(stats["server_errors"], 1);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/sentinelone/faults", R"({"status": 200})").status, 400u);
}

TEST_F(SentinelOneFakeTest, SeedsSitesNamedAfterThePsaCompanies) {
  const auto seeded = http(fakes.port(), "POST", "/_sandbox/sentinelone/seed", R"({"seed": 2, "sites": 12})");
  ASSERT_EQ(seeded.status, 201u) << seeded.body;
  const auto rows = seeded.json();
  EXPECT_EQ(rows["sites"], 12);
  EXPECT_GE(rows["agents"].get<int>(), 11 * 150);
  EXPECT_LE(rows["agents"].get<int>(), 11 * 450 + 6);
  const auto sites = http(fakes.port(), "GET", "/_sandbox/sentinelone/sites").json()["sites"];
  std::set<std::string> psa;
  for (int i = 0; i < 40; ++i) psa.insert(sandbox::autotask::company_name(i));
  std::map<std::string, int> kinds;
  for (const auto& s : sites) {
    const std::string kind = s["_sandbox"]["match"];
    ++kinds[kind];
    if (kind == "exact") EXPECT_TRUE(psa.count(s["name"])) << s["name"];
    if (kind == "none" || kind == "default") EXPECT_FALSE(psa.count(s["name"])) << s["name"];
    if (kind == "variant") {
      EXPECT_FALSE(psa.count(s["name"])) << s["name"];
      EXPECT_TRUE(psa.count(s["_sandbox"]["psaName"])) << s["name"];
    }
  }
  EXPECT_EQ(kinds, (std::map<std::string, int>{{"default", 1}, {"exact", 6}, {"variant", 2}, {"none", 3}}));
  EXPECT_EQ(sites[0]["name"], "Default site");

  // Deterministic: the same options give the same rows.
  const auto now = std::chrono::sys_seconds(std::chrono::sys_days(std::chrono::year(2026) / 11 / 23));
  const auto a = sandbox::sentinelone::seed_data({.seed = 9, .sites = 5}, now);
  const auto b = sandbox::sentinelone::seed_data({.seed = 9, .sites = 5}, now);
  ASSERT_EQ(a.agents.size(), b.agents.size());
  for (std::size_t i = 0; i < a.sites.size(); ++i) EXPECT_EQ(a.sites[i].json, b.sites[i].json);
  for (std::size_t i = 0; i < a.agents.size(); ++i) EXPECT_EQ(a.agents[i].json, b.agents[i].json);
  EXPECT_NE(sandbox::sentinelone::seed_data({.seed = 10, .sites = 5}, now).sites[1].json, a.sites[1].json);

  EXPECT_EQ(http(fakes.port(), "POST", "/_sandbox/sentinelone/seed", R"({"agents_min": 9, "agents_max": 3})").status,
            400u);
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/sentinelone/reset").status, 204u);
  EXPECT_EQ(fakes.sentinelone().stats()["rows"]["sites"], 0);
}

// The Datto BCDR fake speaks the partner REST API over real HTTP: HTTP Basic with the public and secret
// key and its 401, _page/_perPage paging to the end, assets with their backups, 404 for an unknown
// serial, 400 for a bad page, the per-key rate limit (429 with Retry-After) and the echo switch.
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

class DattoFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse datto_get(const std::string& target, const std::string& user = "sandbox-backup-public",
                         const std::string& password = "sandbox-backup-secret") {
    return http(fakes.port(), "GET", "/datto/v1/bcdr" + target, {},
                {{"Authorization", "Basic " + core::base64(user + ":" + password)}});
  }
};

}  // namespace

TEST_F(DattoFakeTest, PagesDevicesAndAssetsBehindBasicAuth) {
  fakes.datto().seed({.seed = 3, .devices = 7, .agents_min = 2, .agents_max = 4, .backups = 5});
  EXPECT_EQ(datto_get("/device", "sandbox-backup-public", "wrong").status, 401u);
  EXPECT_EQ(http(fakes.port(), "GET", "/datto/v1/bcdr/device").status, 401u);

  std::set<std::string> serials;
  int pages = 0;
  for (int page = 1; page < 100; ++page) {
    const auto res = datto_get("/device?_page=" + std::to_string(page) + "&_perPage=3");
    ASSERT_EQ(res.status, 200u) << res.body;
    const json body = res.json();
    EXPECT_EQ(body["pagination"]["perPage"], 3);
    EXPECT_EQ(body["pagination"]["count"], 7);
    EXPECT_EQ(body["pagination"]["totalPages"], 3);
    if (body["items"].empty()) break;
    ++pages;
    for (const auto& d : body["items"]) serials.insert(d["serialNumber"].get<std::string>());
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(serials.size(), 7u);
  EXPECT_EQ(datto_get("/device?showHiddenDevices=0").json()["pagination"]["count"], 6);  // one hidden

  const std::string serial = *serials.begin();
  const json assets = datto_get("/device/" + serial + "/asset").json();
  ASSERT_FALSE(assets["items"].empty());
  int shares = 0;
  for (const auto& a : assets["items"]) {
    EXPECT_EQ(a["backups"].size(), 5u);
    EXPECT_TRUE(a["backups"][0]["timestamp"].get<std::string>().ends_with("+00:00"));
    EXPECT_TRUE(a["backups"][0]["backup"].contains("status"));
    if (a["type"] == "share") ++shares;
  }
  EXPECT_EQ(shares, 1);
  EXPECT_EQ(datto_get("/device/NOPE/asset").status, 404u);
  EXPECT_EQ(datto_get("/device?_page=0").status, 400u);
  EXPECT_EQ(datto_get("/device?_perPage=x").status, 400u);
}

TEST_F(DattoFakeTest, RateLimitFaultsAndEcho) {
  fakes.datto().seed({.devices = 2});
  fakes.datto().set_faults({.rate_per_minute = 2});
  EXPECT_EQ(datto_get("/device").status, 200u);
  EXPECT_EQ(datto_get("/device").status, 200u);
  const auto limited = datto_get("/device");
  EXPECT_EQ(limited.status, 429u);
  const int wait = std::stoi(std::string(limited.header("Retry-After")));
  EXPECT_GE(wait, 1);
  EXPECT_LE(wait, 61);
  EXPECT_EQ(fakes.datto().stats()["rate_limited"], 1);

  fakes.datto().set_faults({.server_errors = 1, .status = 504, .echo = {.credentials = true}});
  const auto failed = datto_get("/device");
  EXPECT_EQ(failed.status, 504u);
  EXPECT_NE(failed.body.find("sandbox-backup-secret"), std::string::npos) << failed.body;
  const auto refused = datto_get("/device", "sandbox-backup-public", "guessed-secret");
  EXPECT_EQ(refused.status, 401u);
  EXPECT_NE(refused.json()["message"].get<std::string>().find("guessed-secret"), std::string::npos);
  EXPECT_EQ(datto_get("/device").status, 200u);
}

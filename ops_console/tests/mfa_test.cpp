// The MFA summary (issue 20) against the Duo fake: signed calls accepted (and a wrong key
// refused), bypass and disabled users across the parent and its child accounts, a failing child
// reported rather than dropped, the cache, the state table, the call outcomes recorded.
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct MfaTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string tech;

  std::map<std::string, std::string> mfa_env() {
    return {{"MFA_BASE_URL", fakes.url() + "/duo"},
            {"MFA_INTEGRATION_KEY", fakes.duo().options().ikey},
            {"MFA_SECRET_KEY", fakes.duo().options().skey}};
  }
  void start_mfa(std::map<std::string, std::string> env) {
    add_user("tech@msp.example", kPassword);
    start(std::move(env));
    tech = sign_in("tech@msp.example", kPassword);
  }
  // The fake's own count of users of `status` (bypass, disabled), over every account.
  std::size_t expected(const char* status) {
    std::size_t n = 0;
    for (const auto& a : fakes.duo().accounts()) n += a[status].get<std::size_t>();
    return n;
  }
};

}  // namespace

TEST_F(MfaTest, FlaggedUsersCoverTheParentAndEveryChildAccount) {
  fakes.duo().seed({.seed = 3, .children = 2, .users = 400});
  start_mfa(mfa_env());
  const auto res = call("GET", "/api/mfa/users/flagged", nullptr, tech);
  ASSERT_EQ(res.status, 200u) << res.body;
  const json f = res.json();
  EXPECT_EQ(f["bypass"].size(), expected("bypass"));
  EXPECT_EQ(f["disabled"].size(), expected("disabled"));
  ASSERT_GT(f["bypass"].size(), 0u);
  ASSERT_EQ(f["accounts"].size(), 3u);
  std::set<std::string> accounts_with_bypass;
  for (const auto& u : f["bypass"]) accounts_with_bypass.insert(u["account"].get<std::string>());
  EXPECT_EQ(accounts_with_bypass.size(), 3u);  // users of the children, not only the parent's
  for (const auto& a : f["accounts"]) EXPECT_EQ(a["users"], 400) << a;
  const json& u = f["disabled"][0];
  for (const char* key : {"user", "email", "account", "enrolled", "lastLogin", "notes"})
    EXPECT_TRUE(u.contains(key)) << key << " in " << u;
  EXPECT_EQ(f["cached"], false);
  EXPECT_EQ(fakes.duo().stats()["signature_failures"], 0);  // every call signed as Duo checks it

  const json status = [&] {
    const auto s = call("GET", "/api/mfa/status", nullptr, tech);
    EXPECT_EQ(s.status, 200u) << s.body;
    return s.json();
  }();
  EXPECT_EQ(status["bypass"], expected("bypass"));
  EXPECT_EQ(status["disabled"], expected("disabled"));
  EXPECT_EQ(status["failedAccounts"], 0);
  EXPECT_EQ(status["cached"], true);  // the answer above, kept

  // Each call's outcome is recorded for the integration-health dashboard.
  EXPECT_TRUE(core::testing::eventually([&] {
    return sql("SELECT (calls > 3) || ' ' || failures || ' ' || (last_success_at IS NOT NULL) FROM integration_health "
               "WHERE key = 'mfa'") == "true 0 true";
  }));
}

// A child that fails is reported in `accounts` with its error; the others still answer. The
// parent failing is a 502.
TEST_F(MfaTest, AFailingChildAccountIsReportedNotDropped) {
  fakes.duo().seed({.seed = 5, .children = 2, .users = 50});
  auto env = mfa_env();
  env["MFA_CACHE_SECONDS"] = "0";
  start_mfa(env);
  const std::string child = fakes.duo().accounts()[1]["account_id"];
  ASSERT_TRUE(fakes.duo().set_account_failing(child, 403));
  const auto res = call("GET", "/api/mfa/users/flagged", nullptr, tech);
  ASSERT_EQ(res.status, 200u) << res.body;
  const json f = res.json();
  json failed;
  for (const auto& a : f["accounts"])
    if (a.contains("error")) failed = a;
  ASSERT_FALSE(failed.is_null()) << f["accounts"];
  EXPECT_EQ(failed["accountId"], child);
  EXPECT_TRUE(failed["users"].is_null());
  EXPECT_NE(failed["error"].get<std::string>().find("40301"), std::string::npos) << failed;
  for (const auto& u : f["bypass"]) EXPECT_NE(u["accountId"], child);
  EXPECT_EQ(call("GET", "/api/mfa/status", nullptr, tech).json()["failedAccounts"], 1);
  EXPECT_TRUE(core::testing::eventually([&] {
    return sql("SELECT failures > 0 AND last_error LIKE '%40301%' FROM integration_health WHERE key = 'mfa'") == "t";
  }));

  fakes.duo().set_account_failing(child, 0);
  fakes.duo().set_faults({.server_errors = 100, .status = 500});  // the parent too, every retry
  const auto down = call("GET", "/api/mfa/users/flagged", nullptr, tech);
  EXPECT_EQ(down.status, 502u) << down.body;
  fakes.duo().set_faults({});
}

// Not configured: 503 naming the missing settings, never their values; a wrong secret key: Duo's
// 401 reaches the caller as a 502 without the key; switched off: 403 first; no session: 401.
TEST_F(MfaTest, TheRoutesFollowTheirStateTable) {
  fakes.duo().seed({.seed = 1, .children = 0, .users = 10});
  start_mfa({{"MFA_BASE_URL", fakes.url() + "/duo"}});
  for (const char* path : {"/api/mfa/status", "/api/mfa/users/flagged"}) {
    const auto res = call("GET", path, nullptr, tech);
    EXPECT_EQ(res.status, 503u) << path;
    EXPECT_NE(res.body.find("MFA_INTEGRATION_KEY, MFA_SECRET_KEY"), std::string::npos) << res.body;
    EXPECT_EQ(call("GET", path).status, 401u);
  }
  auto env = mfa_env();
  env["MFA_SECRET_KEY"] = "not-the-secret-key-0000000000000000000000";
  start(env);
  const auto refused = call("GET", "/api/mfa/status", nullptr, tech);
  EXPECT_EQ(refused.status, 502u) << refused.body;
  EXPECT_NE(refused.body.find("40103"), std::string::npos) << refused.body;
  EXPECT_EQ(refused.body.find("not-the-secret-key"), std::string::npos);
  EXPECT_GT(fakes.duo().stats()["signature_failures"].get<int>(), 0);

  env = mfa_env();
  env["INTEGRATIONS_DISABLED"] = "duo";
  start(env);
  EXPECT_EQ(call("GET", "/api/mfa/status", nullptr, tech).status, 403u);
  EXPECT_EQ(call("GET", "/api/mfa/users/flagged", nullptr, tech).status, 403u);
}

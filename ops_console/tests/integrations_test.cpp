// Integration switches (issue 6): the env ∪ database rule, its fallbacks, and the routes.
#include "ops_console/integrations/health.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include "core/util/secrets.hpp"

namespace {

using namespace ops_console::integrations;
using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct IntegrationsTest : ConsoleTest {
  std::set<std::string> disabled_via(const std::string& conninfo, std::set<std::string> env) {
    core::testing::IoThreads io;
    core::db::Pool pool(
        io.executor(),
        {.conninfo = conninfo, .connect_timeout = std::chrono::seconds(2), .acquire_timeout = std::chrono::seconds(2)});
    Registry registry(pool, {.env_disabled = std::move(env)});
    return io.run(registry.disabled());
  }
  json items_by_key(const json& list) {
    json out = json::object();
    for (const auto& i : list["items"]) out[i["key"].get<std::string>()] = i;
    return out;
  }
};

}  // namespace

TEST(IntegrationNames, AliasesAndSpellingsMapToTheKeys) {
  EXPECT_EQ(known_integrations().size(), 13u);
  EXPECT_EQ(canonical_key("Pax8"), "distributor");
  EXPECT_EQ(canonical_key(" AutoTask "), "psa");
  EXPECT_EQ(canonical_key("cisco-duo"), "mfa");
  EXPECT_EQ(canonical_key("Access Gateway"), "access_gateway");
  EXPECT_EQ(canonical_key("MailSec"), "mailsec");
  EXPECT_EQ(canonical_key("Something-Else"), "something_else");  // unknown: normalised, kept
  EXPECT_EQ(parse_disabled_list({"Pax8", "distributor", "mimecast", "", "  "}),
            (std::set<std::string>{"distributor", "mailsec"}));
}

TEST_F(IntegrationsTest, TheDisabledSetIsTheEnvironmentAndTheRowsOrTheEnvironmentAlone) {
  sql("UPDATE integration_settings SET disabled = true WHERE key IN ('mfa', 'backup')");
  EXPECT_EQ(disabled_via(database.url(), {"distributor"}), (std::set<std::string>{"backup", "distributor", "mfa"}));
  EXPECT_EQ(disabled_via(database.url(), {}), (std::set<std::string>{"backup", "mfa"}));

  // nothing listens on port 1: the database is unreachable
  EXPECT_EQ(disabled_via("postgresql://postgres@127.0.0.1:1/postgres", {"distributor", "psa"}),
            (std::set<std::string>{"distributor", "psa"}));

  // the table is missing (a database from before the migration)
  sql("DROP TABLE integration_settings");
  EXPECT_EQ(disabled_via(database.url(), {"distributor"}), (std::set<std::string>{"distributor"}));
}

TEST_F(IntegrationsTest, AdminsListAndToggleWithTheReasonAndWhoDidIt) {
  add_user("keeper@msp.example", kPassword, false, {{"admin", "access"}});
  start({{"INTEGRATIONS_DISABLED", "Pax8, mimecast"}});
  const auto keeper = sign_in("keeper@msp.example", kPassword);

  const auto list = call("GET", "/api/admin/integrations", nullptr, keeper);
  ASSERT_EQ(list.status, 200u) << list.body;
  EXPECT_EQ(list.json()["env_disabled"], json({"distributor", "mailsec"}));
  auto items = items_by_key(list.json());
  ASSERT_EQ(items.size(), 13u);
  for (const auto& i : known_integrations()) {
    const auto& item = items[std::string(i.key)];
    EXPECT_EQ(item["disabled"], false) << i.key;  // seeded enabled
    EXPECT_EQ(item["label"], i.label);
    const bool by_env = i.key == "distributor" || i.key == "mailsec";
    EXPECT_EQ(item["disabled_by_env"], by_env) << i.key;
    EXPECT_EQ(item["effective_disabled"], by_env) << i.key;
  }

  const auto off =
      call("PATCH", "/api/admin/integrations",
           {{"key", "Duo"}, {"disabled", true}, {"reason", "vendor outage"}, {"disabled_by", "someone else"}}, keeper);
  ASSERT_EQ(off.status, 200u) << off.body;
  EXPECT_EQ(off.json()["key"], "mfa");
  EXPECT_EQ(off.json()["disabled"], true);
  EXPECT_EQ(off.json()["effective_disabled"], true);
  EXPECT_EQ(off.json()["reason"], "vendor outage");
  EXPECT_EQ(off.json()["disabled_by"], "keeper@msp.example");
  EXPECT_TRUE(off.json()["disabled_at"].is_string());
  // the change shows at once in the effective set of this instance
  items = items_by_key(call("GET", "/api/admin/integrations", nullptr, keeper).json());
  EXPECT_EQ(items["mfa"]["effective_disabled"], true);

  // disabling again keeps who and when; enabling clears them
  const auto first_at = off.json()["disabled_at"];
  EXPECT_EQ(
      call("PATCH", "/api/admin/integrations", {{"key", "mfa"}, {"disabled", true}, {"reason", "still out"}}, keeper)
          .json()["disabled_at"],
      first_at);
  const auto on = call("PATCH", "/api/admin/integrations", {{"key", "mfa"}, {"disabled", false}}, keeper);
  EXPECT_EQ(on.json()["disabled"], false);
  EXPECT_EQ(on.json()["effective_disabled"], false);
  EXPECT_EQ(on.json()["disabled_by"], nullptr);
  EXPECT_EQ(on.json()["updated_by"], "keeper@msp.example");
  // enabling in the database does not override the environment
  const auto env_off = call("PATCH", "/api/admin/integrations", {{"key", "distributor"}, {"disabled", false}}, keeper);
  EXPECT_EQ(env_off.json()["disabled"], false);
  EXPECT_EQ(env_off.json()["effective_disabled"], true);

  EXPECT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "fax"}, {"disabled", true}}, keeper).status, 404u);
  const auto bad = call("PATCH", "/api/admin/integrations",
                        {{"key", ""}, {"disabled", "yes"}, {"reason", std::string(501, 'r')}}, keeper);
  EXPECT_EQ(bad.status, 400u);
  ASSERT_EQ(bad.json()["errors"].size(), 3u);
  EXPECT_EQ(bad.json()["errors"][0]["field"], "key");
  EXPECT_EQ(bad.json()["errors"][1]["field"], "disabled");
  EXPECT_EQ(bad.json()["errors"][2]["field"], "reason");
  EXPECT_EQ(sql("SELECT string_agg(key, ',') FROM integration_settings WHERE disabled"), "");
}

// Two instances over one database, each caching for an hour: a PATCH on one reaches the other
// through NOTIFY, not through the cache running out.
TEST_F(IntegrationsTest, APatchClearsTheCacheOfEveryInstance) {
  add_user("boss@msp.example", kPassword, true);
  const std::map<std::string, std::string> env = {{"INTEGRATION_CACHE_SECONDS", "3600"}, {"LOGIN_DELAY_MS", "1"}};
  start(env);
  core::testing::RunningService other(ops_console::definition(), database.url(),
                                      core::config::Environment(env.begin(), env.end()));
  const auto boss = sign_in("boss@msp.example", kPassword);
  const auto effective_on_other = [&](const std::string& key) {
    const auto res =
        core::testing::http(other.port(), "GET", "/api/admin/integrations", "", {{"Cookie", "ops_session=" + boss}});
    EXPECT_EQ(res.status, 200u) << res.body;
    return items_by_key(res.json())[key]["effective_disabled"].get<bool>();
  };
  EXPECT_FALSE(effective_on_other("backup"));  // the other instance has cached the rows now

  // A write that fires no trigger (replica mode) announces nothing: the cache still answers.
  sql("SET session_replication_role = replica; UPDATE integration_settings SET disabled = true WHERE key = 'backup'");
  EXPECT_FALSE(effective_on_other("backup"));

  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "rmm"}, {"disabled", true}}, boss).status, 200u);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!effective_on_other("rmm") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(effective_on_other("rmm"));
  EXPECT_TRUE(effective_on_other("backup"));  // the whole cache was dropped, so the silent write shows too
}

// An error recorded for the dashboard carries no secret the process holds and is bounded: a vendor
// that echoes a token obtained a moment ago, or the configured secret, and quotes 240 KB of body
// (issue 31, part 4).
TEST_F(IntegrationsTest, ARecordedErrorIsMaskedAndBounded) {
  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  const Health health(pool, io.executor());
  core::secrets::remember("eyJ0eXAiOiJKV1Qi.an-obtained-token");  // as a client does when it gets one
  core::config::Reader reader({{"PSA_SECRET", "the-configured-psa-secret"}});
  (void)reader.secret("PSA_SECRET", "the PSA API user's secret");  // remembered as it is read
  const std::string echoed =
      "401: token eyJ0eXAiOiJKV1Qi.an-obtained-token and secret the-configured-psa-secret " + std::string(240'000, 'x');
  health.record("psa", Health::clock::now(), echoed);
  ASSERT_TRUE(health_shows("psa", "last_error IS NOT NULL"));
  const std::string stored = sql("SELECT last_error FROM integration_health WHERE key = 'psa'");
  EXPECT_EQ(stored.find("an-obtained-token"), std::string::npos) << stored.substr(0, 200);
  EXPECT_EQ(stored.find("the-configured-psa-secret"), std::string::npos) << stored.substr(0, 200);
  EXPECT_TRUE(stored.starts_with("401: token [redacted] and secret [redacted] ")) << stored.substr(0, 200);
  EXPECT_LT(stored.size(), 2200u);
}

// A burst (a sync's run of calls) holds the writes back to one a second and writes what is left
// when it ends: every call is counted once, the last failure with its error.
TEST_F(IntegrationsTest, ABurstsCallsAreAllRecordedWhenItEnds) {
  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  const Health health(pool, io.executor());
  {
    const auto burst = health.burst("psa");
    for (int i = 0; i < 50; ++i)
      health.record("psa", Health::clock::now(),
                    i == 7 ? std::optional<std::string>("HTTP 503: once") : std::optional<std::string>());
  }
  EXPECT_TRUE(health_shows("psa",
                           "calls = 50 AND failures = 1 AND last_error = 'HTTP 503: once' AND "
                           "last_success_at >= last_failure_at"));
}

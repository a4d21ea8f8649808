// Remote management (issue 33, item 2) against the Tactical RMM fake: the sync (clients with their
// sites, agents, scripts; history; one at a time; switched off and not configured), clients matched to
// PSA companies by name and by an administrator's mapping, and script executions: the permission pair
// (rmm, execute), the queue, the worker's outcomes (output, exit code, who asked), what is retried and
// what is not, the remote-management worker's figures, and that an execution never runs twice: with two
// instances on one database, and after a kill -9 of the service holding one.
#include "ops_console/rmm/history.hpp"
#include "ops_console/rmm/tactical.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;
using ops_console::testing::kPassword;

struct RmmTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss, tech, runner;

  std::map<std::string, std::string> rmm_env() {
    return {{"RMM_BASE_URL", fakes.url() + "/tacticalrmm"}, {"RMM_API_KEY", fakes.tacticalrmm().options().key}};
  }
  void start_rmm(std::map<std::string, std::string> env) {
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    add_user("runner@msp.example", kPassword, false, {{"rmm", "execute"}});
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
    runner = sign_in("runner@msp.example", kPassword);
  }
  json get_ok(const std::string& path, const std::string& token) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  void rmm_sync() {
    const auto res = call("POST", "/api/rmm/sync", nullptr, boss);
    ASSERT_EQ(res.status, 202u) << res.body;
    ASSERT_TRUE(core::testing::eventually([&] { return get_ok("/api/rmm/sync", tech)["inProgress"] == false; },
                                          std::chrono::seconds(30)));
  }
  std::string online_agent(int skip = 0) {
    for (const auto& a : fakes.tacticalrmm().agents())
      if (a["status"] == "online" && skip-- == 0) return a["agent_id"];
    return "";
  }
  // Two instances of the service on the test's database, with the executions' worker in each.
  std::pair<std::unique_ptr<core::testing::RunningService>, std::unique_ptr<core::testing::RunningService>>
  two_instances(std::map<std::string, std::string> env) {
    env["LOGIN_DELAY_MS"] = "1";
    const core::config::Environment e(env.begin(), env.end());
    return {std::make_unique<core::testing::RunningService>(ops_console::definition(), database.url(), e),
            std::make_unique<core::testing::RunningService>(ops_console::definition(), database.url(), e)};
  }
  json finished(std::int64_t id) {
    json e;
    EXPECT_TRUE(core::testing::eventually(
        [&] {
          e = get_ok("/api/rmm/executions/" + std::to_string(id), tech);
          return e["status"] == "succeeded" || e["status"] == "failed";
        },
        std::chrono::seconds(20)))
        << e;
    return e;
  }
};

}  // namespace

// Both settings or neither: one alone refuses start, naming what is missing.
TEST(RmmSettingsTest, OneOfTheTwoAloneRefusesStart) {
  core::config::Reader half(core::config::Environment{{"RMM_BASE_URL", "https://api.rmm.example"}});
  ops_console::rmm::read_rmm_settings(half);
  try {
    half.finish();
    ADD_FAILURE() << "a base URL without a key was accepted";
  } catch (const core::config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("RMM_API_KEY: is required with RMM_BASE_URL"), std::string::npos) << e.what();
  }
  core::config::Reader none(core::config::Environment{});
  EXPECT_EQ(ops_console::rmm::read_rmm_settings(none).missing().size(), 2u);
  none.finish();
}

TEST_F(RmmTest, SwitchedOffFirstThenNotConfigured) {
  start_rmm({});
  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "rmm"}, {"disabled", true}}, boss).status, 200u);
  EXPECT_EQ(call("POST", "/api/rmm/sync", nullptr, boss).status, 403u);
  EXPECT_EQ(call("POST", "/api/rmm/executions", {{"agentId", "x"}, {"scriptId", 1}}, runner).status, 403u);
  ASSERT_EQ(call("PATCH", "/api/admin/integrations", {{"key", "rmm"}, {"disabled", false}}, boss).status, 200u);
  auto res = call("POST", "/api/rmm/sync", nullptr, boss);
  EXPECT_EQ(res.status, 503u);
  EXPECT_NE(res.body.find("RMM_BASE_URL"), std::string::npos) << res.body;
  EXPECT_NE(res.body.find("RMM_API_KEY"), std::string::npos) << res.body;
  EXPECT_EQ(call("POST", "/api/rmm/executions", {{"agentId", "x"}, {"scriptId", 1}}, runner).status, 503u);
}

TEST_F(RmmTest, SyncMatchesClientsToCompaniesAndAdminsMapTheRest) {
  fakes.tacticalrmm().seed({.seed = 5, .clients = 4});
  start_rmm(rmm_env());
  for (const auto& c : fakes.tacticalrmm().clients())
    if (c["name"] != "Unmatched Holdings")
      sql("INSERT INTO companies (id, company_name) VALUES (" + c["id"].dump() + "00, '" +
          c["name"].get<std::string>() + "')");
  EXPECT_EQ(call("POST", "/api/rmm/sync", nullptr, tech).status, 403u);  // admins only
  fakes.tacticalrmm().set_faults({.latency = std::chrono::milliseconds(300)});
  ASSERT_EQ(call("POST", "/api/rmm/sync", nullptr, boss).status, 202u);
  EXPECT_EQ(call("POST", "/api/rmm/sync", nullptr, boss).status, 409u);  // one run at a time
  fakes.tacticalrmm().set_faults({});
  ASSERT_TRUE(core::testing::eventually([&] { return get_ok("/api/rmm/sync", tech)["inProgress"] == false; },
                                        std::chrono::seconds(30)));
  const json state = get_ok("/api/rmm/sync", tech);
  EXPECT_EQ(state["clients"], 4);
  EXPECT_EQ(state["agents"], fakes.tacticalrmm().agents().size());
  EXPECT_EQ(state["scripts"], 5);  // four user-defined, one community
  ASSERT_EQ(state["history"].size(), 1u);
  EXPECT_EQ(state["history"][0]["status"], "succeeded") << state["history"][0];
  EXPECT_EQ(state["history"][0]["entityType"], "rmm");

  const json clients = get_ok("/api/rmm/clients", tech);
  ASSERT_EQ(clients.size(), 4u);
  for (const auto& c : clients) {
    EXPECT_FALSE(c["sites"].empty());
    if (c["name"] == "Unmatched Holdings") {
      EXPECT_TRUE(c["companyId"].is_null());
    } else {
      EXPECT_EQ(c["companyId"], c["id"].get<int>() * 100) << c;
      EXPECT_EQ(c["matchedBy"], "name");
    }
  }
  json unmatched = get_ok("/api/rmm/clients/unmatched", tech);
  ASSERT_EQ(unmatched.size(), 1u);
  const auto client = unmatched[0]["id"];
  EXPECT_EQ(call("POST", "/api/rmm/company-mappings", {{"clientId", client}, {"companyId", 100}}, tech).status, 403u);
  auto res = call("POST", "/api/rmm/company-mappings", {{"clientId", 999}, {"companyId", 100}}, boss);
  EXPECT_EQ(res.status, 400u);
  EXPECT_NE(res.body.find("clientId"), std::string::npos);
  ASSERT_EQ(call("POST", "/api/rmm/company-mappings", {{"clientId", client}, {"companyId", 100}}, boss).status, 200u);
  EXPECT_TRUE(get_ok("/api/rmm/clients/unmatched", tech).empty());
  EXPECT_EQ(sql("SELECT rmm_client_json(c)->>'matchedBy' FROM rmm_clients c WHERE id = " + client.dump()), "mapping");
  EXPECT_EQ(call("DELETE", "/api/rmm/company-mappings?clientId=" + client.dump(), nullptr, boss).status, 204u);
  EXPECT_EQ(call("DELETE", "/api/rmm/company-mappings?clientId=" + client.dump(), nullptr, boss).status, 404u);
  EXPECT_TRUE(health_shows("rmm", "failures = 0 AND calls >= 3"));
}

TEST_F(RmmTest, AnExecutionRunsOnceWithItsOutputExitCodeAndWhoAsked) {
  start_rmm(rmm_env());
  rmm_sync();
  const std::string agent = online_agent();
  const json body{{"agentId", agent}, {"scriptId", 1}, {"args", {"-Days", "7"}}};
  EXPECT_EQ(call("POST", "/api/rmm/executions", body, tech).status, 403u);  // needs (rmm, execute)
  auto res = call("POST", "/api/rmm/executions", {{"agentId", "nosuch"}, {"scriptId", 1}}, runner);
  EXPECT_EQ(res.status, 400u);
  EXPECT_NE(res.body.find("agentId"), std::string::npos);
  EXPECT_EQ(call("POST", "/api/rmm/executions", {{"agentId", agent}, {"scriptId", 99}}, runner).status, 400u);

  res = call("POST", "/api/rmm/executions", body, runner);
  ASSERT_EQ(res.status, 202u) << res.body;
  EXPECT_EQ(res.json()["status"], "queued");
  json e = finished(res.json()["id"].get<std::int64_t>());
  EXPECT_EQ(e["status"], "succeeded") << e;
  EXPECT_EQ(e["exitCode"], 0);
  EXPECT_EQ(e["output"], "Removed 412 files (1.2 GB)\n");
  EXPECT_EQ(e["requestedBy"]["email"], "runner@msp.example");
  EXPECT_EQ(e["script"], "Clear temporary files");
  EXPECT_EQ(e["attempts"], 1);
  const json runs = fakes.tacticalrmm().runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["agent_id"], agent);
  EXPECT_EQ(runs[0]["args"], json({"-Days", "7"}));

  // A non-zero exit: failed, with its output and code. Output past the limit is cut.
  e = finished(call("POST", "/api/rmm/executions", {{"agentId", agent}, {"scriptId", 3}}, runner).json()["id"]);
  EXPECT_EQ(e["status"], "failed");
  EXPECT_EQ(e["exitCode"], 1);
  EXPECT_NE(e["output"].get<std::string>().find("WARNING: a reboot is pending"), std::string::npos);
  e = finished(call("POST", "/api/rmm/executions", {{"agentId", agent}, {"scriptId", 4}}, runner).json()["id"]);
  EXPECT_EQ(e["status"], "succeeded");
  EXPECT_LE(e["output"].get<std::string>().size(), 65536u + 64);

  const json listed = get_ok("/api/rmm/executions", tech);
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0]["scriptId"], 4);  // newest first

  // The remote-management worker reports them: two succeeded, one failed this hour, none in flight.
  const json workers = get_ok("/api/status/workers", tech)["workers"];
  const json* rmm = nullptr;
  for (const auto& w : workers)
    if (w["name"] == "remote-management") rmm = &w;
  ASSERT_NE(rmm, nullptr);
  EXPECT_EQ((*rmm)["configured"], true);
  EXPECT_EQ((*rmm)["inFlight"], 0);
  EXPECT_EQ((*rmm)["failuresLastHour"], 1);
  EXPECT_EQ((*rmm)["activity24h"].back()["success"], 2);
  EXPECT_EQ((*rmm)["activity24h"].back()["failure"], 1);
}

TEST_F(RmmTest, OnlyAThrottledRunIsRetried) {
  start_rmm(rmm_env());
  rmm_sync();
  const std::string agent = online_agent();
  // 429: Tactical throttled before its view, the agent was not asked: run again, once.
  // Five 429s: the client's own four retries, then the queue's (after Retry-After, at least 1 s).
  fakes.tacticalrmm().set_faults({.throttle = 5, .retry_after = 0});
  json e = finished(call("POST", "/api/rmm/executions", {{"agentId", agent}, {"scriptId", 2}}, runner).json()["id"]);
  EXPECT_EQ(e["status"], "succeeded") << e;
  EXPECT_EQ(e["attempts"], 2);
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 1u);
  // A server error may have come after the agent was asked: failed, not sent again.
  fakes.tacticalrmm().set_faults({.server_errors = 1, .status = 502});
  e = finished(call("POST", "/api/rmm/executions", {{"agentId", agent}, {"scriptId", 2}}, runner).json()["id"]);
  EXPECT_EQ(e["status"], "failed");
  EXPECT_EQ(e["attempts"], 1);
  EXPECT_NE(e["error"].get<std::string>().find("HTTP 502"), std::string::npos) << e;
  // An agent that did not answer: failed with Tactical's word for it.
  std::string offline;
  for (const auto& a : fakes.tacticalrmm().agents())
    if (a["status"] == "offline") offline = a["agent_id"];
  ASSERT_FALSE(offline.empty());
  e = finished(call("POST", "/api/rmm/executions", {{"agentId", offline}, {"scriptId", 2}}, runner).json()["id"]);
  EXPECT_EQ(e["status"], "failed");
  EXPECT_EQ(e["output"], "timeout");
}

TEST_F(RmmTest, TwoInstancesRunEachExecutionOnce) {
  start_rmm(rmm_env());
  rmm_sync();
  fakes.tacticalrmm().set_faults({.run = std::chrono::milliseconds(50)});
  // Queued while no worker looks, then two instances start on the database at once.
  svc.reset();
  const std::string a0 = online_agent(0), a1 = online_agent(1);
  for (int i = 0; i < 16; ++i)
    sql("INSERT INTO rmm_executions (device, script, agent_id, script_id, timeout_seconds) VALUES ('pc', 'x', '" +
        (i % 2 ? a0 : a1) + "', " + std::to_string(i % 2 + 1) + ", 30)");
  const auto instances = two_instances(rmm_env());
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT count(*) FROM rmm_executions WHERE status = 'succeeded'") == "16"; },
      std::chrono::seconds(30)))
      << sql("SELECT string_agg(status || ' ' || coalesce(error, ''), '; ') FROM rmm_executions");
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 16u);
  EXPECT_EQ(sql("SELECT max(attempts) FROM rmm_executions"), "1");
}

// A run that outlasts its first lease is not taken for a dead worker's: its worker renews the
// lease while it runs, so the other instance's passes leave it running, and its outcome is kept.
TEST_F(RmmTest, AWorkerRenewsTheLeaseOfARunThatOutlastsIt) {
  start_rmm(rmm_env());
  rmm_sync();
  svc.reset();
  const std::string agent = online_agent();
  fakes.tacticalrmm().set_faults({.run = std::chrono::seconds(7)});  // past the first lease's 4 s
  sql("INSERT INTO rmm_executions (device, script, agent_id, script_id, timeout_seconds) VALUES ('pc', 'x', '" + agent +
      "', 1, 1)");
  auto env = rmm_env();
  env["RMM_LEASE_MARGIN_SECONDS"] = "0";  // a 4 s lease (1 s timeout, Tactical's 3 s), renewed every 1.3 s
  const auto instances = two_instances(env);
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT status NOT IN ('queued', 'running') FROM rmm_executions") == "t"; },
      std::chrono::seconds(30)));
  EXPECT_EQ(sql("SELECT status || ' ' || interrupted || ' ' || coalesce(error, '') FROM rmm_executions"),
            "succeeded false ");
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 1u);
}

TEST_F(RmmTest, AnExecutionHeldByAKilledServiceIsNeverRunAgain) {
  start_rmm(rmm_env());
  rmm_sync();
  svc.reset();
  const std::string agent = online_agent();
  // The script takes a while: the child service is in the middle of the run-script call when killed.
  fakes.tacticalrmm().set_faults({.run = std::chrono::seconds(4)});
  sql("INSERT INTO rmm_executions (device, script, agent_id, script_id, timeout_seconds) VALUES ('pc', 'x', '" + agent +
      "', 1, 1)");
  auto env = rmm_env();
  env["RMM_LEASE_MARGIN_SECONDS"] = "0";  // the lease ends 4 s after the claim (1 s timeout, Tactical's 3 s)
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(env, [&] { return fakes.tacticalrmm().stats()["in_flight_runs"] == 1; }));
  EXPECT_EQ(sql("SELECT status FROM rmm_executions"), "running");
  fakes.tacticalrmm().set_faults({});
  // Another instance finds the lapsed lease: failed as interrupted, not sent again.
  auto again = rmm_env();
  again["RMM_LEASE_MARGIN_SECONDS"] = "0";
  start(again);
  ASSERT_TRUE(core::testing::eventually([&] { return sql("SELECT status FROM rmm_executions") == "failed"; },
                                        std::chrono::seconds(20)));
  EXPECT_EQ(sql("SELECT interrupted FROM rmm_executions"), "t");
  EXPECT_NE(sql("SELECT error FROM rmm_executions").find("may or may not have run"), std::string::npos);
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 1u);
  const json e = get_ok("/api/rmm/executions", sign_in("tech@msp.example", kPassword))[0];
  EXPECT_EQ(e["interrupted"], true);
}

// A run writes only the rows whose kept fields differ from Tactical's (issue 33 item 5), and marks
// deleted what Tactical no longer lists although an unchanged row's synced_at no longer moves: a
// row edited by hand is written again, one marked deleted by hand comes back, one Tactical never
// listed is marked deleted, and every other row keeps its synced_at.
TEST_F(RmmTest, ASyncRewritesOnlyTheRowsThatChanged) {
  fakes.tacticalrmm().seed({.seed = 5, .clients = 3});
  start_rmm(rmm_env());
  rmm_sync();
  const json agents = fakes.tacticalrmm().agents();
  ASSERT_GE(agents.size(), 2u);
  const std::string edited = agents[0]["agent_id"], undeleted = agents[1]["agent_id"];
  const std::string hostname = agents[0]["hostname"];
  sql("UPDATE rmm_agents SET hostname = 'edited-by-hand' WHERE agent_id = '" + edited + "'");
  sql("UPDATE rmm_agents SET deleted_at = now() WHERE agent_id = '" + undeleted + "'");
  sql("INSERT INTO rmm_agents (agent_id, hostname, synced_at) VALUES ('never-listed', 'gone', now() - interval '1h')");
  const std::string mark = sql("SELECT now()");

  rmm_sync();
  EXPECT_EQ(sql("SELECT string_agg(agent_id, ' ' ORDER BY agent_id) FROM rmm_agents WHERE synced_at > '" + mark + "'"),
            std::min(edited, undeleted) + " " + std::max(edited, undeleted));
  EXPECT_EQ(sql("SELECT hostname FROM rmm_agents WHERE agent_id = '" + edited + "'"), hostname);
  EXPECT_EQ(sql("SELECT deleted_at IS NULL FROM rmm_agents WHERE agent_id = '" + undeleted + "'"), "t");
  EXPECT_EQ(sql("SELECT deleted_at IS NOT NULL FROM rmm_agents WHERE agent_id = 'never-listed'"), "t");
  EXPECT_EQ(sql("SELECT count(*) FROM rmm_clients WHERE synced_at > '" + mark + "'"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM rmm_sites WHERE synced_at > '" + mark + "'"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM rmm_scripts WHERE synced_at > '" + mark + "'"), "0");
  const json state = get_ok("/api/rmm/sync", tech);
  EXPECT_EQ(state["agents"], agents.size());                          // listed and not deleted
  EXPECT_EQ(state["history"][0]["counts"]["agents"], agents.size());  // every listed row, written or not
  EXPECT_EQ(state["history"][0]["counts"]["clients"], 3);
  EXPECT_EQ(state["history"][0]["counts"]["deleted"], 1);
}

// fuzz/corpus/rmm_history/odd_types: a history entry whose type or id is of another type threw
// json's type_error out of run_script (the output lost), and an entry without script_results was
// read through const operator[] (undefined).
TEST(RmmHistoryTest, EntriesOfAnotherShapeAreSkippedNotThrown) {
  using nlohmann::json;
  using ops_console::rmm::script_exit_code;
  EXPECT_EQ(script_exit_code(json::parse(R"([{"id":"x","type":5,"script":1},
      {"id":3,"type":"script_run","script":1,"script_results":{"retcode":2}},
      {"id":2,"type":"script_run","script":1,"script_results":{"retcode":9}}])"),
                             1),
            2);
  EXPECT_FALSE(script_exit_code(json::parse(R"([{"id":1,"type":"script_run","script":1}])"), 1));
  EXPECT_FALSE(script_exit_code(json::parse(R"([{"id":1,"type":"script_run","script":1,
      "script_results":{"retcode":4294967296}}])"),
                                1));
  EXPECT_FALSE(script_exit_code(json::parse(R"({"not":"a list"})"), 1));
}

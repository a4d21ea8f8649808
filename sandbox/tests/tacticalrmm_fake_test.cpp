// The Tactical RMM fake speaks Tactical's REST API over real HTTP: X-API-KEY and Django REST framework's
// 401s, trailing slashes (a GET without one redirected, a POST a 500), clients with their sites, agents,
// scripts, and the run-script call: output "wait" answers stdout + stderr as a JSON string, the exit code
// lands in the agent's history, an offline agent answers "timeout", a missing field is a 500, a throttle a
// 429 with Retry-After.
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

class TacticalRmmFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse trmm(const std::string& method, const std::string& path, const json& body = nullptr,
                    const std::string& key = "sandbox-rmm-key") {
    std::map<std::string, std::string> headers{{"Content-Type", "application/json"}};
    if (!key.empty()) headers["X-API-KEY"] = key;
    return http(fakes.port(), method, "/tacticalrmm" + path, body.is_null() ? "" : body.dump(), headers);
  }
  json run_body(int script, std::string output = "wait") {
    return {{"script", script},     {"output", output},          {"args", json::array()},
            {"run_as_user", false}, {"env_vars", json::array()}, {"timeout", 30}};
  }
};

TEST_F(TacticalRmmFakeTest, KeyTrailingSlashesAndLists) {
  auto res = trmm("GET", "/clients/", nullptr, "");
  EXPECT_EQ(res.status, 401u);
  EXPECT_EQ(res.json()["detail"], "Authentication credentials were not provided.");
  res = trmm("GET", "/clients/", nullptr, "wrong");
  EXPECT_EQ(res.status, 401u);
  EXPECT_EQ(res.json()["detail"], "Invalid token.");

  res = trmm("GET", "/agents?client=1");
  EXPECT_EQ(res.status, 301u);
  EXPECT_EQ(res.header("location"), "/tacticalrmm/agents/?client=1");

  fakes.tacticalrmm().seed({.seed = 3, .clients = 4});
  const json clients = trmm("GET", "/clients/").json();
  ASSERT_EQ(clients.size(), 4u);
  EXPECT_EQ(clients.back()["name"], "Unmatched Holdings");
  int agents = 0;
  for (const auto& c : clients) {
    ASSERT_FALSE(c["sites"].empty());
    for (const auto& s : c["sites"]) EXPECT_EQ(s["client"], c["id"]);
    agents += c["agent_count"].get<int>();
  }
  const json all = trmm("GET", "/agents/").json();
  EXPECT_EQ(static_cast<int>(all.size()), agents);
  EXPECT_EQ(all[0]["agent_id"].get<std::string>().size(), 40u);
  EXPECT_TRUE(all[0].contains("client_name") && all[0].contains("site_name") && all[0].contains("status"));
  const json brief = trmm("GET", "/agents/?detail=false&client=1").json();
  EXPECT_EQ(brief.size(), clients[0]["agent_count"].get<std::size_t>());
  EXPECT_EQ(brief[0].size(), 5u);  // id, hostname, agent_id, client, site
  EXPECT_EQ(trmm("GET", "/scripts/").json().size(), 5u);
  EXPECT_EQ(trmm("GET", "/scripts/?showCommunityScripts=false").json().size(), 4u);
  EXPECT_EQ(trmm("GET", "/agents/nosuchagent/").json()["detail"], "Not found.");
}

TEST_F(TacticalRmmFakeTest, RunScriptWaitsForTheOutputAndRecordsTheExitCode) {
  const json agents = fakes.tacticalrmm().agents();
  std::string online, offline;
  for (const auto& a : agents) (a["status"] == "online" ? online : offline) = a["agent_id"];
  ASSERT_FALSE(online.empty());
  ASSERT_FALSE(offline.empty());

  auto res = trmm("POST", "/agents/" + online + "/runscript/", run_body(3));
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json(), "Reboot pending: Windows Update\nWARNING: a reboot is pending\n");
  const json history = trmm("GET", "/agents/" + online + "/history/").json();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["type"], "script_run");
  EXPECT_EQ(history[0]["script"], 3);
  EXPECT_EQ(history[0]["script_results"]["retcode"], 1);

  res = trmm("POST", "/agents/" + online + "/runscript/", run_body(1, "forget"));
  EXPECT_EQ(res.json().get<std::string>().find("Clear temporary files will now be run on "), 0u);
  EXPECT_EQ(trmm("POST", "/agents/" + offline + "/runscript/", run_body(1)).json(), "timeout");
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 2u);  // the offline agent ran nothing

  EXPECT_EQ(trmm("POST", "/agents/" + online + "/runscript/", run_body(99)).status, 404u);
  json partial = run_body(1);
  partial.erase("env_vars");
  EXPECT_EQ(trmm("POST", "/agents/" + online + "/runscript/", partial).status, 500u);
  EXPECT_EQ(trmm("POST", "/agents/" + online + "/runscript", run_body(1)).status, 500u);  // no slash

  fakes.tacticalrmm().set_faults({.throttle = 1, .retry_after = 7});
  res = trmm("POST", "/agents/" + online + "/runscript/", run_body(1));
  EXPECT_EQ(res.status, 429u);
  EXPECT_EQ(res.header("retry-after"), "7");
  EXPECT_EQ(fakes.tacticalrmm().runs().size(), 2u);  // throttled before the view
}

}  // namespace

#pragma once
// A fake of Tactical RMM's REST API (remote management), following its published source
// (github.com/amidaware/tacticalrmm, read at commit 2195c3b, June 2026; the agent's side in
// github.com/amidaware/rmmagent) rather than any client's expectations, under /tacticalrmm so that
// RMM_BASE_URL = <sandbox>/tacticalrmm:
//
//   GET  /tacticalrmm/clients/                       → [client...], each with its sites (clients/views.py
//                                                      GetAddClients, serializers.py ClientSerializer)
//   GET  /tacticalrmm/clients/sites/                 → [site...] (GetAddSites, SiteSerializer)
//   GET  /tacticalrmm/agents/                        ?client, ?site, ?detail → [agent...] (agents/views.py
//                                                      GetAgents: AgentTableSerializer, or with detail=false
//                                                      AgentHostnameSerializer {id, hostname, agent_id, client, site})
//   GET  /tacticalrmm/agents/<agent_id>/             → the agent, 404 {"detail": "Not found."}
//   GET  /tacticalrmm/agents/<agent_id>/history/     → [history...] (AgentHistoryView: AgentHistorySerializer,
//                                                      every field of AgentHistory and script_name)
//   GET  /tacticalrmm/scripts/                       ?showCommunityScripts → [script...] (scripts/views.py
//                                                      GetAddScripts: ScriptTableSerializer; community scripts,
//                                                      script_type "builtin", unless showCommunityScripts=false)
//   POST /tacticalrmm/agents/<agent_id>/runscript/   {script, output, args, run_as_user, env_vars, timeout}
//
// What a client meets, as on Tactical RMM:
//   - authentication is the header `X-API-KEY: <key>` (tacticalrmm/auth.py APIAuthentication, after knox's
//     TokenAuthentication in settings.py DEFAULT_AUTHENTICATION_CLASSES, so a refusal is a 401 with
//     `WWW-Authenticate: Token`): none → 401 {"detail": "Authentication credentials were not provided."}, an
//     unknown key → 401 {"detail": "Invalid token."} (Django REST framework's words);
//   - every path ends with a slash (urls.py). Django's APPEND_SLASH answers a GET without it with a 301 to the
//     slashed path; a POST without it cannot be redirected, and production (DEBUG off) answers 500;
//   - lists are plain JSON arrays, not paged (the views return serializer.data of the whole queryset);
//   - run_script (agents/views.py): the agent and the script are looked up with get_object_or_404 (404
//     {"detail": "Not found."}); each of script, output, args, run_as_user, env_vars, timeout is read with
//     request.data[...] and a missing one is a KeyError: a 500 (an HTML page here, "Server Error (500)").
//     Tactical creates an AgentHistory row (type "script_run", username = the API key's user) and asks the agent
//     over NATS with timeout + 3 s. With output "wait" it answers the agent's reply as a JSON string: the
//     script's stdout + stderr (rmmagent agent/rpc.go, case "runscript": `retData = stdout + stderr`), "timeout"
//     when the agent did not answer in time (an offline agent: this fake answers at once instead of waiting),
//     or "natsdown". The agent then reports {id, stdout, stderr, retcode, execution_time} as the history row's
//     script_results (rpc.go: PATCH /api/v3/<id>/<agent_id>/histresult/): the exit code is read from the history,
//     the run-script answer has none. Another output ("forget") answers "<script> will now be run on <host>";
//   - a throttled call is 429 {"detail": "Request was throttled. Expected available in N seconds."} with
//     Retry-After (Django REST framework's throttling, which runs before the view: the script did not start).
//     Tactical publishes no other error shapes; server errors are Django's HTML 500 page (unverified beyond that).
//
// Key (TacticalRmmFakeOptions): "sandbox-rmm-key". Seed: `clients` clients, most named exactly after the PSA
// fake's companies (autotask::company_name), one ("Unmatched Holdings") after none, 1-2 sites each, 2-4 agents a
// site (one agent in ten offline), agent ids of 40 letters as the agent makes them (rmmagent agent/utils.go
// GenerateAgentID); four user-defined scripts and a community one, each with its stdout, stderr
// and exit code.
//
// Control routes under /_sandbox/tacticalrmm:
//   POST /_sandbox/tacticalrmm/reset    forget runs, switches and counters; the seed back to its default
//   POST /_sandbox/tacticalrmm/seed     {seed, clients} → 201 {clients, sites, agents, scripts}
//   PUT  /_sandbox/tacticalrmm/faults   {throttle, retry_after, server_errors, status, latency_ms, run_ms,
//                                       echo_credentials, error_padding}: run_ms holds each run-script call
//                                       that long (a script that takes a while); with echo_credentials a 401
//                                       and a fault's error quote the X-API-KEY received (echo.hpp)
//   GET  /_sandbox/tacticalrmm/runs     {runs: [{agent_id, script, args, at}]}: every script an agent was asked to run
//   GET  /_sandbox/tacticalrmm/stats    {requests, unauthorized, throttled, server_errors, runs, in_flight_runs}
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace sandbox {

struct TacticalRmmFakeOptions {
  std::string key = "sandbox-rmm-key";
};

struct TacticalRmmFaults {
  int throttle = 0;       // the next N authorised API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N authorised API calls answer `status`
  int status = 500;
  std::chrono::milliseconds latency{0};  // added to every authorised API call
  std::chrono::milliseconds run{0};      // added to every run-script call (the script's own time)
  EchoSwitch echo;                       // errors quote the X-API-KEY received (echo.hpp)
};

struct TacticalRmmSeed {
  std::uint32_t seed = 1;
  int clients = 6;
};

class TacticalRmmFake {
 public:
  explicit TacticalRmmFake(TacticalRmmFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  nlohmann::json seed(const TacticalRmmSeed& options);  // replaces everything; answers the counts
  void set_faults(TacticalRmmFaults faults);
  nlohmann::json stats() const;
  nlohmann::json runs() const;     // every run-script call that reached an agent
  nlohmann::json clients() const;  // GET /clients/ as served
  nlohmann::json agents() const;   // GET /agents/ as served
  const TacticalRmmFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }

 private:
  struct Agent {
    nlohmann::json row;  // AgentTableSerializer's fields
    bool online = true;
  };
  struct Script {
    nlohmann::json row;  // ScriptTableSerializer's fields
    std::string stdout_text, stderr_text;
    int retcode = 0;
  };

  void install_control(core::http::Router& router);
  // The key, the latency and the fault switches; nullopt: go on to the view.
  boost::asio::awaitable<std::optional<core::http::Response>> gate(const core::http::Request& req,
                                                                   TacticalRmmFaults& faults);
  boost::asio::awaitable<core::http::Response> run_script(core::http::Request& req);
  const Agent* agent_of(std::string_view agent_id) const;  // callers hold mutex_

  TacticalRmmFakeOptions options_;
  mutable std::mutex mutex_;
  nlohmann::json clients_ = nlohmann::json::array();
  std::vector<Agent> agents_;
  std::vector<Script> scripts_;
  nlohmann::json history_ = nlohmann::json::array();
  nlohmann::json runs_ = nlohmann::json::array();
  std::int64_t next_history_ = 1;
  TacticalRmmFaults faults_;
  std::int64_t requests_ = 0, unauthorised_ = 0, throttled_ = 0, server_errors_ = 0;
  int in_flight_runs_ = 0;
  Echoes echoes_;
};

}  // namespace sandbox

// The Tactical RMM fake: its state, the gate every API call passes (the key, latency and faults), the views
// and the control routes (tacticalrmm_fake.hpp lists them).
#include "sandbox/tacticalrmm_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/control_body.hpp"

#include <algorithm>
#include <cctype>
#include <random>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::string_view kTrmm = "/tacticalrmm";

// Django REST framework's error shape.
Response trmm_detail(Status status, std::string detail) {
  return Response::json({{"detail", std::move(detail)}}, status);
}

Response trmm_server_error(int status) {
  return Response::text(
      "\n<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>Server Error (500)</title>\n</head>\n"
      "<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n",
      static_cast<Status>(status), "text/html; charset=utf-8");
}

std::string trmm_now() { return core::format_rfc3339(core::now()); }

}  // namespace

TacticalRmmFake::TacticalRmmFake(TacticalRmmFakeOptions options) : options_(std::move(options)) { seed({}); }

void TacticalRmmFake::reset() {
  seed({});
  std::lock_guard lock(mutex_);
  faults_ = {};
  runs_ = json::array();
  requests_ = unauthorised_ = throttled_ = server_errors_ = 0;
  echoes_.clear();
}

json TacticalRmmFake::seed(const TacticalRmmSeed& options) {
  std::mt19937 rng(options.seed);
  const auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  json clients = json::array();
  std::vector<Agent> agents;
  std::int64_t site_id = 1, agent_pk = 1, sites = 0;
  const char* plats[] = {"windows", "windows", "windows", "linux", "darwin"};
  for (int c = 1; c <= options.clients; ++c) {
    const std::string name = c == options.clients ? "Unmatched Holdings" : autotask::company_name(c);
    json client{{"id", c},
                {"name", name},
                {"server_policy", nullptr},
                {"workstation_policy", nullptr},
                {"alert_template", nullptr},
                {"block_policy_inheritance", false},
                {"sites", json::array()},
                {"custom_fields", json::array()},
                {"agent_count", 0},
                {"maintenance_mode", false},
                {"failing_checks", {{"error", false}, {"warning", false}}}};
    std::string host_prefix;  // "alderwood-pc-3": the client's first letters and digits
    for (const char ch : name)
      if (std::isalnum(static_cast<unsigned char>(ch)) && host_prefix.size() < 9)
        host_prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const int site_count = between(1, 2);
    int client_agents = 0;
    for (int s = 0; s < site_count; ++s, ++site_id, ++sites) {
      const std::string site_name = s == 0 ? "Main Office" : "Branch " + std::to_string(s);
      const int n = between(2, 4);
      for (int a = 0; a < n; ++a, ++agent_pk) {
        std::string agent_id;  // 40 letters, as Tactical's agents make them; from the seed
        for (int k = 0; k < 40; ++k) agent_id += "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[between(0, 51)];
        const bool online = agent_pk % 10 != 0;
        const std::string plat = plats[between(0, 4)];
        agents.push_back(
            {json{{"agent_id", agent_id},
                  {"alert_template", nullptr},
                  {"hostname", host_prefix + "-" + (plat == "windows" ? "pc" : plat) + "-" + std::to_string(agent_pk)},
                  {"site_name", site_name},
                  {"client_name", name},
                  {"monitoring_type", agent_pk % 7 == 0 ? "server" : "workstation"},
                  {"description", ""},
                  {"needs_reboot", false},
                  {"pending_actions_count", 0},
                  {"status", online ? "online" : "offline"},
                  {"last_seen", trmm_now()},
                  {"boot_time", 1.7e9},
                  {"checks",
                   {{"total", 0},
                    {"passing", 0},
                    {"failing", 0},
                    {"warning", 0},
                    {"info", 0},
                    {"has_failing_checks", false}}},
                  {"maintenance_mode", false},
                  {"logged_username", "-"},
                  {"italic", false},
                  {"policy", nullptr},
                  {"block_policy_inheritance", false},
                  {"plat", plat},
                  {"goarch", "amd64"},
                  {"has_patches_pending", false},
                  {"version", "2.9.1"},
                  {"operating_system", plat == "windows" ? "Windows 11 Pro, 64 bit (build 22631)" : plat},
                  {"public_ip", "203.0.113." + std::to_string(agent_pk % 250)},
                  {"cpu_model", json::array({"Intel(R) Core(TM) i5"})},
                  {"graphics", ""},
                  {"local_ips", "10.0.0." + std::to_string(agent_pk % 250)},
                  {"make_model", "Dell Inc. OptiPlex"},
                  {"physical_disks", json::array()},
                  {"custom_fields", json::array()},
                  {"site", site_id},
                  {"client", c}},
             online});
      }
      client_agents += n;
      client["sites"].push_back({{"id", site_id},
                                 {"name", site_name},
                                 {"server_policy", nullptr},
                                 {"workstation_policy", nullptr},
                                 {"alert_template", nullptr},
                                 {"client_name", name},
                                 {"client", c},
                                 {"custom_fields", json::array()},
                                 {"agent_count", n},
                                 {"block_policy_inheritance", false},
                                 {"maintenance_mode", false},
                                 {"failing_checks", {{"error", false}, {"warning", false}}}});
    }
    client["agent_count"] = client_agents;
    clients.push_back(std::move(client));
  }
  const auto script = [](int id, const char* name, const char* shell, const char* category, int timeout,
                         std::string out, std::string err, int retcode) {
    return Script{json{{"id", id},
                       {"name", name},
                       {"description", std::string("Sandbox script: ") + name},
                       {"script_type", "userdefined"},
                       {"shell", shell},
                       {"args", json::array()},
                       {"category", category},
                       {"favorite", false},
                       {"default_timeout", timeout},
                       {"syntax", nullptr},
                       {"filename", nullptr},
                       {"hidden", false},
                       {"supported_platforms", json::array()},
                       {"run_as_user", false},
                       {"env_vars", json::array()}},
                  std::move(out), std::move(err), retcode};
  };
  std::vector<Script> scripts{
      script(1, "Clear temporary files", "powershell", "Maintenance", 90, "Removed 412 files (1.2 GB)\n", "", 0),
      script(2, "Restart print spooler", "cmd", "Services", 60, "The Print Spooler service was restarted.\n", "", 0),
      script(3, "Check pending reboot", "powershell", "Diagnostics", 30, "Reboot pending: Windows Update\n",
             "WARNING: a reboot is pending\n", 1),
      script(4, "Collect event log", "powershell", "Diagnostics", 120, std::string(100 * 1024, 'e') + "\n", "", 0),
      script(5, "Get installed software", "powershell", "Community", 60, "7-Zip 23.01\nGoogle Chrome\n", "", 0)};
  scripts.back().row["script_type"] = "builtin";  // a community script
  std::lock_guard lock(mutex_);
  clients_ = std::move(clients);
  agents_ = std::move(agents);
  scripts_ = std::move(scripts);
  history_ = json::array();
  next_history_ = 1;
  return {{"clients", clients_.size()}, {"sites", sites}, {"agents", agents_.size()}, {"scripts", scripts_.size()}};
}

void TacticalRmmFake::set_faults(TacticalRmmFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

json TacticalRmmFake::stats() const {
  std::lock_guard lock(mutex_);
  return {{"requests", requests_},           {"unauthorized", unauthorised_}, {"throttled", throttled_},
          {"server_errors", server_errors_}, {"runs", runs_.size()},          {"in_flight_runs", in_flight_runs_},
          {"echoed", echoes_.count()}};
}

json TacticalRmmFake::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

json TacticalRmmFake::clients() const {
  std::lock_guard lock(mutex_);
  return clients_;
}

json TacticalRmmFake::agents() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& a : agents_) out.push_back(a.row);
  return out;
}

const TacticalRmmFake::Agent* TacticalRmmFake::agent_of(std::string_view agent_id) const {
  for (const auto& a : agents_)
    if (a.row["agent_id"] == agent_id) return &a;
  return nullptr;
}

awaitable<std::optional<Response>> TacticalRmmFake::gate(const Request& req, TacticalRmmFaults& faults) {
  const std::string given(req.header("X-API-KEY"));
  bool allowed = false;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    faults = faults_;
    allowed = !given.empty() && core::constant_time_equals(given, options_.key);
    if (!allowed) {
      ++unauthorised_;
    } else if (faults_.throttle > 0) {
      --faults_.throttle;
      ++throttled_;
    } else if (faults_.server_errors > 0) {
      --faults_.server_errors;
      ++server_errors_;
    }
  }
  if (!allowed) {
    auto res = trmm_detail(
        Status::unauthorized,
        echoes_.message(faults.echo, given.empty() ? "Authentication credentials were not provided." : "Invalid token.",
                        {{"X-API-KEY", given}}));
    res.headers.set("WWW-Authenticate", "Token");
    co_return res;
  }
  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) {
    auto res = trmm_detail(Status::too_many_requests, "Request was throttled. Expected available in " +
                                                          std::to_string(faults.retry_after) + " seconds.");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0) {
    if (faults.echo.credentials)  // a gateway's error page that quotes the request's headers
      co_return trmm_detail(static_cast<Status>(faults.status),
                            echoes_.message(faults.echo, "Server Error", {{"X-API-KEY", given}}));
    co_return trmm_server_error(faults.status);
  }
  co_return std::nullopt;
}

awaitable<Response> TacticalRmmFake::run_script(Request& req) {
  TacticalRmmFaults faults;
  if (auto refused = co_await gate(req, faults)) co_return std::move(*refused);
  const std::string agent_id(req.param("agent_id"));
  const auto body = json::parse(req.body, nullptr, false);
  // request.data[...] of a missing key is a KeyError: Django's 500.
  for (const char* key : {"script", "output", "args", "run_as_user", "env_vars", "timeout"})
    if (!body.is_object() || !body.contains(key)) co_return trmm_server_error(500);
  std::string hostname, script_name, out, err;
  int retcode = 0;
  bool online = false;
  std::int64_t history_id = 0;
  {
    std::lock_guard lock(mutex_);
    const Agent* agent = agent_of(agent_id);
    const Script* script = nullptr;
    for (const auto& s : scripts_)
      if (s.row["id"] == body["script"]) script = &s;
    if (!agent || !script) co_return trmm_detail(Status::not_found, "Not found.");
    hostname = agent->row["hostname"];
    script_name = script->row["name"];
    online = agent->online;
    out = script->stdout_text;
    err = script->stderr_text;
    retcode = script->retcode;
    history_id = next_history_++;
    history_.push_back({{"id", history_id},
                        {"script_name", script_name},
                        {"time", trmm_now()},
                        {"type", "script_run"},
                        {"command", ""},
                        {"username", "api-user"},
                        {"results", nullptr},
                        {"script_results", nullptr},
                        {"collector_all_output", false},
                        {"save_to_agent_note", false},
                        {"agent", agent_id},
                        {"script", script->row["id"]},
                        {"custom_field", nullptr}});
    if (online) {
      runs_.push_back(
          {{"agent_id", agent_id}, {"script", script->row["id"]}, {"args", body["args"]}, {"at", trmm_now()}});
      ++in_flight_runs_;
    }
  }
  if (!online)
    co_return Response::json(body["output"] == "wait" ? "timeout" : script_name + " will now be run on " + hostname);
  co_await core::async::sleep_for(faults.run);
  std::lock_guard lock(mutex_);
  --in_flight_runs_;
  for (auto& h : history_)
    if (h["id"] == history_id)
      h["script_results"] = {
          {"id", history_id}, {"stdout", out}, {"stderr", err}, {"retcode", retcode}, {"execution_time", 0.8}};
  if (body["output"] == "wait") co_return Response::json(out + err);
  co_return Response::json(script_name + " will now be run on " + hostname);
}

void TacticalRmmFake::install(core::http::Router& router) {
  const std::string at(kTrmm);
  // A view behind the gate.
  const auto view = [this](std::function<Response(const Request&)> work) {
    return [this, work](Request& req) -> awaitable<Response> {
      TacticalRmmFaults faults;
      if (auto refused = co_await gate(req, faults)) co_return std::move(*refused);
      std::lock_guard lock(mutex_);
      co_return work(req);
    };
  };
  router.get(at + "/clients/", view([this](const Request&) { return Response::json(clients_); }));
  router.get(at + "/clients/sites/", view([this](const Request&) {
               json sites = json::array();
               for (const auto& c : clients_)
                 for (const auto& s : c["sites"]) sites.push_back(s);
               return Response::json(sites);
             }));
  router.get(at + "/agents/", view([this](const Request& req) {
               const auto client = req.query.get("client");
               const auto site = req.query.get("site");
               const bool detail = req.query.get("detail").value_or("true") == "true";
               json out = json::array();
               for (const auto& a : agents_) {
                 if (site && a.row["site"].dump() != *site) continue;
                 if (!site && client && a.row["client"].dump() != *client) continue;
                 if (detail) {
                   json row = a.row;
                   row.erase("site");
                   row.erase("client");
                   out.push_back(std::move(row));
                 } else {
                   out.push_back({{"id", a.row["site"]},
                                  {"hostname", a.row["hostname"]},
                                  {"agent_id", a.row["agent_id"]},
                                  {"client", a.row["client_name"]},
                                  {"site", a.row["site_name"]}});
                 }
               }
               return Response::json(out);
             }));
  router.get(at + "/agents/{agent_id}/", view([this](const Request& req) {
               const Agent* a = agent_of(req.param("agent_id"));
               return a ? Response::json(a->row) : trmm_detail(Status::not_found, "Not found.");
             }));
  router.get(at + "/agents/{agent_id}/history/", view([this](const Request& req) {
               if (!agent_of(req.param("agent_id"))) return trmm_detail(Status::not_found, "Not found.");
               json out = json::array();
               for (const auto& h : history_)
                 if (h["agent"] == req.param("agent_id")) out.push_back(h);
               return Response::json(out);
             }));
  router.get(at + "/scripts/", view([this](const Request& req) {
               // GetAddScripts: community (builtin) scripts unless showCommunityScripts is false; hidden ones only
               // with showHiddenScripts=true (none is hidden here).
               const auto community = req.query.get("showCommunityScripts");
               const bool without_community = community && (community->empty() || *community == "false");
               json out = json::array();
               for (const auto& s : scripts_)
                 if (!without_community || s.row["script_type"] == "userdefined") out.push_back(s.row);
               return Response::json(out);
             }));
  router.post(at + "/agents/{agent_id}/runscript/", [this](Request& req) { return run_script(req); });
  // APPEND_SLASH: a GET without the slash is redirected; a POST cannot be (production answers 500).
  for (const char* path : {"/clients", "/clients/sites", "/agents", "/scripts"})
    router.get(at + path, [target = at + path + "/"](Request& req) -> awaitable<Response> {
      auto res = Response::empty(Status::moved_permanently);
      const auto q = req.target.find('?');
      res.headers.set("Location", target + (q == std::string::npos ? "" : req.target.substr(q)));
      co_return res;
    });
  router.post(at + "/agents/{agent_id}/runscript",
              [](Request&) -> awaitable<Response> { co_return trmm_server_error(500); });
  install_control(router);
}

void TacticalRmmFake::install_control(core::http::Router& router) {
  const auto bad = [](std::string detail) {
    return Response::json({{"detail", std::move(detail)}}, Status::bad_request);
  };
  router.post("/_sandbox/tacticalrmm/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.post("/_sandbox/tacticalrmm/seed", [this, bad](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return bad("body must be a JSON object");
    TacticalRmmSeed options;
    if (const auto wrong = read_int(body, "clients", 1, 1000, options.clients)) co_return bad(*wrong);
    if (const auto wrong = read_seed(body, options.seed)) co_return bad(*wrong);
    co_return Response::json(seed(options), Status::created);
  });
  router.put("/_sandbox/tacticalrmm/faults", [this, bad](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return bad("body must be a JSON object");
    TacticalRmmFaults f;
    if (const auto wrong = read_fault_switches(body, f)) co_return bad(*wrong);
    int run_ms = 0;
    if (const auto wrong = read_int(body, "run_ms", 0, 600'000, run_ms)) co_return bad(*wrong);
    f.run = std::chrono::milliseconds(run_ms);
    set_faults(f);
    co_return Response::empty();
  });
  router.get("/_sandbox/tacticalrmm/runs", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"runs", runs()}});
  });
  router.get("/_sandbox/tacticalrmm/stats",
             [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox

#include "ops_console/rmm/tactical.hpp"

#include "core/http/retry_after.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/rmm/history.hpp"

namespace ops_console::rmm {

using boost::asio::awaitable;
using nlohmann::json;

std::string rmm_reason_of(const core::http::OutboundResponse& res) {
  std::string reason = "HTTP " + std::to_string(res.status);
  const auto body = json::parse(res.body, nullptr, false);
  std::string said;
  if (body.is_object() && body.contains("detail") && body["detail"].is_string())
    said = body["detail"].get<std::string>();
  else if (body.is_string())
    said = body.get<std::string>();
  if (!said.empty()) reason += ": " + core::secrets::quote(said, 200);  // the key may be quoted: masked, then cut
  return reason;
}

std::vector<std::string> RmmSettings::missing() const {
  std::vector<std::string> out;
  if (base_url.empty()) out.emplace_back("RMM_BASE_URL");
  if (api_key.empty()) out.emplace_back("RMM_API_KEY");
  return out;
}

RmmSettings read_rmm_settings(core::config::Reader& env) {
  RmmSettings s;
  s.base_url = env.url("RMM_BASE_URL", "", "the remote-management API (Tactical RMM: https://api.<your domain>)");
  s.api_key = env.secret("RMM_API_KEY", "the remote-management API key (header X-API-KEY)");
  s.lease_margin = std::chrono::seconds(env.integer(
      "RMM_LEASE_MARGIN_SECONDS", 120,
      "the lease of a running script execution: its timeout, Tactical's 3 s and this many seconds, renewed by its "
      "worker every third of that while it runs; a lease that runs out means the worker died, and the execution "
      "is failed as interrupted, never run again",
      {0, 3600}));
  s.output_limit = static_cast<std::size_t>(env.integer(
      "RMM_OUTPUT_LIMIT_BYTES", 65536, "bytes of an execution's output stored (the rest is cut)", {1024, 1048576}));
  if (s.base_url.empty() != s.api_key.empty())
    env.fail(s.base_url.empty() ? "RMM_BASE_URL" : "RMM_API_KEY",
             "is required with " + std::string(s.base_url.empty() ? "RMM_API_KEY" : "RMM_BASE_URL") +
                 " (set both, or neither to leave remote management off)");
  return s;
}

TacticalClient::TacticalClient(boost::asio::any_io_executor executor, RmmSettings settings, integrations::Health health)
    : settings_(std::move(settings)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "rmm"}),
      health_(std::move(health)) {}

awaitable<core::http::OutboundResponse> TacticalClient::get(const std::string& path) {
  core::http::OutboundResponse res;
  try {
    res = co_await http_.send({.method = "GET",
                               .url = settings_.base_url + path,
                               .headers = {{"X-API-KEY", settings_.api_key}, {"Accept", "application/json"}},
                               .retry_status = [](int status) { return status == 429 || status >= 500; }});
  } catch (const core::http::TransportError& e) {
    throw RmmError("the remote-management service could not be reached (" + path + "): " + e.what());
  }
  if (!res.ok()) throw RmmError("the remote-management service refused " + path + ": " + rmm_reason_of(res));
  co_return res;
}

awaitable<json> TacticalClient::list(std::string path) {
  co_return co_await health_.observe<json>("rmm", [&]() -> awaitable<json> {
    auto body = json::parse((co_await get(path)).body, nullptr, false);
    if (!body.is_array()) throw RmmError("the remote-management service answered " + path + " without a list");
    co_return body;
  });
}

awaitable<std::string> TacticalClient::list_text(std::string path, const core::json::Kept& kept) {
  co_return co_await health_.observe<std::string>("rmm", [&]() -> awaitable<std::string> {
    auto text = core::json::kept_items((co_await get(path)).body, kept);
    if (!text) throw RmmError("the remote-management service answered " + path + " without a list");
    co_return std::move(*text);
  });
}

awaitable<RunResult> TacticalClient::run_script(std::string agent_id, std::int64_t script_id,
                                                std::vector<std::string> args, int timeout_seconds) {
  const std::string path = "/agents/" + core::url_encode(agent_id) + "/runscript/";
  const json body{{"output", "wait"},           {"script", script_id},  {"args", args},
                  {"timeout", timeout_seconds}, {"run_as_user", false}, {"env_vars", json::array()}};
  RunResult out;
  try {
    out = co_await health_.observe<RunResult>("rmm", [&]() -> awaitable<RunResult> {
      core::http::OutboundResponse res;
      try {
        res = co_await http_.send({.method = "POST",
                                   .url = settings_.base_url + path,
                                   .headers = {{"X-API-KEY", settings_.api_key},
                                               {"Content-Type", "application/json"},
                                               {"Accept", "application/json"}},
                                   .body = body.dump(),
                                   // Tactical waits timeout + 3 s for the agent; 15 s more for the answer.
                                   .timeout = std::chrono::seconds(timeout_seconds + 3 + 15),
                                   .retry_transport_errors = false,
                                   .retry_status = [](int status) { return status == 429; }});
      } catch (const core::http::TransportError& e) {
        throw RmmError("the remote-management service could not be reached (" + path + "): " + e.what());
      }
      RunResult r;
      if (res.status == 429) {
        r.kind = RunResult::Kind::throttled;
        r.error = rmm_reason_of(res);
        if (const auto asked =
                core::http::parse_retry_after(res.header("retry-after"), std::chrono::system_clock::now()))
          r.retry_after = *asked;
        co_return r;
      }
      if (!res.ok()) throw RmmError("the remote-management service refused " + path + ": " + rmm_reason_of(res));
      const auto answer = json::parse(res.body, nullptr, false);
      if (!answer.is_string()) throw RmmError("the remote-management service answered " + path + " without output");
      r.kind = RunResult::Kind::done;
      r.output = answer.get<std::string>();
      co_return r;
    });
  } catch (const RmmError& e) {
    out.kind = RunResult::Kind::failed;
    out.error = e.detail();
    co_return out;
  }
  if (out.kind != RunResult::Kind::done) co_return out;
  // The exit code: the agent reports it to Tactical (script_results.retcode of the history entry).
  try {
    const json history = co_await list("/agents/" + core::url_encode(agent_id) + "/history/");
    out.exit_code = script_exit_code(history, script_id);
  } catch (const RmmError&) {
    // the output stands; the exit code stays unknown
  }
  co_return out;
}

}  // namespace ops_console::rmm
